package dev.lancecommit.coordinator.verify;

import dev.lancecommit.coordinator.storage.StoreUnavailableException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Runs blocking tasks with at most {@code parallelism} at a time: the calling thread works through them and asks
 * {@code parallelism - 1} helpers from the executor to do the same. Tasks are claimed one at a time, so the caller
 * never waits for a task nobody has started: on an executor whose threads are all busy (the commit lanes share it)
 * the caller simply does everything itself, and no lane can deadlock waiting for the pool it runs on.
 */
final class BoundedParallel {
  private BoundedParallel() {}

  /**
   * The tasks' results, in task order.
   *
   * @throws RuntimeException the first failure of any task, after every claimed task has finished
   */
  static <T> List<T> run(List<Supplier<T>> tasks, Executor executor, int parallelism) {
    int n = tasks.size();
    Object[] results = new Object[n];
    AtomicInteger next = new AtomicInteger();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(n);
    Runnable worker = () -> {
      for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
        try {
          results[i] = tasks.get(i).get();
        } catch (Throwable t) {
          failure.compareAndSet(null, t);
        } finally {
          done.countDown();
        }
      }
    };
    int helpers = Math.min(parallelism, n) - 1;
    for (int h = 0; h < helpers; h++) {
      try {
        executor.execute(worker);
      } catch (RejectedExecutionException e) {
        break; // the caller does the rest
      }
    }
    worker.run();
    try {
      done.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreUnavailableException("Interrupted while checking files", e);
    }
    Throwable failed = failure.get();
    if (failed instanceof RuntimeException runtime) {
      throw runtime;
    }
    if (failed instanceof Error error) {
      throw error;
    }
    if (failed != null) {
      throw new IllegalStateException(failed);
    }
    @SuppressWarnings("unchecked")
    List<T> out = (List<T>) new ArrayList<>(Arrays.asList(results));
    return out;
  }
}
