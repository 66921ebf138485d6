package dev.lancecommit.chaos.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Starts N writer threads together, lets them run until the deadline and waits for their last commits. */
final class WriterPool {
  /** Writer threads are named {@code bench-writer-N}, so that {@link ThreadCpu} tells them from the rest. */
  static final String THREAD_PREFIX = "bench-writer-";

  private WriterPool() {}

  /** One writer's loop until {@code deadline} (System.nanoTime()). */
  interface Writer {
    void run(int writer, long deadline) throws Exception;
  }

  static void run(RunResult result, int writers, int seconds, Writer writer) throws Exception {
    AtomicInteger threads = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(writers,
        task -> new Thread(task, THREAD_PREFIX + threads.incrementAndGet()));
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
    Optional<ThreadCpu> cpuBefore = ThreadCpu.now();
    long begin = System.nanoTime();
    deadline[0] = begin + TimeUnit.SECONDS.toNanos(seconds);
    start.countDown();
    try {
      // CPU of the window only: the drain after the deadline is a few writers' last commits
      long toDeadline = deadline[0] - System.nanoTime();
      if (toDeadline > 0) {
        TimeUnit.NANOSECONDS.sleep(toDeadline);
      }
      long windowEnd = System.nanoTime();
      cpuBefore.ifPresent(before -> ThreadCpu.now().ifPresent(after -> CommitBenchmark.log(ThreadCpu.describe(
          after.since(before), (windowEnd - begin) / 1e9, Runtime.getRuntime().availableProcessors()))));
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    result.elapsed(deadline[0] - begin, System.nanoTime() - begin);
  }
}
