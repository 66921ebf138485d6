package dev.lancecommit.coordinator.http;

/** The Lance namespace spec's error codes ({@code ErrorResponse.code}) this coordinator answers with. */
public enum ErrorCode {
  UNSUPPORTED(0),
  NAMESPACE_NOT_FOUND(1),
  NAMESPACE_ALREADY_EXISTS(2),
  NAMESPACE_NOT_EMPTY(3),
  TABLE_NOT_FOUND(4),
  TABLE_ALREADY_EXISTS(5),
  TABLE_TAG_NOT_FOUND(8),
  TABLE_TAG_ALREADY_EXISTS(9),
  TABLE_VERSION_NOT_FOUND(11),
  TABLE_COLUMN_NOT_FOUND(12),
  INVALID_INPUT(13),
  CONCURRENT_MODIFICATION(14),
  PERMISSION_DENIED(15),
  UNAUTHENTICATED(16),
  SERVICE_UNAVAILABLE(17),
  INTERNAL(18),
  INVALID_TABLE_STATE(19),
  TABLE_SCHEMA_VALIDATION_ERROR(20),
  THROTTLING(21),
  /** In spec.yaml's ErrorResponse.code list, not yet in errors.md. */
  TABLE_BRANCH_NOT_FOUND(22),
  /** In spec.yaml's ErrorResponse.code list, not yet in errors.md. */
  TABLE_BRANCH_ALREADY_EXISTS(23);

  private final int code;

  ErrorCode(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }
}
