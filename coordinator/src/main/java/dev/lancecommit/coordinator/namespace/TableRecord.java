package dev.lancecommit.coordinator.namespace;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One stored revision of a table entry, live or not. {@code revisionId} is random per write so that reading a
 * revision back after an ambiguous write can tell our bytes from a competitor's.
 */
record TableRecord(
    List<String> id, String location, String tableUuid, TableStatus status, Map<String, String> properties,
    Instant createdAt, Instant updatedAt, String revisionId, Optional<List<String>> renamedTo,
    Optional<List<String>> renamedFrom) {

  TableRecord {
    id = List.copyOf(id);
    properties = Map.copyOf(properties);
    renamedTo = renamedTo.map(List::copyOf);
    renamedFrom = renamedFrom.map(List::copyOf);
  }

  Optional<TableEntry> live() {
    return status.liveState().map(state -> new TableEntry(id, location, tableUuid, state, properties, createdAt));
  }

  boolean isLive() {
    return status.isLive();
  }

  /** The same table in another status (same location, uuid and properties). */
  TableRecord withStatus(TableStatus next) {
    return new TableRecord(id, location, tableUuid, next, properties, createdAt, updatedAt, revisionId, renamedTo,
        renamedFrom);
  }

  TableRecord renamedTo(List<String> target) {
    return new TableRecord(id, location, tableUuid, TableStatus.RENAMED, properties, createdAt, updatedAt,
        revisionId, Optional.of(target), renamedFrom);
  }

  /** This table's content under another identifier. */
  TableRecord movedTo(List<String> target) {
    return new TableRecord(target, location, tableUuid, status, properties, createdAt, updatedAt, revisionId,
        Optional.empty(), Optional.of(id));
  }

  /** Stamps the write: when and a fresh random revision id. */
  TableRecord stamped(Instant now, String newRevisionId) {
    return new TableRecord(id, location, tableUuid, status, properties, createdAt, now, newRevisionId, renamedTo,
        renamedFrom);
  }

  static TableRecord create(List<String> id, String location, String tableUuid, TableStatus status,
      Map<String, String> properties, Instant now) {
    return new TableRecord(id, location, tableUuid, status, properties, now, now, "", Optional.empty(),
        Optional.empty());
  }
}
