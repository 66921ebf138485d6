package dev.lancecommit.coordinator.storage;

/** Base of storage failures. Subclasses say whether the request may have been applied. */
public class StoreException extends RuntimeException {
  public StoreException(String message) {
    super(message);
  }

  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
