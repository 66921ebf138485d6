package dev.lancecommit.format;

/** Base of every refusal the format model and the conflict rules can give. The message is meant for the caller. */
public abstract class RulesException extends RuntimeException {
  protected RulesException(String message) {
    super(message);
  }

  protected RulesException(String message, Throwable cause) {
    super(message, cause);
  }
}
