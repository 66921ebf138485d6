package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.coordinator.commit.CommitRequest;
import dev.lancecommit.coordinator.commit.CommitResult;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A commit forwarded to the owner of its table reaches the owner's lane as it was made, and is answered with what
 * the owner's lane answered, field by field.
 */
class InternalLaneResultTest {
  @Test
  void theOwnersAnswerCrossesBetweenInstancesUnchanged() {
    CommitResult grouped = new CommitResult(9, 7, "u-1", "s3://b/t.lance/_versions/9.manifest", "Append", 4,
        List.of(21L, 22L));
    assertThat(InternalLaneRoutes.result(InternalLaneRoutes.result(grouped))).isEqualTo(grouped);
    CommitResult none = new CommitResult(3, 2, "u-2", "s3://b/t.lance/_versions/3.manifest", "Delete");
    assertThat(InternalLaneRoutes.result(InternalLaneRoutes.result(none))).isEqualTo(none);
    CommitResult written = new CommitResult(5, 4, "u-3", "s3://b/t.lance/_versions/5.manifest", "Append", 1,
        List.of(7L),
        Optional.of(new CommitResult.WrittenManifest(1234, Instant.parse("2026-12-04T15:01:02.123456789Z"))));
    assertThat(InternalLaneRoutes.result(InternalLaneRoutes.result(written))).isEqualTo(written);
  }

  @Test
  void whatIsKnownOfTheTransactionFileCrossesToTheOwnerAndAnEarlierBuildsFlagIsRead() {
    for (CommitRequest.TransactionFile file : CommitRequest.TransactionFile.values()) {
      CommitRequest request = new CommitRequest(new byte[] {1, 2}, Optional.empty(), true, "a", false, false, 4,
          file);
      assertThat(InternalLaneRoutes.request(InternalLaneRoutes.request(request)).transactionFile()).isEqualTo(file);
    }
    JsonObject earlier = new JsonObject().put("transaction", "AQI=").put("transaction_file_written", true);
    assertThat(InternalLaneRoutes.request(earlier).transactionFile()).isEqualTo(CommitRequest.TransactionFile.WRITTEN);
    JsonObject later = earlier.copy().put("transaction_file", "SOMETHING_NEW");
    assertThat(InternalLaneRoutes.request(later).transactionFile()).isEqualTo(CommitRequest.TransactionFile.WRITTEN);
    assertThat(InternalLaneRoutes.request(new JsonObject().put("transaction", "AQI=")).transactionFile())
        .isEqualTo(CommitRequest.TransactionFile.NOT_WRITTEN);
  }

  @Test
  void anAnswerFromAnInstanceThatNamesNoFragmentIdsReadsAsNone() {
    JsonObject older = new JsonObject().put("version", 3L).put("read_version", 2L).put("transaction_uuid", "u")
        .put("manifest_path", "p").put("operation", "Append").put("group_size", 2);
    assertThat(InternalLaneRoutes.result(older).newFragmentIds()).isEmpty();
  }
}
