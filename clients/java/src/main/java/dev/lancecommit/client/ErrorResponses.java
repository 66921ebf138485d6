package dev.lancecommit.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Turns a refusal ({@code {"error", "code", "detail", "instance"}}) into the exception of its code. */
final class ErrorResponses {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** "Retryable commit conflict with version 7 (Delete)", an older coordinator's {@code error} of a 409. */
  private static final Pattern CONFLICT = Pattern.compile("with version (\\d+) \\(([^)]*)\\)");
  /** "...; conflicting version 7, operation Delete, ...", its {@code detail}. */
  private static final Pattern CONFLICT_DETAIL = Pattern.compile("conflicting version (\\d+), operation (\\w+)");

  private ErrorResponses() {}

  /**
   * A parsed error body; fields are empty / -1 when the body was not the spec's error model. A conflict's
   * {@code conflicting_version} and {@code conflicting_operation} are -1 / "" when the body has none (a coordinator
   * older than those members names them only in its text).
   */
  record ErrorBody(String error, int code, String detail, long conflictingVersion, String conflictingOperation) {
    ErrorBody(String error, int code, String detail) {
      this(error, code, detail, -1, "");
    }

    static ErrorBody parse(String body) {
      if (body == null || body.isBlank()) {
        return new ErrorBody("", -1, "");
      }
      try {
        JsonNode node = JSON.readTree(body);
        if (node != null && node.isObject()) {
          JsonNode version = node.path("conflicting_version");
          JsonNode operation = node.path("conflicting_operation");
          return new ErrorBody(node.path("error").asText(""), node.path("code").asInt(-1),
              node.path("detail").asText(""), version.canConvertToLong() ? version.asLong() : -1,
              operation.isTextual() ? operation.asText() : "");
        }
      } catch (IOException e) {
        // not JSON: keep the raw text as the detail
      }
      return new ErrorBody("", -1, body.length() > 500 ? body.substring(0, 500) + "..." : body);
    }

    String message(String call, int status) {
      String what = error.isEmpty() ? detail : error;
      return call + " failed: HTTP " + status + (code >= 0 ? " (code " + code + ")" : "")
          + (what.isEmpty() ? "" : ": " + what);
    }
  }

  /** The exception for a 4xx answer (or a 5xx of a call that changes nothing). */
  static RequestFailedException failure(String call, int status, ErrorBody body) {
    String message = body.message(call, status);
    int code = body.code();
    String detail = body.detail();
    return switch (code) {
      case 13 -> new InvalidInputException(message, status, code, detail);
      case 20 -> new SchemaContractException(message, status, code, detail);
      case 0 -> status == 400
          ? new UnsupportedOperationTypeException(message, status, code, detail)
          : new RequestFailedException(message, status, code, detail);
      case 16 -> new UnauthenticatedException(message, status, code, detail);
      case 15 -> new PermissionDeniedException(message, status, code, detail);
      case 1 -> new NamespaceNotFoundException(message, status, code, detail);
      case 4 -> new TableNotFoundException(message, status, code, detail);
      case 2 -> new NamespaceAlreadyExistsException(message, status, code, detail);
      case 5 -> new TableAlreadyExistsException(message, status, code, detail);
      case 14 -> new RetryableConflictException(message, status, code, detail, version(body), operation(body));
      case 19 -> new IncompatibleConflictException(message, status, code, detail, version(body), operation(body));
      case 21 -> new ThrottledException(message, status, code, detail);
      case 17 -> new ServiceUnavailableException(message, status, code, detail);
      default -> status == 429 ? new ThrottledException(message, status, code, detail)
          : status == 401 ? new UnauthenticatedException(message, status, code, detail)
          : status == 403 ? new PermissionDeniedException(message, status, code, detail)
          : status >= 500 ? new ServiceUnavailableException(message, status, code, detail)
          : new RequestFailedException(message, status, code, detail);
    };
  }

  private static OptionalLong version(ErrorBody body) {
    if (body.conflictingVersion() >= 0) {
      return OptionalLong.of(body.conflictingVersion());
    }
    Matcher m = conflict(body);
    return m == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(m.group(1)));
  }

  private static String operation(ErrorBody body) {
    if (!body.conflictingOperation().isEmpty()) {
      return body.conflictingOperation();
    }
    Matcher m = conflict(body);
    return m == null ? "" : m.group(2);
  }

  private static Matcher conflict(ErrorBody body) {
    Matcher m = CONFLICT.matcher(body.error());
    if (m.find()) {
      return m;
    }
    m = CONFLICT_DETAIL.matcher(body.detail());
    return m.find() ? m : null;
  }
}
