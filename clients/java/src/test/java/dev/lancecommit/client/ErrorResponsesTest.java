package dev.lancecommit.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.client.ErrorResponses.ErrorBody;
import org.junit.jupiter.api.Test;

class ErrorResponsesTest {

  private static RequestFailedException failure(int status, int code, String error, String detail) {
    String body = "{\"error\":\"" + error + "\",\"code\":" + code + ",\"detail\":\"" + detail + "\",\"instance\":\"x\"}";
    return ErrorResponses.failure("CommitTable t", status, ErrorBody.parse(body));
  }

  @Test
  void everyCodeHasItsException() {
    assertThat(failure(400, 13, "bad", "")).isExactlyInstanceOf(InvalidInputException.class);
    assertThat(failure(400, 20, "schema", "")).isExactlyInstanceOf(SchemaContractException.class);
    assertThat(failure(400, 0, "DataOverlay", "")).isExactlyInstanceOf(UnsupportedOperationTypeException.class);
    assertThat(failure(404, 0, "No route", "")).isExactlyInstanceOf(RequestFailedException.class);
    assertThat(failure(401, 16, "auth", "")).isExactlyInstanceOf(UnauthenticatedException.class);
    assertThat(failure(403, 15, "denied", "")).isExactlyInstanceOf(PermissionDeniedException.class);
    assertThat(failure(404, 1, "ns", "")).isExactlyInstanceOf(NamespaceNotFoundException.class);
    assertThat(failure(404, 4, "table", "")).isExactlyInstanceOf(TableNotFoundException.class);
    assertThat(failure(409, 2, "ns exists", "")).isExactlyInstanceOf(NamespaceAlreadyExistsException.class);
    assertThat(failure(409, 5, "table exists", "")).isExactlyInstanceOf(TableAlreadyExistsException.class);
    assertThat(failure(429, 21, "throttled", "")).isExactlyInstanceOf(ThrottledException.class);
    assertThat(failure(503, 17, "down", "")).isExactlyInstanceOf(ServiceUnavailableException.class);
    assertThat(failure(409, 3, "not empty", "").code()).isEqualTo(3);
  }

  @Test
  void conflictsNameTheCoordinatorsVersionAndOperation() {
    RequestFailedException retryable = failure(409, 14, "Retryable commit conflict with version 7 (Delete)",
        "preempted; conflicting version 7, operation Delete, rule du; rebuild the transaction");
    assertThat(retryable).isInstanceOfSatisfying(RetryableConflictException.class, e -> {
      assertThat(e.conflictingVersion()).hasValue(7);
      assertThat(e.conflictingOperation()).isEqualTo("Delete");
      assertThat(e.getMessage()).contains("HTTP 409 (code 14)").contains("version 7");
    });
    RequestFailedException fromDetail = failure(409, 19, "Incompatible", "x; conflicting version 12, operation Overwrite");
    assertThat(fromDetail).isInstanceOfSatisfying(IncompatibleConflictException.class, e -> {
      assertThat(e.conflictingVersion()).hasValue(12);
      assertThat(e.conflictingOperation()).isEqualTo("Overwrite");
    });
    assertThat(failure(409, 14, "Concurrent catalog update", "")).isInstanceOfSatisfying(
        RetryableConflictException.class, e -> assertThat(e.conflictingVersion()).isEmpty());
  }

  @Test
  void aConflictsOwnMembersWinOverItsText() {
    String body = "{\"error\":\"Retryable commit conflict\",\"code\":14,\"detail\":\"conflicting version 3,"
        + " operation Append\",\"instance\":\"x\",\"conflicting_version\":41,"
        + "\"conflicting_operation\":\"Rewrite\",\"conflict_rule\":\"r\"}";
    RequestFailedException e = ErrorResponses.failure("CommitTable t", 409, ErrorBody.parse(body));
    assertThat(e).isInstanceOfSatisfying(RetryableConflictException.class, conflict -> {
      assertThat(conflict.conflictingVersion()).hasValue(41);
      assertThat(conflict.conflictingOperation()).isEqualTo("Rewrite");
    });
    String wrongTypes = "{\"error\":\"Incompatible commit conflict with version 5 (Delete)\",\"code\":19,"
        + "\"conflicting_version\":\"soon\",\"conflicting_operation\":7}";
    assertThat(ErrorResponses.failure("CommitTable t", 409, ErrorBody.parse(wrongTypes)))
        .isInstanceOfSatisfying(IncompatibleConflictException.class, conflict -> {
          assertThat(conflict.conflictingVersion()).hasValue(5);
          assertThat(conflict.conflictingOperation()).isEqualTo("Delete");
        });
  }

  @Test
  void aBodyThatIsNotTheErrorModelIsKeptAsTheDetail() {
    RequestFailedException e = ErrorResponses.failure("DescribeTable t", 502, ErrorBody.parse("<html>bad gateway"));
    assertThat(e).isExactlyInstanceOf(ServiceUnavailableException.class);
    assertThat(e.code()).isEqualTo(-1);
    assertThat(e.detail()).isEqualTo("<html>bad gateway");
  }
}
