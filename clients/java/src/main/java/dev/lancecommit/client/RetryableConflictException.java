package dev.lancecommit.client;

import java.util.OptionalLong;

/**
 * 409/14: the transaction conflicts with {@link #conflictingVersion()} but would be valid if rebuilt on it (re-read,
 * redo the work, commit with that read version). Appends are rebuilt by the client itself; for other operations use
 * {@link CommitClient#commit(TableId, long, TransactionRebuilder)} to have the client call back.
 */
public class RetryableConflictException extends CommitConflictException {
  public RetryableConflictException(String message, int httpStatus, int code, String detail,
      OptionalLong conflictingVersion, String conflictingOperation) {
    super(message, httpStatus, code, detail, conflictingVersion, conflictingOperation);
  }
}
