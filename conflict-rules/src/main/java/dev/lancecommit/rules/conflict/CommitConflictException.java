package dev.lancecommit.rules.conflict;

import dev.lancecommit.format.RulesException;

/**
 * A committed version conflicts with the transaction. Retryable (HTTP 409, code 14): rebuild the transaction on the
 * new version and try again. Incompatible (HTTP 409, code 19): the transaction can never apply on top of it.
 */
public class CommitConflictException extends RulesException {
  private final boolean retryable;
  private final long conflictingVersion;
  private final String conflictingOperation;
  private final String rule;

  public CommitConflictException(
      boolean retryable, long conflictingVersion, String conflictingOperation, String rule, String message) {
    super(message);
    this.retryable = retryable;
    this.conflictingVersion = conflictingVersion;
    this.conflictingOperation = conflictingOperation;
    this.rule = rule;
  }

  public boolean retryable() {
    return retryable;
  }

  public long conflictingVersion() {
    return conflictingVersion;
  }

  public String conflictingOperation() {
    return conflictingOperation;
  }

  /** The name of the rule that decided, as listed in SPEC.md. */
  public String rule() {
    return rule;
  }
}
