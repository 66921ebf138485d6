package dev.lancecommit.coordinator.namespace;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One stored revision of a table entry, live or not. {@code revisionId} is random per write so that reading a
 * revision back after an ambiguous write can tell our bytes from a competitor's. A RENAMED revision names the
 * identifier the table moved to and, when written by a coordinator with the location registry, the revision of that
 * identifier's entry the move creates ({@code renamedToRevision}), so a rename cut short can be told from one in
 * flight (see {@link LocationRegistry}).
 */
record TableRecord(
    List<String> id, String location, String tableUuid, TableStatus status, Map<String, String> properties,
    Instant createdAt, Instant updatedAt, String revisionId, Optional<List<String>> renamedTo,
    OptionalLong renamedToRevision, Optional<List<String>> renamedFrom) {

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
        renamedToRevision, renamedFrom);
  }

  /** The tombstone a rename leaves: moved to {@code target}, whose entry gets revision {@code targetRevision}. */
  TableRecord renamedTo(List<String> target, long targetRevision) {
    return new TableRecord(id, location, tableUuid, TableStatus.RENAMED, properties, createdAt, updatedAt,
        revisionId, Optional.of(target), OptionalLong.of(targetRevision), renamedFrom);
  }

  /** This table's content under another identifier. */
  TableRecord movedTo(List<String> target) {
    return new TableRecord(target, location, tableUuid, status, properties, createdAt, updatedAt, revisionId,
        Optional.empty(), OptionalLong.empty(), Optional.of(id));
  }

  /** Stamps the write: when and a fresh random revision id. */
  TableRecord stamped(Instant now, String newRevisionId) {
    return new TableRecord(id, location, tableUuid, status, properties, createdAt, now, newRevisionId, renamedTo,
        renamedToRevision, renamedFrom);
  }

  static TableRecord create(List<String> id, String location, String tableUuid, TableStatus status,
      Map<String, String> properties, Instant now) {
    return new TableRecord(id, location, tableUuid, status, properties, now, now, "", Optional.empty(),
        OptionalLong.empty(), Optional.empty());
  }
}
