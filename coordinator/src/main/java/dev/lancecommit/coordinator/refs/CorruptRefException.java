package dev.lancecommit.coordinator.refs;

/** A ref file that is not what Lance writes; nothing is decided on it (answered as an internal error, 500/18). */
public class CorruptRefException extends RuntimeException {
  public CorruptRefException(String message) {
    super(message);
  }
}
