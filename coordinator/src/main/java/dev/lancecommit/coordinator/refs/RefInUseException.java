package dev.lancecommit.coordinator.refs;

/**
 * A branch or version something else still needs: a branch other branches or tags were made from, a tagged or the
 * latest version (HTTP 400, code 13, naming what holds it).
 */
public class RefInUseException extends RefException {
  public RefInUseException(String message) {
    super(message);
  }
}
