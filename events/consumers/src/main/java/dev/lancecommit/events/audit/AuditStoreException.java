package dev.lancecommit.events.audit;

/** The audit database could not be opened, written or read; the message names the file and the cause. */
public class AuditStoreException extends RuntimeException {
  public AuditStoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
