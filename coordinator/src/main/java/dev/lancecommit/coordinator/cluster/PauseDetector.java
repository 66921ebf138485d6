package dev.lancecommit.coordinator.cluster;

import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Notices when this process stood still (SIGSTOP, a long GC pause, a starved machine), as Hadoop's JvmPauseMonitor
 * does: a thread sleeps in short slices and measures how long each really took. An instance paused past its session
 * timeout may have lost its partitions without knowing yet; until the group confirms its membership again it must
 * not commit as an owner. {@link #fresh()} says whether the thread ticked recently, which a thread resuming from a
 * pause can ask before the detector itself has run again.
 */
final class PauseDetector implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PauseDetector.class);
  private static final long SLICE_MS = 50;

  private final long staleAfterNanos;
  private final long suspectAfterNanos;
  private final Runnable onSuspectPause;
  private final Thread thread;
  private volatile long lastTick = System.nanoTime();
  private volatile boolean closed;

  /**
   * @param staleAfter a tick older than this means the process may be paused right now
   * @param suspectAfter a pause at least this long may have cost the membership: {@code onSuspectPause} runs (on the
   *     detector's thread, before the tick is renewed)
   */
  PauseDetector(Duration staleAfter, Duration suspectAfter, Runnable onSuspectPause) {
    this.staleAfterNanos = staleAfter.toNanos();
    this.suspectAfterNanos = suspectAfter.toNanos();
    this.onSuspectPause = onSuspectPause;
    this.thread = new Thread(this::run, "lance-commit-pause-detector");
    this.thread.setDaemon(true);
  }

  void start() {
    lastTick = System.nanoTime();
    thread.start();
  }

  /** True when the detector ticked within the stale bound: the process has not been standing still. */
  boolean fresh() {
    return System.nanoTime() - lastTick < staleAfterNanos;
  }

  private void run() {
    while (!closed) {
      try {
        Thread.sleep(SLICE_MS);
      } catch (InterruptedException e) {
        return;
      }
      long now = System.nanoTime();
      long gap = now - lastTick;
      if (gap >= suspectAfterNanos) {
        LOG.warn("This process stood still for {} ms; not acting as owner until the group confirms the membership",
            gap / 1_000_000);
        onSuspectPause.run(); // before the tick is renewed: whoever sees the new tick sees the suspicion too
      } else if (gap >= staleAfterNanos) {
        LOG.info("This process stood still for {} ms", gap / 1_000_000);
      }
      lastTick = now;
    }
  }

  @Override
  public void close() {
    closed = true;
    thread.interrupt();
  }
}
