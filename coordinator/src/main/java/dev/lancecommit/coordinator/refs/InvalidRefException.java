package dev.lancecommit.coordinator.refs;

/** A tag or branch name Lance would refuse, or a request that cannot be applied as given (HTTP 400, code 13). */
public class InvalidRefException extends RefException {
  public InvalidRefException(String message) {
    super(message);
  }
}
