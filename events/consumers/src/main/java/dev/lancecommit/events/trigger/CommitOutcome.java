package dev.lancecommit.events.trigger;

/** The coordinator's answer to a CommitTable call. */
public sealed interface CommitOutcome {

  /** The transaction is version {@code version}. */
  record Committed(long version) implements CommitOutcome {}

  /** 409 with code 14: a concurrent commit conflicts, rebuild on the new version and try again. */
  record RetryableConflict(String detail) implements CommitOutcome {}

  /** Refused for good (bad transaction, incompatible conflict, unknown table, no permission). */
  record Rejected(int status, int code, String detail) implements CommitOutcome {}

  /** No answer, or 429/5xx: the outcome may be unknown; resubmit the same bytes (same uuid) to find out. */
  record Unavailable(String detail) implements CommitOutcome {}
}
