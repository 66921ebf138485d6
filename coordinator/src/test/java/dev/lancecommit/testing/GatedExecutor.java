package dev.lancecommit.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * An executor that can be closed: tasks submitted while it is closed wait until it opens (tasks already running go
 * on). Lets a test make work pile up, e.g. commits queueing in a lane while a write is held, and then release all of
 * it at once.
 */
public final class GatedExecutor implements Executor {
  private final Executor delegate;
  private final List<Runnable> waiting = new ArrayList<>();
  private boolean closed;

  public GatedExecutor(Executor delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  @Override
  public synchronized void execute(Runnable task) {
    if (closed) {
      waiting.add(task);
    } else {
      delegate.execute(task);
    }
  }

  /** From now on, submitted tasks wait. */
  public synchronized void close() {
    closed = true;
  }

  /** Runs the tasks that waited, and every later one at once. */
  public synchronized void open() {
    closed = false;
    waiting.forEach(delegate::execute);
    waiting.clear();
  }
}
