package dev.lancecommit.coordinator.namespace;

/**
 * A catalog revision file that does not parse. Never guessed around: reading that entry fails (HTTP 500), while
 * listings skip it with a warning.
 */
public class CorruptCatalogEntryException extends IllegalStateException {
  public CorruptCatalogEntryException(String message, Throwable cause) {
    super(message, cause);
  }
}
