package dev.lancecommit.chaos.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Starts N writer threads together, lets them run until the deadline and waits for their last commits. */
final class WriterPool {
  private WriterPool() {}

  /** One writer's loop until {@code deadline} (System.nanoTime()). */
  interface Writer {
    void run(int writer, long deadline) throws Exception;
  }

  static void run(RunResult result, int writers, int seconds, Writer writer) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> futures = new ArrayList<>();
    long[] deadline = new long[1];
    for (int w = 0; w < writers; w++) {
      int index = w;
      futures.add(pool.submit(() -> {
        start.await();
        writer.run(index, deadline[0]);
        return null;
      }));
    }
    CommitBenchmark.log("running " + result.name() + ": " + writers + " writers for " + seconds + " s");
    long begin = System.nanoTime();
    deadline[0] = begin + TimeUnit.SECONDS.toNanos(seconds);
    start.countDown();
    try {
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    result.elapsed(deadline[0] - begin, System.nanoTime() - begin);
  }
}
