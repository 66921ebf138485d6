package dev.lancecommit.coordinator.namespace;

import java.util.List;

/** The table exists but has no manifest for the requested version (HTTP 404, code 11). */
public class TableVersionNotFoundException extends CatalogException {
  private final List<String> id;
  private final long version;

  public TableVersionNotFoundException(List<String> id, long version) {
    super("Table " + Identifiers.display(id) + " has no version " + version);
    this.id = List.copyOf(id);
    this.version = version;
  }

  public List<String> id() {
    return id;
  }

  public long version() {
    return version;
  }
}
