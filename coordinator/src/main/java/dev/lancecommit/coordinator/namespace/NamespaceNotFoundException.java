package dev.lancecommit.coordinator.namespace;

import java.util.List;

/** The request names an unknown namespace (HTTP 404, code 1). */
public class NamespaceNotFoundException extends CatalogException {
  private final List<String> id;

  public NamespaceNotFoundException(List<String> id) {
    super("Namespace " + Identifiers.display(id) + " not found");
    this.id = List.copyOf(id);
  }

  public List<String> id() {
    return id;
  }
}
