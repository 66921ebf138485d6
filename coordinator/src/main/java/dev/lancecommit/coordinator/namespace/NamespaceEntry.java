package dev.lancecommit.coordinator.namespace;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A catalogued namespace. The root namespace (empty id) is implicit: it always exists, has no properties and is
 * never stored.
 */
public record NamespaceEntry(List<String> id, Map<String, String> properties, Instant createdAt) {
  public NamespaceEntry {
    id = List.copyOf(id);
    properties = Map.copyOf(properties);
  }

  static NamespaceEntry root() {
    return new NamespaceEntry(List.of(), Map.of(), Instant.EPOCH);
  }

  public boolean isRoot() {
    return id.isEmpty();
  }
}
