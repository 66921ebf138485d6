package dev.lancecommit.coordinator.http;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * An error answer: HTTP status, spec error code, a short {@code error} and a longer {@code detail}. Handlers throw
 * it for request-level problems; {@link ErrorMapper} turns every other exception into one. Some answers carry more
 * members than the spec's four ({@link #fields()}, for example a conflict's version): clients that know them read
 * them instead of parsing text, and the spec's generated clients ignore members they do not know.
 */
public class ApiException extends RuntimeException {
  /** The spec's members of an error body, which {@link #fields()} never holds. */
  public static final Set<String> SPEC_MEMBERS = Set.of("error", "code", "type", "detail", "instance");

  private final int httpStatus;
  private final int code;
  private final String error;
  private final String detail;
  private final Map<String, Object> fields;

  public ApiException(int httpStatus, int code, String error, String detail) {
    this(httpStatus, code, error, detail, Map.of());
  }

  private ApiException(int httpStatus, int code, String error, String detail, Map<String, Object> fields) {
    super(error);
    this.httpStatus = httpStatus;
    this.code = code;
    this.error = error;
    this.detail = detail == null ? error : detail;
    this.fields = fields;
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

  /** Members of the error body beyond the spec's, in order; JSON scalars only. */
  public Map<String, Object> fields() {
    return fields;
  }

  /**
   * This answer with {@code more} added to its {@link #fields()} (a later value replaces an earlier one).
   *
   * @throws IllegalArgumentException when {@code more} names one of the spec's members
   */
  public ApiException withFields(Map<String, ?> more) {
    Map<String, Object> merged = new LinkedHashMap<>(fields);
    more.forEach((name, value) -> {
      if (SPEC_MEMBERS.contains(name)) {
        throw new IllegalArgumentException("'" + name + "' is a member of the spec's error model");
      }
      if (value != null) {
        merged.put(name, value);
      }
    });
    return new ApiException(httpStatus, code, error, detail, Collections.unmodifiableMap(merged));
  }
}
