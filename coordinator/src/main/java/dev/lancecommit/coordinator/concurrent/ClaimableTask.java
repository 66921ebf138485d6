package dev.lancecommit.coordinator.concurrent;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Work handed to a pool ahead of need that runs at most once: on the pool's thread, or, if no thread has started it
 * when its result is wanted, by the caller itself ({@link #runOrAwait}) or not at all ({@link #cancelOrAwait}). A
 * task already under way is waited for, since it is on a thread and ends. So nothing ever waits for a thread that may
 * not come, and a busy pool ({@link RejectedExecutionException}) only means the work is done later, or never.
 */
public final class ClaimableTask<T> {
  private final Supplier<T> work;
  private final AtomicBoolean taken = new AtomicBoolean();
  private final CompletableFuture<T> result = new CompletableFuture<>();

  private ClaimableTask(Supplier<T> work) {
    this.work = work;
  }

  /** The work offered to {@code executor}; if the executor refuses it, it stays unstarted. */
  public static <T> ClaimableTask<T> start(Supplier<T> work, Executor executor) {
    ClaimableTask<T> task = new ClaimableTask<>(work);
    try {
      executor.execute(task::runIfNotTaken);
    } catch (RejectedExecutionException e) {
      // left to runOrAwait or cancelOrAwait
    }
    return task;
  }

  /** A task whose result is already known. */
  public static <T> ClaimableTask<T> done(T value) {
    ClaimableTask<T> task = new ClaimableTask<>(() -> value);
    task.runIfNotTaken();
    return task;
  }

  private void runIfNotTaken() {
    if (!taken.compareAndSet(false, true)) {
      return;
    }
    try {
      result.complete(work.get());
    } catch (Throwable t) {
      result.completeExceptionally(t);
    }
  }

  /** The result, running the work here if no thread started it; the work's own failure is thrown as it was. */
  public T runOrAwait() {
    runIfNotTaken();
    return join();
  }

  /**
   * {@code ifNotStarted} if no thread started the work (which then never runs), else the result of the run under way
   * or done. Every later call gives the same answer.
   */
  public T cancelOrAwait(T ifNotStarted) {
    cancel(ifNotStarted);
    return join();
  }

  /** Makes work not started never run, with {@code instead} as its result; false if it had started. */
  public boolean cancel(T instead) {
    if (taken.compareAndSet(false, true)) {
      result.complete(instead);
      return true;
    }
    return false;
  }

  /**
   * Runs {@code action} with the result once the work has succeeded: at once on this thread if it has, else on the
   * thread that finishes the work, which may be after callers waiting in {@link #runOrAwait} were answered.
   */
  public void whenSucceeded(Consumer<? super T> action) {
    result.whenComplete((value, failure) -> {
      if (failure == null) {
        action.accept(value);
      }
    });
  }

  private T join() {
    try {
      return result.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw e;
    }
  }
}
