package dev.lancecommit.coordinator.namespace;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One revision of a table's catalog entry, as a change: what the entry became ({@code status}: declared, registered,
 * deregistered, dropped, renamed) and when it was written.
 *
 * @param renamedFrom the identifier a renamed table came from, on the first revision under its new identifier
 */
public record TableChange(List<String> id, String tableUuid, String location, String status, Instant at,
    Optional<List<String>> renamedFrom) {
  public TableChange {
    id = List.copyOf(id);
    renamedFrom = renamedFrom.map(List::copyOf);
  }
}
