package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.coordinator.commit.CommitRequest;
import dev.lancecommit.coordinator.commit.CommitResult;
import dev.lancecommit.coordinator.table.CommitStateUnknownException;
import dev.lancecommit.coordinator.commit.CommitThrottledException;
import dev.lancecommit.coordinator.commit.InvalidCommitRequestException;
import dev.lancecommit.coordinator.commit.VersionConflictException;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.coordinator.namespace.TableEntry;
import dev.lancecommit.coordinator.storage.StoreOutcomeUnknownException;
import dev.lancecommit.coordinator.storage.StoreUnavailableException;
import dev.lancecommit.rules.InvalidTransactionException;
import dev.lancecommit.rules.SchemaContractException;
import dev.lancecommit.format.UnsupportedFeatureException;
import dev.lancecommit.rules.UnsupportedOperationTypeException;
import dev.lancecommit.rules.conflict.CommitConflictException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class CommitRouteTest extends RestServerFixture {
  private static final byte[] TXN = {0x08, 0x05, 0x12, 0x24, 0x00, (byte) 0xff, 0x7f};
  private static final byte[] ROWS = {0x3a, 0x30, 0x00, 0x00, 0x01};
  private static final String COMMIT = "/v1/table/ns$t/commit";

  private TableEntry table;

  @BeforeEach
  void table() {
    post("/v1/namespace/ns/create", "{}");
    post("/v1/table/ns$t/declare", "{}");
    table = catalog.loadTable(List.of("ns", "t")).orElseThrow();
  }

  private CommitResult result() {
    return new CommitResult(6, 4, "8d5c2e6e-0bd4-4c79-9d32-4a0bb7c3f9a1",
        table.location() + "/_versions/18446744073709551609.manifest", "Append", 1, List.of(12L, 13L));
  }

  @Test
  void jsonBodyReachesTheServiceAndTheResultIsReturned() {
    commits.answerWith(result());
    Reply reply = post(COMMIT, new JsonObject()
        .put("transaction", Base64.getEncoder().encodeToString(TXN))
        .put("affected_rows", Base64.getEncoder().encodeToString(ROWS))
        .put("rebase", false));

    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.json()).isEqualTo(new JsonObject()
        .put("version", 6L)
        .put("read_version", 4L)
        .put("transaction_uuid", "8d5c2e6e-0bd4-4c79-9d32-4a0bb7c3f9a1")
        .put("manifest_path", table.location() + "/_versions/18446744073709551609.manifest")
        .put("operation", "Append")
        .put("group_size", 1)
        .put("new_fragment_ids", new io.vertx.core.json.JsonArray().add(12L).add(13L)));

    assertThat(commits.calls()).hasSize(1);
    RecordingCommitService.Call call = commits.calls().get(0);
    assertThat(call.table()).isEqualTo(new TableRef(List.of("ns", "t"), table.location(), table.tableUuid()));
    CommitRequest request = call.request();
    assertThat(request.transaction()).containsExactly(TXN);
    assertThat(request.affectedRows()).hasValueSatisfying(rows -> assertThat(rows).containsExactly(ROWS));
    assertThat(request.rebase()).isFalse();
    assertThat(request.actor()).isEqualTo("anonymous");
  }

  @Test
  void jsonBodyDefaults() {
    commits.answerWith(result());
    Reply reply = post(COMMIT + "?delimiter=$", "{\"id\":[\"ns\",\"t\"],\"transaction\":\""
        + Base64.getEncoder().encodeToString(TXN) + "\"}");
    assertThat(reply.status()).isEqualTo(200);
    CommitRequest request = commits.calls().get(0).request();
    assertThat(request.affectedRows()).isEmpty();
    assertThat(request.rebase()).isTrue();
  }

  @Test
  void protobufBodyIsPassedThroughByteForByte() {
    commits.answerWith(result());
    Reply reply = postBytes(COMMIT, "application/x-protobuf", TXN);
    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.json().getLong("version")).isEqualTo(6L);
    CommitRequest request = commits.calls().get(0).request();
    assertThat(request.transaction()).containsExactly(TXN);
    assertThat(request.affectedRows()).isEmpty();
    assertThat(request.rebase()).isTrue();

    assertThat(postBytes(COMMIT + "?rebase=false", "application/x-protobuf; charset=binary", TXN).status())
        .isEqualTo(200);
    assertThat(commits.calls().get(1).request().rebase()).isFalse();
  }

  @Test
  void unknownTableIsRefusedBeforeTheServiceIsCalled() {
    commits.answerWith(result());
    String txn = new JsonObject().put("transaction", Base64.getEncoder().encodeToString(TXN)).encode();
    post("/v1/table/ns$ghost/commit", txn).error(404, 4);
    post("/v1/table/ghost$t/commit", txn).error(404, 4);
    postBytes("/v1/table/ns$ghost/commit", "application/x-protobuf", TXN).error(404, 4);
    assertThat(commits.calls()).isEmpty();
  }

  @Test
  void malformedCommitsAreInvalidInputAndNeverReachTheService() {
    Map<String, String> before = snapshot();
    String valid = Base64.getEncoder().encodeToString(TXN);
    post(COMMIT, "{\"transaction\":\"not base64!!\"}").error(400, 13);
    post(COMMIT, "{\"transaction\":\"" + valid + "\",\"affected_rows\":\"%%%\"}").error(400, 13);
    post(COMMIT, "{\"transaction\":\"\"}").error(400, 13);
    post(COMMIT, "{\"transaction\":42}").error(400, 13);
    post(COMMIT, "{}").error(400, 13);
    post(COMMIT, "{\"transaction\":\"" + valid + "\",\"rebase\":\"no\"}").error(400, 13);
    post(COMMIT, "{\"transaction\":\"" + valid + "\",\"id\":[\"ns\",\"other\"]}").error(400, 13);
    post(COMMIT, "{\"transaction\":").error(400, 13);
    postBytes(COMMIT, "application/json", new byte[0]).error(400, 13);
    postBytes(COMMIT, "application/x-protobuf", new byte[0]).error(400, 13);
    postBytes(COMMIT, "text/plain", TXN).error(400, 13);
    postBytes(COMMIT, null, TXN).error(400, 13);
    postBytes(COMMIT + "?rebase=sometimes", "application/x-protobuf", TXN).error(400, 13);
    post("/v1/table/$/commit", "{\"transaction\":\"" + valid + "\"}").error(400, 13);
    post("/v1/table/ns$_t/commit", "{\"transaction\":\"" + valid + "\"}").error(400, 13);
    assertThat(commits.calls()).isEmpty();
    assertThat(snapshot()).isEqualTo(before);
  }

  static Stream<Arguments> failures() {
    return Stream.of(
        Arguments.of(new InvalidTransactionException("read_version 9 is ahead of the table (5)"), 400, 13),
        Arguments.of(new UnsupportedOperationTypeException("Restore"), 400, 0),
        Arguments.of(new SchemaContractException("a.b", "field a.b changed type"), 400, 20),
        Arguments.of(new CommitConflictException(true, 7, "Delete", "delete-vs-delete", "rows deleted twice"), 409,
            14),
        Arguments.of(new CommitConflictException(false, 8, "Overwrite", "append-after-overwrite", "overwritten"),
            409, 19),
        Arguments.of(new UnsupportedFeatureException("unknown writer flag 64"), 409, 19),
        Arguments.of(new CommitThrottledException("queue full (64)"), 429, 21),
        Arguments.of(new StoreUnavailableException("connection refused", new IOException("refused")), 503, 17),
        Arguments.of(new StoreOutcomeUnknownException("timeout", new IOException("timeout")), 503, 17),
        Arguments.of(new CommitStateUnknownException(6, "read-back failed", new IOException("x")), 503, 17),
        Arguments.of(new InvalidCommitRequestException("No staged manifest", "stage it first"), 400, 13),
        Arguments.of(new VersionConflictException("Version 3 cannot be created", "the next is 2"), 409, 14),
        Arguments.of(new IllegalStateException("bug"), 500, 18),
        Arguments.of(new CompletionException(new CommitThrottledException("wrapped")), 429, 21),
        Arguments.of(new ExecutionException(new CompletionException(new UnsupportedFeatureException("deep"))), 409,
            19));
  }

  @ParameterizedTest
  @MethodSource("failures")
  void serviceFailuresMapToTheErrorModel(Throwable failure, int status, int code) {
    commits.failWith(failure);
    Reply reply = postBytes(COMMIT, "application/x-protobuf", TXN);
    JsonObject error = reply.error(status, code);
    assertThat(error.getString("instance")).isEqualTo("/v1/table/ns$t/commit");
    if (status == 429) {
      assertThat(reply.headers()).containsEntry("retry-after", "1");
    } else {
      assertThat(reply.headers()).doesNotContainKey("retry-after");
    }
    assertThat(commits.calls()).hasSize(1);
  }

  @ParameterizedTest
  @MethodSource("failures")
  void synchronousServiceFailuresMapTheSameWay(Throwable failure, int status, int code) {
    RuntimeException thrown = failure instanceof RuntimeException r ? r : new CompletionException(failure);
    commits.throwSynchronously(thrown);
    postBytes(COMMIT, "application/x-protobuf", TXN).error(status, code);
  }

  @Test
  void conflictDetailNamesVersionOperationAndRule() {
    commits.failWith(new CommitConflictException(true, 7, "Delete", "delete-vs-delete", "rows deleted twice"));
    JsonObject retryable = postBytes(COMMIT, "application/x-protobuf", TXN).error(409, 14);
    assertThat(retryable.getString("detail"))
        .contains("rows deleted twice", "version 7", "operation Delete", "rule delete-vs-delete");
    assertThat(retryable.getString("error")).contains("7", "Delete");

    commits.failWith(new CommitConflictException(false, 8, "Overwrite", "append-after-overwrite", "overwritten"));
    JsonObject incompatible = postBytes(COMMIT, "application/x-protobuf", TXN).error(409, 19);
    assertThat(incompatible.getString("detail"))
        .contains("version 8", "operation Overwrite", "rule append-after-overwrite");
  }

  @Test
  void conflictNamesVersionOperationAndRuleInMembersOfTheirOwn() {
    commits.failWith(new CommitConflictException(true, 7, "Delete", "delete-vs-delete", "rows deleted twice"));
    JsonObject retryable = postBytes(COMMIT, "application/x-protobuf", TXN).error(409, 14);
    assertThat(retryable.getLong("conflicting_version")).isEqualTo(7L);
    assertThat(retryable.getString("conflicting_operation")).isEqualTo("Delete");
    assertThat(retryable.getString("conflict_rule")).isEqualTo("delete-vs-delete");
    assertThat(retryable.getString("instance")).isEqualTo(COMMIT);

    commits.failWith(new CommitStateUnknownException(6, "read-back failed", new IOException("x")));
    assertThat(postBytes(COMMIT, "application/x-protobuf", TXN).error(503, 17).fieldNames())
        .as("other errors keep the spec's four members").containsExactlyInAnyOrder("error", "code", "detail",
            "instance");
  }

  @Test
  void stateUnknownDetailTellsTheClientToResubmit() {
    commits.failWith(new CommitStateUnknownException(6, "read-back failed", new IOException("x")));
    JsonObject error = postBytes(COMMIT, "application/x-protobuf", TXN).error(503, 17);
    assertThat(error.getString("detail")).contains("version 6", "same transaction");
  }
}
