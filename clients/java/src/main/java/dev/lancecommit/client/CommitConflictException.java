package dev.lancecommit.client;

import java.util.OptionalLong;

/**
 * 409: a version committed since the transaction's read version conflicts with it; the transaction was not committed.
 * The coordinator names the conflicting version and operation.
 */
public abstract class CommitConflictException extends RequestFailedException {
  private final OptionalLong conflictingVersion;
  private final String conflictingOperation;

  protected CommitConflictException(String message, int httpStatus, int code, String detail,
      OptionalLong conflictingVersion, String conflictingOperation) {
    super(message, httpStatus, code, detail);
    this.conflictingVersion = conflictingVersion;
    this.conflictingOperation = conflictingOperation == null ? "" : conflictingOperation;
  }

  /** The committed version the transaction conflicts with, when the coordinator named it. */
  public OptionalLong conflictingVersion() {
    return conflictingVersion;
  }

  /** The operation of that version (e.g. {@code Delete}), empty when not named. */
  public String conflictingOperation() {
    return conflictingOperation;
  }
}
