package dev.lancecommit.coordinator.namespace;

/**
 * An entry kept changing under a catalog update: every attempt found a newer revision written by someone else
 * (HTTP 409, code 14). Nothing was changed by the refused call; it may be retried.
 */
public class CatalogConcurrentUpdateException extends CatalogException {
  public CatalogConcurrentUpdateException(String message) {
    super(message);
  }
}
