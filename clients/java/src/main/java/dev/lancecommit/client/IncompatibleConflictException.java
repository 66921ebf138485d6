package dev.lancecommit.client;

import java.util.OptionalLong;

/**
 * 409/19: the transaction can never apply on top of what was committed since its read version (e.g. an Append after
 * an Overwrite), or the table carries feature flags the coordinator does not understand. Retrying cannot help.
 */
public class IncompatibleConflictException extends CommitConflictException {
  public IncompatibleConflictException(String message, int httpStatus, int code, String detail,
      OptionalLong conflictingVersion, String conflictingOperation) {
    super(message, httpStatus, code, detail, conflictingVersion, conflictingOperation);
  }
}
