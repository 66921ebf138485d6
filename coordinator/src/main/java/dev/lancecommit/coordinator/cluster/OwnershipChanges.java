package dev.lancecommit.coordinator.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One-shot listeners for the next ownership change that can be cancelled. {@link TableOwnership#changed()} is one
 * future shared until the next rebalance, so a callback attached to it per request stays attached, holding the
 * request, until the ownership next changes — which in a quiet cluster may be never. Here the future gets one callback
 * per change, and a listener that is no longer wanted (its forward was answered) is dropped at once.
 */
public final class OwnershipChanges {
  private final TableOwnership ownership;
  private final Set<Runnable> listeners = ConcurrentHashMap.newKeySet();
  private final AtomicReference<CompletableFuture<Void>> armed = new AtomicReference<>();

  public OwnershipChanges(TableOwnership ownership) {
    this.ownership = Objects.requireNonNull(ownership, "ownership");
  }

  /**
   * Runs {@code listener} once, at the next ownership change (on the thread that signals it).
   *
   * @return cancels the listener; idempotent
   */
  public Runnable next(Runnable listener) {
    Runnable once = new Runnable() {
      @Override
      public void run() {
        listener.run();
      }
    };
    listeners.add(once);
    arm();
    return () -> listeners.remove(once);
  }

  /** Listeners waiting for the next change. */
  public int waiting() {
    return listeners.size();
  }

  private void arm() {
    // The membership replaces its future before it completes the old one, so a change that fires while a listener
    // is being added leaves the new future here to arm.
    CompletableFuture<Void> next = ownership.changed();
    if (armed.getAndSet(next) != next) {
      next.whenComplete((ignored, error) -> fire());
    }
  }

  private void fire() {
    List<Runnable> due = new ArrayList<>(listeners);
    listeners.removeAll(due);
    due.forEach(Runnable::run);
    if (!listeners.isEmpty()) {
      arm();
    }
  }
}
