package dev.lancecommit.coordinator.refs;

/** Base of the refusals of tag, branch and version-record operations. The message is meant for the caller. */
public abstract class RefException extends RuntimeException {
  protected RefException(String message) {
    super(message);
  }
}
