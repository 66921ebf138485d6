package dev.lancecommit.coordinator.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class OwnershipChangesTest {

  /** Replaces its future before completing the old one, as ClusterMembership does. */
  private static final class Signalling implements TableOwnership {
    final AtomicReference<CompletableFuture<Void>> next = new AtomicReference<>(new CompletableFuture<>());

    void signal() {
      next.getAndSet(new CompletableFuture<>()).complete(null);
    }

    @Override
    public Route route(String tableKey) {
      return new Route.Local(0);
    }

    @Override
    public boolean serves(String tableKey) {
      return true;
    }

    @Override
    public boolean publishes(String tableKey) {
      return true;
    }

    @Override
    public CompletableFuture<Void> changed() {
      return next.get();
    }

    @Override
    public int generation() {
      return 1;
    }

    @Override
    public String self() {
      return "http://self";
    }

    @Override
    public Map<String, Object> status() {
      return Map.of();
    }
  }

  @Test
  void cancelledListenersAreNotKeptUntilTheNextChange() {
    Signalling ownership = new Signalling();
    OwnershipChanges changes = new OwnershipChanges(ownership);
    AtomicInteger fired = new AtomicInteger();
    // a quiet cluster: many forwards answered, no rebalance
    for (int i = 0; i < 100_000; i++) {
      changes.next(fired::incrementAndGet).run();
    }
    assertThat(changes.waiting()).isZero();
    assertThat(ownership.changed().getNumberOfDependents()).isLessThanOrEqualTo(1);
    ownership.signal();
    assertThat(fired).hasValue(0);
  }

  @Test
  void eachListenerRunsOnceAtTheNextChangeAndLaterOnesWaitForTheOneAfter() {
    Signalling ownership = new Signalling();
    OwnershipChanges changes = new OwnershipChanges(ownership);
    List<String> seen = new ArrayList<>();
    changes.next(() -> seen.add("a"));
    changes.next(() -> seen.add("b"));
    Runnable cancelC = changes.next(() -> seen.add("c"));
    cancelC.run();
    ownership.signal();
    assertThat(seen).containsExactlyInAnyOrder("a", "b");
    changes.next(() -> seen.add("d"));
    ownership.signal();
    ownership.signal();
    assertThat(seen).containsExactlyInAnyOrder("a", "b", "d");
    // a listener added from within a change waits for the next one
    changes.next(() -> changes.next(() -> seen.add("f")));
    ownership.signal();
    assertThat(seen).doesNotContain("f");
    ownership.signal();
    assertThat(seen).contains("f");
  }
}
