package dev.lancecommit.coordinator.storage;

/**
 * A write left this process but no definite answer came back (timeout, reset, 5xx): it may or may not have been
 * applied. Callers resolve it by reading the key back.
 */
public class StoreOutcomeUnknownException extends StoreException {
  public StoreOutcomeUnknownException(String message, Throwable cause) {
    super(message, cause);
  }
}
