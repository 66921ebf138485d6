package dev.lancecommit.chaos.harness;

import java.time.Duration;

/**
 * When writers stop starting new commits, and how long after that they may keep resubmitting a transaction whose
 * outcome is still unknown.
 */
final class RunControl {
  private final Duration settle;
  private volatile boolean stopping;
  private volatile long settleDeadlineNanos = Long.MAX_VALUE;

  RunControl(Duration settle) {
    this.settle = settle;
  }

  void stop() {
    settleDeadlineNanos = System.nanoTime() + settle.toNanos();
    stopping = true;
  }

  boolean stopping() {
    return stopping;
  }

  boolean pastSettleDeadline() {
    return stopping && System.nanoTime() > settleDeadlineNanos;
  }
}
