package dev.lancecommit.coordinator.namespace;

import java.util.List;

/** The request names a table that already exists (HTTP 409, code 5). */
public class TableAlreadyExistsException extends CatalogException {
  private final List<String> id;

  public TableAlreadyExistsException(List<String> id) {
    super("Table " + Identifiers.display(id) + " already exists");
    this.id = List.copyOf(id);
  }

  public TableAlreadyExistsException(List<String> id, String message) {
    super(message);
    this.id = List.copyOf(id);
  }

  public List<String> id() {
    return id;
  }
}
