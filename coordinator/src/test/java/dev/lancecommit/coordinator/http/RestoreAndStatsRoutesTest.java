package dev.lancecommit.coordinator.http;

import static dev.lancecommit.coordinator.http.TagRoutesTest.range;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.coordinator.commit.CommitEventSink;
import dev.lancecommit.coordinator.commit.CommitRequest;
import dev.lancecommit.coordinator.commit.CommitResult;
import dev.lancecommit.coordinator.commit.CommitService;
import dev.lancecommit.coordinator.commit.LaneCommitService;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.testing.lance.LanceTables;
import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.testing.lance.TestIndexes;
import io.vertx.core.json.JsonObject;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.lance.Dataset;
import org.lance.Ref;

/** RestoreTable (a Restore through the lane) and GetTableStats (from the manifest) over HTTP. */
class RestoreAndStatsRoutesTest extends LaneServerFixture {
  private final List<CommitEvent> events = new CopyOnWriteArrayList<>();
  /** Runs once, just before the next commit reaches the lanes: a writer that gets in between. */
  private final AtomicReference<Runnable> beforeNextCommit = new AtomicReference<>();
  private Path root;
  private LanceTables lance;

  @Override
  CommitEventSink events() {
    return events::add;
  }

  @Override
  CommitService commitService(LaneCommitService lanes) {
    return new CommitService() {
      @Override
      public CompletableFuture<CommitResult> commit(TableRef ref, CommitRequest request) {
        Runnable race = beforeNextCommit.getAndSet(null);
        if (race != null) {
          race.run();
        }
        return lanes.commit(ref, request);
      }
    };
  }

  @BeforeEach
  void tableWithThreeVersions() {
    post("/v1/namespace/ns/create", "{}").ok();
    root = Path.of(post("/v1/table/ns$t/declare", "{}").ok().getString("location"));
    lance = LanceTables.local(root);
    commit(TransactionFactory.create(LanceProtos.schema(LanceTables.ROW_SCHEMA),
        LanceProtos.fragments(lance.writeRows(0, 5))));
    commit(TransactionFactory.append(1, LanceProtos.fragments(lance.writeRows(5, 5))));
    commit(TransactionFactory.append(2, LanceProtos.fragments(lance.writeRows(10, 5))));
  }

  @AfterEach
  void closeLance() {
    lance.close();
  }

  @Test
  void restoreMakesTheOldContentTheNewLatestVersionThroughTheLane() {
    JsonObject restored = post("/v1/table/ns$t/restore", new JsonObject().put("version", 1)).ok();
    assertThat(restored.fieldNames()).containsExactly("transaction_id");
    assertThat(lance.latestVersion()).isEqualTo(4);
    assertThat(lance.readIds(4)).containsExactlyInAnyOrderElementsOf(range(0, 5));
    assertThat(lance.readIds(3)).hasSize(15); // history kept

    CommitEvent event = events.get(events.size() - 1);
    assertThat(event.version()).isEqualTo(4);
    assertThat(event.operation()).isEqualTo("Restore");
    assertThat(event.transactionUuid()).isEqualTo(restored.getString("transaction_id"));
    assertThat(event.rowsRemoved()).isEqualTo(10);

    // writers go on from the restored version; fragment ids never repeat
    commit(TransactionFactory.append(4, LanceProtos.fragments(lance.writeRows(20, 5))));
    assertThat(lance.readIds(5)).containsExactlyInAnyOrderElementsOf(
        Stream.concat(range(0, 5).stream(), range(20, 25).stream()).toList());
  }

  @Test
  void restoreOnABranchLeavesMain() {
    post("/v1/table/ns$t/branches/create", new JsonObject().put("name", "dev")).ok();
    try (LanceTables onBranch = LanceTables.local(root.resolve("tree/dev"))) {
      assertThat(postBytes("/v1/table/ns$t/commit?branch=dev",
          TransactionFactory.append(3, LanceProtos.fragments(onBranch.writeRows(100, 5))).toByteArray()).ok()
          .getLong("version")).isEqualTo(4L);
    }
    post("/v1/table/ns$t/restore", new JsonObject().put("version", 3).put("branch", "dev")).ok();
    try (Dataset ds = lance.open(); Dataset dev = ds.checkout(Ref.ofBranch("dev"))) {
      assertThat(dev.version()).isEqualTo(5);
      assertThat(LanceTables.readColumn(dev, "id")).hasSize(15);
      assertThat(ds.version()).isEqualTo(3);
    }
    post("/v1/table/ns$t/restore", new JsonObject().put("version", 1).put("branch", "dev")).error(404, 11);
  }

  @Test
  void restoreRefusals() {
    post("/v1/table/ns$t/restore", new JsonObject().put("version", 9)).error(404, 11);
    post("/v1/table/ns$t/restore", new JsonObject().put("version", 0)).error(404, 11);
    post("/v1/table/ns$t/restore", new JsonObject()).error(400, 13);
    post("/v1/table/ns$t/restore", new JsonObject().put("version", -1)).error(400, 13);
    post("/v1/table/ns$ghost/restore", new JsonObject().put("version", 1)).error(404, 4);
    assertThat(lance.latestVersion()).isEqualTo(3);

  }

  @Test
  void aCommitSlippingInBeforeTheRestoreStaysInHistoryAsWithLance() {
    // Lance's rules: a Restore is compatible with what was committed since its read version (it makes the old
    // content the latest whatever came in between)
    beforeNextCommit.set(() -> assertThat(postBytes("/v1/table/ns$t/commit",
        TransactionFactory.append(3, LanceProtos.fragments(lance.writeRows(50, 1))).toByteArray()).status())
        .isEqualTo(200));
    post("/v1/table/ns$t/restore", new JsonObject().put("version", 1)).ok();
    assertThat(lance.latestVersion()).isEqualTo(5);
    assertThat(lance.readIds(4)).hasSize(16);
    assertThat(lance.readIds(5)).containsExactlyInAnyOrderElementsOf(range(0, 5));
  }

  @Test
  void statsComeFromTheManifest() throws Exception {
    try (Dataset ds = lance.open()) {
      ds.delete("id < 2"); // stock Lance writes a deletion file: version 4
    }
    IndexMetadata index = TestIndexes.btreeIndex("id_idx", List.of(0), 4, List.of(0, 1, 2));
    // an index that lists no files must have some in its directory (the commit's file checks look)
    ByteBuffer uuid = index.getUuid().getUuid().asReadOnlyByteBuffer();
    Path indexDir = Files.createDirectories(root.resolve("_indices")
        .resolve(new UUID(uuid.getLong(), uuid.getLong()).toString()));
    Files.write(indexDir.resolve("page_data.lance"), new byte[] {1});
    commit(TransactionFactory.createIndex(4, List.of(index), List.of()));
    JsonObject stats = post("/v1/table/ns$t/stats", "{}").ok();
    long dataBytes;
    try (Stream<Path> files = Files.list(root.resolve("data"))) {
      dataBytes = files.mapToLong(p -> p.toFile().length()).sum();
    }
    assertThat(stats).isEqualTo(new JsonObject()
        .put("total_bytes", dataBytes)
        .put("num_rows", 13L)
        .put("num_indices", 1L)
        .put("fragment_stats", new JsonObject()
            .put("num_fragments", 3L)
            .put("num_small_fragments", 3L)
            .put("lengths", new JsonObject().put("min", 3L).put("max", 5L).put("mean", 4L)
                .put("p25", 3L).put("p50", 5L).put("p75", 5L).put("p99", 5L))));
    try (Dataset ds = lance.open()) {
      assertThat(stats.getLong("num_rows")).isEqualTo(ds.countRows());
    }

    post("/v1/table/ns$d/declare", "{}").ok();
    assertThat(post("/v1/table/ns$d/stats", "").ok().getLong("num_rows")).isZero();
    post("/v1/table/ns$ghost/stats", "{}").error(404, 4);
  }

  private void commit(Transaction txn) {
    assertThat(postBytes("/v1/table/ns$t/commit", txn.toByteArray()).status()).isEqualTo(200);
  }
}
