package dev.lancecommit.coordinator.commit;

/**
 * In cluster mode: this instance does not own the table (any more), so it did not write the commit. Nothing of the
 * commit was written: the request can be sent to the owner as it is.
 */
public final class TableNotOwnedException extends RuntimeException {
  public TableNotOwnedException(String message) {
    super(message, null, false, false);
  }
}
