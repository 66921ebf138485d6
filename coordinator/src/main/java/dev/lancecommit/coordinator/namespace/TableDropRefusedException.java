package dev.lancecommit.coordinator.namespace;

import java.util.List;

/**
 * DropTable will not delete this table's files: its location is outside the warehouse, or another catalogued
 * table (live or deregistered with its data kept) uses the same files (HTTP 409, code 19). Nothing was changed.
 */
public class TableDropRefusedException extends CatalogException {
  private final List<String> id;

  public TableDropRefusedException(List<String> id, String message) {
    super(message);
    this.id = List.copyOf(id);
  }

  public List<String> id() {
    return id;
  }
}
