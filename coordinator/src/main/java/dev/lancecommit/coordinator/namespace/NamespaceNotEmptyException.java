package dev.lancecommit.coordinator.namespace;

import java.util.List;

/** The namespace still holds tables or child namespaces (HTTP 409, code 3). */
public class NamespaceNotEmptyException extends CatalogException {
  private final List<String> id;

  public NamespaceNotEmptyException(List<String> id, String message) {
    super(message);
    this.id = List.copyOf(id);
  }

  public List<String> id() {
    return id;
  }
}
