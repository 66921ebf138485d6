package dev.lancecommit.coordinator.table;

/**
 * The manifest write may have landed and reading it back did not settle whether it did (HTTP 503, code 17).
 * Resubmitting the same transaction (same uuid) is safe: it either finds the commit or makes it.
 */
public class CommitStateUnknownException extends RuntimeException {
  private final long version;

  public CommitStateUnknownException(long version, String message, Throwable cause) {
    super(message, cause);
    this.version = version;
  }

  public long version() {
    return version;
  }
}
