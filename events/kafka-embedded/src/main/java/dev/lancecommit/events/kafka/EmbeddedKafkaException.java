package dev.lancecommit.events.kafka;

/** The embedded broker could not be formatted, started or stopped; the message includes the tail of its log. */
public class EmbeddedKafkaException extends RuntimeException {
  public EmbeddedKafkaException(String message) {
    super(message);
  }

  public EmbeddedKafkaException(String message, Throwable cause) {
    super(message, cause);
  }
}
