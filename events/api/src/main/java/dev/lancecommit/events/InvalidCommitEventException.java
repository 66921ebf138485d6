package dev.lancecommit.events;

/** A CloudEvent or Kafka record that is not a well-formed commit event; the message names what is wrong. */
public class InvalidCommitEventException extends IllegalArgumentException {
  public InvalidCommitEventException(String message) {
    super(message);
  }

  public InvalidCommitEventException(String message, Throwable cause) {
    super(message, cause);
  }
}
