package dev.lancecommit.coordinator.namespace;

import java.util.List;

/** The request names a namespace that already exists (HTTP 409, code 2). */
public class NamespaceAlreadyExistsException extends CatalogException {
  private final List<String> id;

  public NamespaceAlreadyExistsException(List<String> id) {
    super("Namespace " + Identifiers.display(id) + " already exists");
    this.id = List.copyOf(id);
  }

  public List<String> id() {
    return id;
  }
}
