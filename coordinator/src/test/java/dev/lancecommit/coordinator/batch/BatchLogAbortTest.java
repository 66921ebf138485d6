package dev.lancecommit.coordinator.batch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.coordinator.storage.LocalObjectStore;
import dev.lancecommit.coordinator.storage.StorageLocation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fence between a batch's record and an owner's abort (cluster mode, a lane hold whose lease ran out): both are
 * put-if-absent at the same key, so exactly one of them decides the batch, on a real local store.
 */
class BatchLogAbortTest {
  @TempDir Path dir;

  private BatchLog log() {
    return new BatchLog(new StorageLocation(new LocalObjectStore(dir), ""));
  }

  private static BatchRecord record(String batchId) {
    return new BatchRecord(BatchRecord.FORMAT, batchId, Instant.now().toString(), "BatchCreateTableVersions", "alice",
        List.of(new BatchRecord.Member(0, List.of("ns", "a"), UUID.randomUUID().toString(), "/w/ns/a.lance", 2,
            UUID.randomUUID().toString(), new byte[] {1, 2, 3}, false)));
  }

  @Test
  void anAbortWrittenFirstFencesTheRecordAndLeavesNothingToComplete() throws Exception {
    BatchLog log = log();
    String batchId = UUID.randomUUID().toString();
    assertThat(log.abort(batchId, Instant.now(), "http://owner:1")).isEmpty();
    assertThat(log.write(record(batchId))).isEqualTo(BatchLog.Written.ABORTED);
    assertThat(log.settle(batchId)).isEqualTo(BatchLog.Written.ABORTED);
    assertThat(log.read(batchId).orElseThrow().aborted()).isTrue();
    assertThat(log.unfinished()).isEmpty();
    assertThat(Files.readString(dir.resolve("_catalog/batches/" + batchId + ".json"))).contains("http://owner:1");
    assertThat(dir.resolve("_catalog/batches/" + batchId + ".done")).exists();
    // a second abort (another member's owner) agrees
    assertThat(log.abort(batchId, Instant.now(), "http://owner:2")).isEmpty();
  }

  @Test
  void aRecordWrittenFirstWinsOverTheAbortWhichThenReturnsItForRollForward() {
    BatchLog log = log();
    String batchId = UUID.randomUUID().toString();
    BatchRecord record = record(batchId);
    assertThat(log.write(record)).isEqualTo(BatchLog.Written.WRITTEN);
    BatchRecord found = log.abort(batchId, Instant.now(), "http://owner:1").orElseThrow();
    assertThat(found.aborted()).isFalse();
    assertThat(found.members()).hasSize(1);
    assertThat(found.members().get(0).transaction()).containsExactly(1, 2, 3);
    assertThat(log.unfinished()).extracting(BatchRecord::batchId).containsExactly(batchId);
    // the coordinator writing its record again (an unknown first outcome) still finds it its own
    assertThat(log.write(record)).isEqualTo(BatchLog.Written.WRITTEN);
  }

  @Test
  void aRecordWithoutAbortEncodesAsBefore() {
    String json = new String(record(UUID.randomUUID().toString()).encode(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(json).doesNotContain("aborted_by");
  }
}
