package dev.lancecommit.coordinator.cluster;

import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Which instance owns which table, as this instance knows it: {@link ClusterMembership} in cluster mode (Kafka's
 * consumer-group protocol), a fixed view in tests. Every method is cheap and never blocks, so it may be called on an
 * event loop and from a commit lane before each write.
 */
public interface TableOwnership {

  /** Where a request for the table with this key (the id joined with {@code $}) goes now. */
  Route route(String tableKey);

  /**
   * Whether this instance may commit to the table now: it owns the partition, is not giving it up, and has not been
   * paused long enough to have lost it without knowing yet.
   */
  boolean serves(String tableKey);

  /** Whether this instance publishes the table's events: it owns the partition (also while giving it up). */
  boolean publishes(String tableKey);

  /** Completes at the next change of ownership as this instance sees it (a new map, partitions gained or lost). */
  CompletableFuture<Void> changed();

  /** The generation of the ownership map this instance holds (0 before the first). */
  int generation();

  /** This instance's advertised URL. */
  String self();

  /** A description for {@code /healthz}: member URL, generation, partitions served. */
  Map<String, Object> status();
}
