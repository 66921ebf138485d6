package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.coordinator.commit.CheckedCommit;
import dev.lancecommit.coordinator.commit.CommitRequest;
import dev.lancecommit.coordinator.commit.CommitResult;
import dev.lancecommit.coordinator.commit.HeldLane;
import dev.lancecommit.coordinator.commit.LaneCommitService;
import dev.lancecommit.coordinator.commit.TableLanes;
import dev.lancecommit.coordinator.commit.VersionEvents;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.e2e.StagedManifests;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.lance.LanceTables;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.lance.namespace.client.apache.ApiClient;
import org.lance.namespace.client.apache.api.MetadataApi;
import org.lance.namespace.model.BatchCreateTableVersionsRequest;
import org.lance.namespace.model.BatchCreateTableVersionsResponse;
import org.lance.namespace.model.CreateTableVersionEntry;
import org.lance.namespace.model.TableVersion;

/**
 * BatchCreateTableVersions and BatchCommitTables over HTTP against the real lanes: manifests staged as stock Lance
 * stages them, every member checked under its lane before anything is written, readers through the namespace never
 * seeing half a batch, one event per version carrying the batch id. The stock generated client
 * ({@code lance-namespace-apache-client}, shipped with lance-core) sends BatchCreateTableVersions; Lance's own
 * namespace clients do not expose the batch calls, so the rest is raw spec JSON.
 */
class BatchRoutesTest extends LaneServerFixture {
  private final Map<String, LanceTables> tables = new HashMap<>();
  /** When set, the apply of this table's member waits for the latch (a batch paused between two writes). */
  private volatile String pauseBefore;
  private final CountDownLatch paused = new CountDownLatch(1);
  private final CountDownLatch resume = new CountDownLatch(1);

  @Override
  TableLanes tableLanes(LaneCommitService lanes) {
    return table -> lanes.hold(table).thenApply(held -> new HeldLane() {
      @Override
      public TableRef table() {
        return held.table();
      }

      @Override
      public CheckedCommit check(CommitRequest request) {
        return held.check(request);
      }

      @Override
      public CommitResult apply(CheckedCommit checked, String batchId) {
        if (table.id().get(1).equals(pauseBefore)) {
          paused.countDown();
          await(resume);
        }
        return held.apply(checked, batchId);
      }

      @Override
      public void release(boolean handOverEvents) {
        held.release(handOverEvents);
      }
    });
  }

  @BeforeEach
  void twoTablesAtVersionOne() {
    post("/v1/namespace/ns/create", "{}").ok();
    for (String name : List.of("a", "b")) {
      Path root = Path.of(post("/v1/table/ns$" + name + "/declare", "{}").ok().getString("location"));
      LanceTables lance = LanceTables.local(root);
      tables.put(name, lance);
      postBytes("/v1/table/ns$" + name + "/commit", TransactionFactory.create(
          LanceProtos.schema(LanceTables.ROW_SCHEMA), LanceProtos.fragments(lance.writeRows(0, 5))).toByteArray())
          .ok();
    }
    // events are handed over after the answer: the two creates' before the tests count theirs
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> events.size() >= 2);
    events.clear();
  }

  @AfterEach
  void closeTables() {
    resume.countDown();
    tables.values().forEach(LanceTables::close);
  }

  @Test
  void everyMemberLandsWithOneBatchIdAndStockLanceReadsThem() throws Exception {
    Path stagedA = stage("a", 2, 5);
    Path stagedB = stage("b", 2, 5);
    JsonObject reply = post("/v1/table/version/batch-create", new JsonObject().put("entries", new JsonArray()
        .add(entry("a", 2, stagedA)).add(entry("b", 2, stagedB)))).ok();
    String batchId = reply.getString("transaction_id");
    assertThat(batchId).isNotBlank();
    assertThat(reply.getJsonArray("versions")).hasSize(2);
    assertThat(reply.getJsonArray("versions").getJsonObject(1).getLong("version")).isEqualTo(2);
    assertThat(stagedA).doesNotExist();
    assertThat(stagedB).doesNotExist();
    for (String name : List.of("a", "b")) {
      assertThat(tables.get(name).latestVersion()).isEqualTo(2);
      assertThat(tables.get(name).countRows(2)).isEqualTo(10);
    }
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).untilAsserted(() ->
        assertThat(events).extracting(CommitEvent::version).containsExactly(2L, 2L));
    assertThat(events).allSatisfy(e -> assertThat(e.batchId()).isEqualTo(batchId));
    // each member's event names the id its appended fragment got, the newest fragment stock Lance reads
    for (CommitEvent event : events) {
      try (org.lance.Dataset ds = tables.get(event.tableName()).open(2)) {
        long newest = ds.getFragments().stream().mapToLong(org.lance.Fragment::getId).max().orElseThrow();
        assertThat(event.members()).singleElement()
            .satisfies(m -> assertThat(m.newFragmentIds()).containsExactly(newest));
      }
    }
    // each member's transaction names the batch, so an event rebuilt from storage names it too
    for (String name : List.of("a", "b")) {
      try (org.lance.Dataset ds = tables.get(name).open(2)) {
        assertThat(ds.readTransaction().orElseThrow().transactionProperties().orElseThrow())
            .containsEntry(VersionEvents.BATCH_PROPERTY, batchId);
      }
    }
    // the batch's record and its done marker are in the warehouse
    Path batchesDir = Path.of(warehouse(), "_catalog", "batches");
    assertThat(batchesDir.resolve(batchId + ".json")).exists();
    assertThat(batchesDir.resolve(batchId + ".done")).exists();

    // the stock generated client of the same release sends BatchCreateTableVersions
    ApiClient client = new ApiClient();
    client.setBasePath("http://127.0.0.1:" + port);
    Path a3 = stage("a", 3, 10);
    Path b3 = stage("b", 3, 10);
    BatchCreateTableVersionsResponse stock = new MetadataApi(client).batchCreateTableVersions(
        new BatchCreateTableVersionsRequest().entries(List.of(stockEntry("a", 3, a3), stockEntry("b", 3, b3))), null);
    assertThat(stock.getVersions()).extracting(TableVersion::getVersion).containsExactly(3L, 3L);
    assertThat(stock.getTransactionId()).isNotBlank().isNotEqualTo(batchId);

    // BatchCommitTables with create_table_version operations
    Path a4 = stage("a", 4, 15);
    Path b4 = stage("b", 4, 15);
    JsonObject committed = post("/v1/table/batch-commit", new JsonObject().put("operations", new JsonArray()
        .add(new JsonObject().put("create_table_version", entry("b", 4, b4)))
        .add(new JsonObject().put("create_table_version", entry("a", 4, a4))))).ok();
    assertThat(committed.getJsonArray("results")).hasSize(2);
    assertThat(committed.getJsonArray("results").getJsonObject(0).getJsonObject("create_table_version")
        .getJsonObject("version").getLong("version")).isEqualTo(4);
    assertThat(tables.get("a").countRows(4)).isEqualTo(20);
    assertThat(tables.get("b").countRows(4)).isEqualTo(20);
    // stock Lance writes on top of batch versions
    assertThat(tables.get("a").appendWithLance(100, 1)).isEqualTo(5);
  }

  @Test
  void oneFailingMemberAppliesNothingAndIsNamed() {
    Path stagedA = stage("a", 2, 5);
    Path stagedB = stage("b", 2, 5);
    // member 1 asks for a version that is not b's next one
    JsonObject error = post("/v1/table/version/batch-create", new JsonObject().put("entries", new JsonArray()
        .add(entry("a", 2, stagedA)).add(entry("b", 2, stagedB).put("version", 3)))).error(400, 13);
    assertThat(error.getString("error")).contains("Batch member 1").contains("ns$b");
    assertThat(error.getInteger(ErrorMapper.BATCH_MEMBER)).isEqualTo(1);
    // member 1's transaction conflicts with a version committed since it was staged
    postBytes("/v1/table/ns$b/commit", TransactionFactory.overwrite(1, LanceProtos.schema(LanceTables.ROW_SCHEMA),
        LanceProtos.fragments(tables.get("b").writeRows(50, 1))).toByteArray()).ok();
    Path stagedB3 = stage("b", 3, 5, 1);
    error = post("/v1/table/version/batch-create", new JsonObject().put("entries", new JsonArray()
        .add(entry("a", 2, stagedA)).add(entry("b", 3, stagedB3)))).json();
    assertThat(error.getInteger("code")).isIn(14, 19);
    assertThat(error.getString("detail")).contains("Batch member 1").contains("nothing of the batch was applied");
    assertThat(error.getInteger(ErrorMapper.BATCH_MEMBER)).isEqualTo(1);
    assertThat(error.getLong(ErrorMapper.CONFLICTING_VERSION)).as("the member's conflict, named as its own").isEqualTo(2);
    assertThat(error.getString(ErrorMapper.CONFLICTING_OPERATION)).isEqualTo("Overwrite");
    // unknown table, same table twice, an operation kind batch-commit does not take
    post("/v1/table/version/batch-create", new JsonObject().put("entries", new JsonArray()
        .add(entry("a", 2, stagedA)).add(entry("b", 2, stagedB).put("id", List.of("ns", "ghost"))))).error(404, 4);
    post("/v1/table/version/batch-create", new JsonObject().put("entries", new JsonArray()
        .add(entry("a", 2, stagedA)).add(entry("a", 2, stagedA)))).error(400, 13);
    post("/v1/table/batch-commit", new JsonObject().put("operations", new JsonArray()
        .add(new JsonObject().put("declare_table", new JsonObject().put("id", List.of("ns", "c")))))).error(501, 0);
    post("/v1/table/version/batch-create", new JsonObject().put("entries", new JsonArray())).error(400, 13);

    assertThat(tables.get("a").latestVersion()).isEqualTo(1);
    assertThat(stagedA).exists();
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).untilAsserted(() -> // b's own commit only
        assertThat(events).extracting(CommitEvent::version).containsExactly(2L));
  }

  @Test
  void aMemberNamingAMissingFileFailsTheBatchBeforeItIsRecordedAndTheSameBatchLandsOnceTheFileIsThere()
      throws Exception {
    Path stagedA = stage("a", 2, 5);
    Path stagedB = stage("b", 2, 5);
    Transaction memberB = ManifestFile.decode(read(stagedB)).transaction().orElseThrow();
    Path fileB = Path.of(tables.get("b").uri()).resolve("data")
        .resolve(memberB.getAppend().getFragments(0).getFiles(0).getPath());
    byte[] bytes = Files.readAllBytes(fileB);
    Files.delete(fileB);
    JsonObject batch = new JsonObject().put("entries", new JsonArray()
        .add(entry("a", 2, stagedA)).add(entry("b", 2, stagedB)));
    JsonObject error = post("/v1/table/version/batch-create", batch).error(400, 13);
    assertThat(error.getString("detail")).contains("Batch member 1").contains(fileB.getFileName().toString())
        .contains("is not there");
    assertThat(tables.get("a").latestVersion()).isEqualTo(1);
    assertThat(tables.get("b").latestVersion()).isEqualTo(1);
    assertThat(events).isEmpty();

    Files.write(fileB, bytes);
    assertThat(post("/v1/table/version/batch-create", batch).ok().getJsonArray("versions")).hasSize(2);
    assertThat(tables.get("a").latestVersion()).isEqualTo(2);
    assertThat(tables.get("b").latestVersion()).isEqualTo(2);
  }

  @Test
  void namespaceReadersNeverSeeHalfABatch() throws Exception {
    Path stagedA = stage("a", 2, 5);
    Path stagedB = stage("b", 2, 5);
    pauseBefore = "b"; // a is written first (request order), then the batch waits before b
    CompletableFuture<Reply> batch = CompletableFuture.supplyAsync(() -> post("/v1/table/version/batch-create",
        new JsonObject().put("entries", new JsonArray().add(entry("a", 2, stagedA)).add(entry("b", 2, stagedB)))));
    assertThat(paused.await(30, TimeUnit.SECONDS)).isTrue();
    Path manifestA2 = tables.get("a").uri().isEmpty() ? null
        : Path.of(tables.get("a").uri()).resolve(ManifestNaming.path(ManifestNaming.Scheme.V2, 2));
    assertThat(manifestA2).as("a's member version is written").exists();
    // DescribeTable, ListTableVersions, DescribeTableVersion answer as if the batch had not happened
    assertThat(post("/v1/table/ns$a/describe", "{}").ok().getLong("version")).isEqualTo(1);
    assertThat(post("/v1/table/ns$a/version/list?descending=true", "{}").ok().getJsonArray("versions").stream()
        .map(v -> ((JsonObject) v).getLong("version")).toList()).containsExactly(1L);
    post("/v1/table/ns$a/version/describe", new JsonObject().put("version", 2)).error(404, 11);
    assertThat(post("/v1/table/ns$a/version/describe", "{}").ok().getJsonObject("version").getLong("version"))
        .isEqualTo(1);
    // a commit to a member table waits for the batch, then lands after it
    CompletableFuture<Reply> append = CompletableFuture.supplyAsync(() -> postBytes("/v1/table/ns$a/commit",
        TransactionFactory.append(2, LanceProtos.fragments(tables.get("a").writeRows(70, 1))).toByteArray()));
    Thread.sleep(300);
    assertThat(append).isNotDone();
    assertThat(events).isEmpty(); // no member event before every member landed

    resume.countDown();
    assertThat(batch.get(30, TimeUnit.SECONDS).ok().getJsonArray("versions")).hasSize(2);
    assertThat(append.get(30, TimeUnit.SECONDS).ok().getLong("version")).isEqualTo(3);
    assertThat(post("/v1/table/ns$b/describe", "{}").ok().getLong("version")).isEqualTo(2);
    assertThat(post("/v1/table/ns$a/describe", "{}").ok().getLong("version")).isEqualTo(3);
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).untilAsserted(() ->
        assertThat(events.stream().filter(e -> e.batchId() != null).map(CommitEvent::tableName).toList())
            .containsExactlyInAnyOrder("a", "b"));
  }

  // ---------------------------------------------------------------- helpers

  private Path stage(String table, long version, long firstId) {
    return stage(table, version, firstId, version - 1);
  }

  private Path stage(String table, long version, long firstId, long readVersion) {
    return StagedManifests.stage(tables.get(table), version, firstId, readVersion);
  }

  private static JsonObject entry(String table, long version, Path staged) {
    return StagedManifests.entry(List.of("ns", table), version, staged);
  }

  private static CreateTableVersionEntry stockEntry(String table, long version, Path staged) {
    return new CreateTableVersionEntry().id(List.of("ns", table)).version(version)
        .manifestPath(staged.toString().substring(1));
  }

  private static byte[] read(Path path) {
    try {
      return Files.readAllBytes(path);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
