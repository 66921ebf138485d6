package dev.lancecommit.coordinator.namespace;

/** Base of the catalog's refusals. The message is meant for the caller. */
public abstract class CatalogException extends RuntimeException {
  protected CatalogException(String message) {
    super(message);
  }
}
