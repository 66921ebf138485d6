package dev.lancecommit.coordinator.storage;

/** The store could not be reached and the request was certainly not applied (connection refused, 503 before send). */
public class StoreUnavailableException extends StoreException {
  public StoreUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
