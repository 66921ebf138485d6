package dev.lancecommit.coordinator.namespace;

import java.util.List;

/** The request names a unknown table (HTTP 404, code 4). */
public class TableNotFoundException extends CatalogException {
  private final List<String> id;

  public TableNotFoundException(List<String> id) {
    super("Table " + Identifiers.display(id) + " not found");
    this.id = List.copyOf(id);
  }

  public List<String> id() {
    return id;
  }
}
