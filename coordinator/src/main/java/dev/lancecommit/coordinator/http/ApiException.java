package dev.lancecommit.coordinator.http;

/**
 * An error answer: HTTP status, spec error code, a short {@code error} and a longer {@code detail}. Handlers throw
 * it for request-level problems; {@link ErrorMapper} turns every other exception into one.
 */
public class ApiException extends RuntimeException {
  private final int httpStatus;
  private final int code;
  private final String error;
  private final String detail;

  public ApiException(int httpStatus, int code, String error, String detail) {
    super(error);
    this.httpStatus = httpStatus;
    this.code = code;
    this.error = error;
    this.detail = detail == null ? error : detail;
  }

  public ApiException(int httpStatus, ErrorCode code, String error, String detail) {
    this(httpStatus, code.code(), error, detail);
  }

  public static ApiException invalidInput(String error) {
    return new ApiException(400, ErrorCode.INVALID_INPUT, error, error);
  }

  public static ApiException invalidInput(String error, String detail) {
    return new ApiException(400, ErrorCode.INVALID_INPUT, error, detail);
  }

  /** A spec operation this coordinator does not implement (HTTP 501, code 0). */
  public static ApiException unsupportedOperation(String operationId) {
    return new ApiException(
        501, ErrorCode.UNSUPPORTED, "Operation " + operationId + " is not supported",
        "This commit coordinator implements the namespace operations (Create, Describe, Exists, List, Drop), "
            + "DeclareTable, RegisterTable, DescribeTable, TableExists, ListTables, ListAllTables, DeregisterTable, "
            + "DropTable, RenameTable, RestoreTable, GetTableStats, ListTableVersions, DescribeTableVersion, "
            + "CreateTableVersion, the tag and branch operations and CommitTable; " + operationId
            + " is not available");
  }

  /** A request option this coordinator does not implement on an otherwise supported operation. */
  public static ApiException unsupportedOption(String operationId, String option) {
    return new ApiException(
        501, ErrorCode.UNSUPPORTED, operationId + " does not support '" + option + "'",
        "This commit coordinator does not implement '" + option + "' for " + operationId);
  }

  public static ApiException routeNotFound(String method, String path) {
    return new ApiException(404, ErrorCode.UNSUPPORTED, "No route for " + method + " " + path,
        "The path is not part of the Lance namespace REST API served here");
  }

  public static ApiException methodNotAllowed(String method, String path) {
    return new ApiException(405, ErrorCode.UNSUPPORTED, "Method " + method + " not allowed on " + path,
        "The Lance namespace REST API uses another HTTP method for this path");
  }

  public static ApiException bodyTooLarge(long limit) {
    return new ApiException(413, ErrorCode.INVALID_INPUT, "Request body too large",
        "The request body exceeds the limit of " + limit + " bytes");
  }

  public static ApiException internal(String detail) {
    return new ApiException(500, ErrorCode.INTERNAL, "Internal error", detail);
  }

  public int httpStatus() {
    return httpStatus;
  }

  public int code() {
    return code;
  }

  public String error() {
    return error;
  }

  public String detail() {
    return detail;
  }
}
