package dev.lancecommit.coordinator.namespace;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** One stored revision of a namespace entry: active, or dropped. */
record NamespaceRecord(
    List<String> id, boolean active, Map<String, String> properties, Instant createdAt, Instant updatedAt,
    String revisionId) {

  NamespaceRecord {
    id = List.copyOf(id);
    properties = Map.copyOf(properties);
  }

  Optional<NamespaceEntry> live() {
    return active ? Optional.of(new NamespaceEntry(id, properties, createdAt)) : Optional.empty();
  }

  NamespaceRecord dropped() {
    return new NamespaceRecord(id, false, properties, createdAt, updatedAt, revisionId);
  }

  NamespaceRecord restored() {
    return new NamespaceRecord(id, true, properties, createdAt, updatedAt, revisionId);
  }

  NamespaceRecord withProperties(Map<String, String> newProperties) {
    return new NamespaceRecord(id, active, newProperties, createdAt, updatedAt, revisionId);
  }

  NamespaceRecord stamped(Instant now, String newRevisionId) {
    return new NamespaceRecord(id, active, properties, createdAt, now, newRevisionId);
  }

  static NamespaceRecord create(List<String> id, Map<String, String> properties, Instant now) {
    return new NamespaceRecord(id, true, properties, now, now, "");
  }
}
