package dev.lancecommit.chaos.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/** Starts N writer threads together, lets them run until the deadline and waits for their last commits. */
final class WriterPool {
  /** Writer threads are named {@code bench-writer-N}, so that {@link ThreadCpu} tells them from the rest. */
  static final String THREAD_PREFIX = "bench-writer-";
  /**
   * How long the writers' last commits may take after the deadline. Stock Lance's slowest commits under contention
   * take 90-100 s; after 300 s warm-ups its writers were seen waiting inside Lance's native commit for more than 8
   * minutes, with nothing running. Past this the run is abandoned rather than the whole invocation waiting.
   */
  static final Duration DRAIN_LIMIT = Duration.ofMinutes(5);

  private WriterPool() {}

  /** One writer's loop until {@code deadline} (System.nanoTime()). */
  interface Writer {
    void run(int writer, long deadline) throws Exception;
  }

  static void run(RunResult result, int writers, int seconds, Writer writer) throws Exception {
    run(result, writers, seconds, DRAIN_LIMIT, writer);
  }

  /**
   * @throws IllegalStateException when a writer has not returned {@code drainLimit} after the deadline (its thread is
   *     left behind: a daemon, so that it cannot keep the benchmark's JVM alive)
   */
  static void run(RunResult result, int writers, int seconds, Duration drainLimit, Writer writer) throws Exception {
    AtomicInteger threads = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(writers, task -> {
      Thread thread = new Thread(task, THREAD_PREFIX + threads.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    });
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
      Optional<Map<String, Long>> cpuInWindow = cpuBefore.flatMap(before -> ThreadCpu.now().map(after ->
          after.since(before)));
      cpuInWindow.ifPresent(spent -> CommitBenchmark.log(ThreadCpu.describe(spent, (windowEnd - begin) / 1e9,
          Runtime.getRuntime().availableProcessors())));
      long drainEnd = deadline[0] + drainLimit.toNanos();
      for (Future<?> f : futures) {
        try {
          f.get(Math.max(0, drainEnd - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
          long stuck = futures.stream().filter(future -> !future.isDone()).count();
          String message = stuck + " of " + writers + " writers of " + result.name() + " had not returned "
              + drainLimit.toSeconds() + " s after the deadline; the run is abandoned";
          // logged here too: closing what the stuck writers still hold may fail and hide this exception
          CommitBenchmark.log(message);
          throw new IllegalStateException(message);
        }
      }
      // every commit counted in the window has finished by now
      cpuInWindow.ifPresent(spent -> CommitBenchmark.log(ThreadCpu.perCommit(spent, result.commitsInWindow())));
    } finally {
      pool.shutdownNow();
    }
    result.elapsed(deadline[0] - begin, System.nanoTime() - begin);
  }
}
