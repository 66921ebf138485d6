package dev.lancecommit.coordinator.cluster;

/** Where a request for a table goes now, as one instance sees the cluster. */
public sealed interface Route {
  /** The table's partition; -1 while the partition count is not known yet. */
  int partition();

  /** This instance owns the table's partition and may commit to it. */
  record Local(int partition) implements Route {}

  /** Another instance owns it, as of the map of {@code generation}. */
  record Remote(int partition, String url, int generation) implements Route {}

  /** Nobody can serve it from here right now; {@code reason} says why (for the 503 a request gets past its wait). */
  record Unowned(int partition, String reason) implements Route {}
}
