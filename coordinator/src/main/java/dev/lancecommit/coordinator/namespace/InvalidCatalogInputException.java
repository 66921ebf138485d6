package dev.lancecommit.coordinator.namespace;

/** A malformed identifier, location or mode, or a location that holds no Lance dataset (HTTP 400, code 13). */
public class InvalidCatalogInputException extends CatalogException {
  public InvalidCatalogInputException(String message) {
    super(message);
  }
}
