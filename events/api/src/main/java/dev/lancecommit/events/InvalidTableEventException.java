package dev.lancecommit.events;

/**
 * A CloudEvent that is not a well-formed table (catalog) event; the message names what is wrong. A subclass of
 * {@link InvalidCommitEventException} so readers of the shared topic that skip malformed records skip these too.
 */
public class InvalidTableEventException extends InvalidCommitEventException {
  public InvalidTableEventException(String message) {
    super(message);
  }

  public InvalidTableEventException(String message, Throwable cause) {
    super(message, cause);
  }
}
