package dev.lancecommit.events.audit;

/** What {@link AuditLog#record} did with an event. */
public enum RecordOutcome {
  /** The version was new and is now recorded. */
  INSERTED,
  /** The same version was recorded before with the same transaction: a replay, nothing changed. */
  DUPLICATE,
  /**
   * The same (table uuid, version) was recorded before with a different transaction. The first record stays (the
   * log is append-only); this is logged as an error because one version cannot have two transactions.
   */
  CONFLICTING_DUPLICATE
}
