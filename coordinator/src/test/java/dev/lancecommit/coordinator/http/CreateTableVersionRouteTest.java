package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.coordinator.commit.CommitRequest;
import dev.lancecommit.coordinator.commit.CommitResult;
import dev.lancecommit.coordinator.commit.CommitService;
import dev.lancecommit.coordinator.commit.CreateTableVersion;
import dev.lancecommit.coordinator.commit.LaneCommitService;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.TransactionFiles;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.SettledFiles;
import dev.lancecommit.testing.lance.LanceTables;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * CreateTableVersion over HTTP against the real commit lanes: a manifest staged the way stock Lance stages it
 * ({@code _versions/{final name}-{uuid}}, path relative to the store root) becomes the next version through the
 * commit path; everything else is refused and changes nothing.
 */
class CreateTableVersionRouteTest extends LaneServerFixture {
  private static final String CREATE = "/v1/table/ns$t/version/create";
  private static final String ON_LATEST = "/v1/table/ingest$t/version/create";

  /** Runs once, just before the next commit reaches the lanes: a writer that gets in between. */
  private final AtomicReference<Runnable> beforeNextCommit = new AtomicReference<>();
  private Path table;
  private LanceTables lance;
  /** The table the helpers work on: ns$t, or ingest$t (appends on latest) once a test switches to it. */
  private List<String> tableId = List.of("ns", "t");

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
  void tableAtVersionOne() {
    post("/v1/namespace/ns/create", "{}").ok();
    table = Path.of(post("/v1/table/ns$t/declare", "{}").ok().getString("location"));
    lance = LanceTables.local(table);
    assertThat(commit(TransactionFactory.create(LanceProtos.schema(LanceTables.ROW_SCHEMA),
        LanceProtos.fragments(lance.writeRows(0, 5)))).getLong("version")).isEqualTo(1);
  }

  @AfterEach
  void closeLance() {
    lance.close();
  }

  @Test
  void theStagedTransactionBecomesTheNextVersionAndTheStagingFileGoes() throws Exception {
    Transaction txn = append(1, 5);
    Path staged = stage(2, Optional.of(txn), "");

    JsonObject reply = post(CREATE, request(2, staged)).ok();

    Path manifest = manifestOf(2);
    assertThat(reply.getString("transaction_id")).isEqualTo(txn.getUuid());
    assertThat(reply.getJsonObject("version").getLong("version")).isEqualTo(2);
    assertThat(reply.getJsonObject("version").getString("manifest_path")).isEqualTo(manifest.toString());
    assertThat(reply.getJsonObject("version").getLong("manifest_size")).isEqualTo(Files.size(manifest));
    awaitRemoved(staged); // after the answer, off its path
    ManifestFile committed = ManifestFile.decode(Files.readAllBytes(manifest));
    assertThat(committed.version()).isEqualTo(2);
    assertThat(committed.transaction().orElseThrow().getUuid()).isEqualTo(txn.getUuid());
    // landed exactly as staged: a stock writer verifying a lost answer compares it with its own
    assertThat(committed.transaction().orElseThrow().getTransactionPropertiesMap())
        .isEqualTo(txn.getTransactionPropertiesMap());
    assertThat(committed.manifest().getFragmentsCount()).isEqualTo(2);
    assertThat(lance.readIds(2)).containsExactlyInAnyOrderElementsOf(ids(0, 10));
    JsonObject described = post("/v1/table/ns$t/version/describe", "{\"version\":2}").ok().getJsonObject("version");
    assertThat(described.getString("manifest_path")).isEqualTo(manifest.toString());
  }

  @Test
  void aStagedShallowCloneCreatesAnEmptyTableAtTheSourcesVersionNumber() throws Exception {
    assertThat(commit(append(1, 5)).getLong("version")).isEqualTo(2);
    Path clone = Path.of(post("/v1/table/ns$c/declare", "{}").ok().getString("location"));
    Transaction txn = Transaction.newBuilder().setUuid(TransactionFactory.newUuid()).setReadVersion(0)
        .setClone(Transaction.Clone.newBuilder().setIsShallow(true).setRefVersion(2).setRefPath(table.toString()))
        .build();
    Path staged = write(clone.resolve("_versions")
        .resolve(ManifestNaming.fileName(ManifestNaming.Scheme.V2, 2) + "-" + UUID.randomUUID()),
        stagedBytes(2, Optional.of(txn), ""));
    JsonObject request = request(2, staged).put("id", List.of("ns", "c"));
    Path stagedAsOne = write(clone.resolve("_versions")
        .resolve(ManifestNaming.fileName(ManifestNaming.Scheme.V2, 1) + "-" + UUID.randomUUID()),
        stagedBytes(1, Optional.of(txn), ""));
    assertThat(post("/v1/table/ns$c/version/create", request(1, stagedAsOne).put("id", List.of("ns", "c")))
        .status()).as("a clone's first version is the source's number").isEqualTo(409);

    JsonObject reply = post("/v1/table/ns$c/version/create", request).ok();

    assertThat(reply.getJsonObject("version").getLong("version")).isEqualTo(2);
    awaitRemoved(staged); // after the answer, off its path
    try (LanceTables cloned = LanceTables.local(clone)) {
      assertThat(cloned.readIds(2)).containsExactlyInAnyOrderElementsOf(ids(0, 10));
    }
  }

  @Test
  void theSameRequestAgainAnswersTheVersionItMade() {
    Transaction txn = append(1, 5);
    byte[] bytes = stagedBytes(2, Optional.of(txn), "");
    Path staged = write(stagedPath(2), bytes);
    JsonObject request = request(2, staged);
    assertThat(post(CREATE, request).ok().getJsonObject("version").getLong("version")).isEqualTo(2);

    // The first answer's removal of the staged file runs after it, off its path: a file written again before that
    // removal would be removed under the second request.
    awaitRemoved(staged);
    write(staged, bytes); // the client never saw the answer and sends the same request again
    JsonObject again = post(CREATE, request).ok();

    assertThat(again.getJsonObject("version").getLong("version")).isEqualTo(2);
    assertThat(again.getString("transaction_id")).isEqualTo(txn.getUuid());
    assertThat(versions()).containsExactly(1L, 2L);
    awaitRemoved(staged); // after the answer, off its path
  }

  @Test
  void theSameRebasedRequestAgainAnswersTheVersionItMadeEvenAfterOthers() {
    assertThat(commit(append(1, 5)).getLong("version")).isEqualTo(2);
    Transaction txn = append(1, 10); // staged as version 3, read at version 1
    byte[] bytes = stagedBytes(3, Optional.of(txn), "");
    Path staged = write(stagedPath(3), bytes);
    JsonObject request = request(3, staged);
    assertThat(post(CREATE, request).ok().getJsonObject("version").getLong("version")).isEqualTo(3);
    assertThat(commit(append(3, 15)).getLong("version")).isEqualTo(4);

    awaitRemoved(staged); // as above: the first answer's removal, before the file is written again
    write(staged, bytes);
    JsonObject again = post(CREATE, request).ok();

    assertThat(again.getJsonObject("version").getLong("version")).isEqualTo(3);
    assertThat(again.getString("transaction_id")).isEqualTo(txn.getUuid());
    assertThat(versions()).containsExactly(1L, 2L, 3L, 4L);
  }

  @Test
  void aVersionThatIsNotTheNextOneIsAConflictAndChangesNothing() {
    Path ahead = stage(3, Optional.of(append(2, 5)), "");
    Path existing = stage(1, Optional.of(append(0, 10)), "");
    Map<String, String> before = snapshot();

    String aheadDetail = post(CREATE, request(3, ahead)).error(409, 14).getString("detail");
    assertThat(aheadDetail).contains("next version of this table is 2");
    // version 1 exists, and an Append read at version 0 (before the table existed) is no transaction at all
    post(CREATE, request(1, existing)).error(400, 13);

    assertThat(snapshot()).isEqualTo(before);
    assertThat(versions()).containsExactly(1L);
  }

  @Test
  void aStagedVersionAnotherWriterTookIsRetryableAndChangesNothing() {
    Path staged = stage(2, Optional.of(append(1, 5)), "");
    assertThat(commit(append(1, 10)).getLong("version")).isEqualTo(2);
    Map<String, String> before = snapshot();

    String detail = post(CREATE, request(2, staged)).error(409, 14).getString("detail");

    assertThat(detail).contains("Version 2 already exists");
    assertThat(snapshot()).isEqualTo(before);
    assertThat(versions()).containsExactly(1L, 2L);
  }

  @Test
  void onATableWithAppendsOnLatestATakenAppendLandsOnTheLatestVersionWithAnETagNoStoreMakes() {
    useAppendsOnLatestTable();
    Transaction txn = append(1, 5);
    Path staged = stage(2, Optional.of(txn), "");
    assertThat(commit(append(1, 10)).getLong("version")).isEqualTo(2);
    assertThat(commit(append(2, 15)).getLong("version")).isEqualTo(3);

    JsonObject version = post(ON_LATEST, request(2, staged)).ok().getJsonObject("version");

    assertThat(version.getLong("version")).isEqualTo(4);
    assertThat(version.getString("manifest_path")).isEqualTo(manifestOf(4).toString());
    assertThat(version.getString("e_tag")).isEqualTo(CreateTableVersion.LANDED_ELSEWHERE_ETAG_PREFIX + txn.getUuid());
    awaitRemoved(staged); // after the answer, off its path
    assertThat(lance.readIds(4)).containsExactlyInAnyOrderElementsOf(ids(0, 20));
    // and an Append whose staged version is free lands as exactly that version, with no e_tag
    JsonObject next = post(ON_LATEST, request(5, stage(5, Optional.of(append(4, 20)), ""))).ok()
        .getJsonObject("version");
    assertThat(next.getLong("version")).isEqualTo(5);
    assertThat(next.containsKey("e_tag")).isFalse();
  }

  @Test
  void appendsOnLatestMovesAnAppendOverAppendsOnlyAndNeverMovesAnythingElse() {
    useAppendsOnLatestTable();
    Path appendOverDelete = stage(2, Optional.of(append(1, 5)), "");
    assertThat(commit(TransactionFactory.delete(1, List.of(), List.of(0L), "id < 5")).getLong("version"))
        .isEqualTo(2);
    Path configOverAppend = stage(3, Optional.of(TransactionFactory.updateConfig(2, Map.of("k", "v"), List.of())),
        "");
    assertThat(commit(append(2, 10)).getLong("version")).isEqualTo(3);
    Map<String, String> before = snapshot();

    assertThat(post(ON_LATEST, request(2, appendOverDelete)).error(409, 14).getString("detail"))
        .contains("Version 2 already exists");
    assertThat(post(ON_LATEST, request(3, configOverAppend)).error(409, 14).getString("detail"))
        .contains("Version 3 already exists");

    assertThat(snapshot()).isEqualTo(before);
    assertThat(versions()).containsExactly(1L, 2L, 3L);
  }

  @Test
  void theConflictRulesOfTheCommitPathApply() {
    // version 2 overwrites the table; an Append read at version 1 cannot land on top of that
    assertThat(commit(TransactionFactory.overwrite(1, LanceProtos.schema(LanceTables.ROW_SCHEMA),
        LanceProtos.fragments(lance.writeRows(100, 5)))).getLong("version")).isEqualTo(2);
    Path staged = stage(3, Optional.of(append(1, 5)), "");
    Map<String, String> before = snapshot();

    post(CREATE, request(3, staged)).error(409, 19);

    assertThat(snapshot()).isEqualTo(before);
    assertThat(versions()).containsExactly(1L, 2L);
  }

  @Test
  void aCommitSlippingInBeforeTheLaneMakesItRetryableInsteadOfLandingElsewhere() {
    Path staged = stage(2, Optional.of(append(1, 5)), "");
    Transaction competitor = append(1, 10);
    beforeNextCommit.set(() -> lanes.commit(catalog.loadTable(List.of("ns", "t")).orElseThrow().toRef(),
        new CommitRequest(competitor.toByteArray(), Optional.empty(), true, "competitor")).join());

    post(CREATE, request(2, staged)).error(409, 14);

    assertThat(versions()).containsExactly(1L, 2L);
    assertThat(ManifestFile.decode(read(manifestOf(2))).transaction().orElseThrow().getUuid())
        .isEqualTo(competitor.getUuid());
    assertThat(staged).exists(); // Lance keeps or removes it after asking DescribeTableVersion
  }

  @Test
  void aTransactionLanceRebasedOnItsSideCommitsAtTheStagedVersion() {
    assertThat(commit(append(1, 5)).getLong("version")).isEqualTo(2);
    // Lance's commit loop rebased this Append over version 2 but kept its read_version 1
    Transaction rebased = append(1, 10);
    Path staged = stage(3, Optional.of(rebased), "");

    JsonObject reply = post(CREATE, request(3, staged)).ok();

    assertThat(reply.getJsonObject("version").getLong("version")).isEqualTo(3);
    assertThat(lance.readIds(3)).containsExactlyInAnyOrderElementsOf(ids(0, 15));
  }

  @Test
  void aRebasedTransactionOvertakenInTheLaneIsRetryableAndChangesNothing() {
    assertThat(commit(append(1, 5)).getLong("version")).isEqualTo(2);
    // what pylance 14 stages under concurrency: version 3, built on version 2, read_version still 1
    Path staged = stage(3, Optional.of(append(1, 10)), "");
    Transaction competitor = append(2, 15);
    beforeNextCommit.set(() -> lanes.commit(catalog.loadTable(List.of("ns", "t")).orElseThrow().toRef(),
        new CommitRequest(competitor.toByteArray(), Optional.empty(), true, "competitor")).join());

    String detail = post(CREATE, request(3, staged)).error(409, 14).getString("detail");

    assertThat(detail).contains("Version 3 already exists");
    assertThat(versions()).containsExactly(1L, 2L, 3L);
    assertThat(ManifestFile.decode(read(manifestOf(3))).transaction().orElseThrow().getUuid())
        .isEqualTo(competitor.getUuid());
    assertThat(lance.readIds(3)).containsExactlyInAnyOrderElementsOf(
        java.util.stream.Stream.concat(ids(0, 10).stream(), ids(15, 20).stream()).toList());
  }

  @Test
  void aRebasedTransactionWhoseVersionWasTakenBeforeItArrivedIsRetryableAndChangesNothing() {
    assertThat(commit(append(1, 5)).getLong("version")).isEqualTo(2);
    Path staged = stage(3, Optional.of(append(1, 10)), "");
    assertThat(commit(append(2, 15)).getLong("version")).isEqualTo(3);
    Map<String, String> before = snapshot();

    String detail = post(CREATE, request(3, staged)).error(409, 14).getString("detail");

    assertThat(detail).contains("Version 3 already exists");
    assertThat(snapshot()).isEqualTo(before);
    assertThat(versions()).containsExactly(1L, 2L, 3L);
  }

  @Test
  void onATableWithAppendsOnLatestARebasedAppendWhoseVersionWasTakenLandsOnTheLatestVersion() {
    useAppendsOnLatestTable();
    assertThat(commit(append(1, 5)).getLong("version")).isEqualTo(2);
    Transaction txn = append(1, 10);
    Path staged = stage(3, Optional.of(txn), "");
    assertThat(commit(append(2, 15)).getLong("version")).isEqualTo(3);

    JsonObject version = post(ON_LATEST, request(3, staged)).ok().getJsonObject("version");

    assertThat(version.getLong("version")).isEqualTo(4);
    assertThat(version.getString("e_tag")).isEqualTo(CreateTableVersion.LANDED_ELSEWHERE_ETAG_PREFIX + txn.getUuid());
    awaitRemoved(staged); // after the answer, off its path
    assertThat(lance.readIds(4)).containsExactlyInAnyOrderElementsOf(ids(0, 20));
  }

  @Test
  void aTransactionKeptOnlyInItsTxnFileIsCommitted() {
    Transaction txn = append(1, 5);
    String txnFile = TransactionFiles.fileName(txn);
    write(table.resolve(TransactionFiles.TRANSACTIONS_DIR).resolve(txnFile), TransactionFiles.encode(txn));
    Path staged = stage(2, Optional.empty(), txnFile);

    assertThat(post(CREATE, request(2, staged)).ok().getString("transaction_id")).isEqualTo(txn.getUuid());
    assertThat(versions()).containsExactly(1L, 2L);
  }

  @Test
  void aTransactionFileTheWriterWroteIsKeptAndAnotherTransactionUnderItsNameIsRefused() throws Exception {
    // as Lance commits: the .txn first, then the staged manifest naming it, with the transaction inline as well
    Transaction txn = append(1, 5);
    Path file = table.resolve(TransactionFiles.TRANSACTIONS_DIR).resolve(TransactionFiles.fileName(txn));
    write(file, TransactionFiles.encode(txn));
    Path staged = stage(2, Optional.of(txn), TransactionFiles.fileName(txn));

    assertThat(post(CREATE, request(2, staged)).ok().getJsonObject("version").getLong("version")).isEqualTo(2);
    assertThat(Files.readAllBytes(file)).isEqualTo(TransactionFiles.encode(txn));
    assertThat(ManifestFile.decode(Files.readAllBytes(manifestOf(2))).manifest().getTransactionFile())
        .isEqualTo(TransactionFiles.fileName(txn));

    // the file under the next transaction's name holds another transaction (its uuid reused): refused, nothing written
    Transaction next = append(2, 10);
    Transaction impostor = next.toBuilder().putTransactionProperties("who", "impostor").build();
    Path taken = table.resolve(TransactionFiles.TRANSACTIONS_DIR).resolve(TransactionFiles.fileName(next));
    write(taken, TransactionFiles.encode(impostor));
    Path refused = stage(3, Optional.of(next), TransactionFiles.fileName(next));

    assertThat(post(CREATE, request(3, refused)).error(409, 19).getString("detail")).contains("uuid");
    assertThat(versions()).containsExactly(1L, 2L);
    assertThat(Files.readAllBytes(taken)).isEqualTo(TransactionFiles.encode(impostor));
  }

  @Test
  void badRequestsAreRefusedAndChangeNothing() {
    Path staged = stage(2, Optional.of(append(1, 5)), "");
    Path finalManifest = manifestOf(1);
    Path noTransaction = stage(2, Optional.empty(), "");
    Path missingTxnFile = stage(2, Optional.empty(), "1-" + UUID.randomUUID() + ".txn");
    Path garbage = write(stagedPath(2), "not a manifest".getBytes());
    Path wrongVersionInside = write(stagedPath(2), stagedBytes(3, Optional.of(append(2, 5)), ""));
    post("/v1/namespace/other/create", "{}").ok();
    Path otherTable = Path.of(post("/v1/table/other$t/declare", "{}").ok().getString("location"));
    Path elsewhere = write(otherTable.resolve("_versions").resolve(stagedPath(2).getFileName().toString()),
        read(staged));
    Map<String, String> before = snapshot();

    post(CREATE, request(2, staged).put("version", null)).error(400, 13);
    post(CREATE, request(2, staged).put("version", 0)).error(400, 13);
    post(CREATE, request(2, staged).put("version", "2")).error(400, 13);
    post(CREATE, request(2, staged).put("manifest_path", null)).error(400, 13);
    post(CREATE, request(2, staged).put("manifest_size", 1)).error(400, 13);
    post(CREATE, request(2, staged).put("naming_scheme", "V1")).error(400, 13);
    post(CREATE, request(2, staged).put("naming_scheme", "V3")).error(400, 13);
    post(CREATE, request(3, staged)).error(400, 13); // named for version 2
    post(CREATE, request(1, finalManifest)).error(400, 13); // a final manifest is never taken (nor deleted)
    post(CREATE, request(2, elsewhere)).error(400, 13);
    post(CREATE, request(2, staged).put("manifest_path",
        lanceStyle(table + "/_versions/../" + staged.getFileName()))).error(400, 13);
    post(CREATE, request(2, staged).put("manifest_path", lanceStyle(stagedPath(2)))).error(400, 13); // absent
    post(CREATE, request(2, garbage)).error(400, 13);
    post(CREATE, request(2, wrongVersionInside)).error(400, 13);
    post(CREATE, request(2, noTransaction)).error(400, 13);
    post(CREATE, request(2, missingTxnFile)).error(400, 13);
    post(CREATE, "[]").error(400, 13);
    post(CREATE, request(2, staged).put("branch", "dev")).error(404, 22); // no such branch
    post(CREATE, request(2, staged).put("metadata", new JsonObject().put("k", "v"))).error(501, 0);
    JsonObject ghost = request(2, staged);
    ghost.remove("id");
    post("/v1/table/ns$ghost/version/create", ghost).error(404, 4);

    assertThat(snapshot()).isEqualTo(before);
    assertThat(versions()).containsExactly(1L);
  }

  @Test
  void fullUrisOfTheStagedFileAreAcceptedToo() {
    Path staged = stage(2, Optional.of(append(1, 5)), "");
    assertThat(post(CREATE, request(2, staged).put("manifest_path", staged.toUri().toString())).ok()
        .getJsonObject("version").getLong("version")).isEqualTo(2);
  }

  // ---------------------------------------------------------------- helpers

  /** Switches the helpers to ingest$t, declared in a namespace that sets managed_versioning.appends_on_latest. */
  private void useAppendsOnLatestTable() {
    post("/v1/namespace/ingest/create",
        "{\"properties\": {\"managed_versioning.appends_on_latest\": \"true\"}}").ok();
    JsonObject declared = post("/v1/table/ingest$t/declare", "{}").ok();
    lance.close();
    table = Path.of(declared.getString("location"));
    lance = LanceTables.local(table);
    tableId = List.of("ingest", "t");
    assertThat(commit(TransactionFactory.create(LanceProtos.schema(LanceTables.ROW_SCHEMA),
        LanceProtos.fragments(lance.writeRows(0, 5)))).getLong("version")).isEqualTo(1);
  }

  private JsonObject commit(Transaction txn) {
    Reply reply = postBytes("/v1/table/" + String.join("$", tableId) + "/commit", txn.toByteArray());
    return reply.ok();
  }

  private Transaction append(long readVersion, long firstId) {
    return TransactionFactory.append(readVersion, LanceProtos.fragments(lance.writeRows(firstId, 5)));
  }

  /** A manifest for {@code version} built from the latest one, carrying {@code txn} inline or naming a .txn file. */
  private byte[] stagedBytes(long version, Optional<Transaction> txn, String transactionFile) {
    long latest = versions().get(versions().size() - 1);
    ManifestFile base = ManifestFile.decode(read(manifestOf(latest)));
    return new ManifestFile(base.manifest().toBuilder().setVersion(version).setTransactionFile(transactionFile)
        .build(), base.indices(), txn).encode();
  }

  private Path stage(long version, Optional<Transaction> txn, String transactionFile) {
    return write(stagedPath(version), stagedBytes(version, txn, transactionFile));
  }

  /** Where Lance stages the manifest of {@code version}: {@code _versions/{final name}-{uuid}}. */
  private Path stagedPath(long version) {
    return table.resolve("_versions")
        .resolve(ManifestNaming.fileName(ManifestNaming.Scheme.V2, version) + "-" + UUID.randomUUID());
  }

  /** The request stock Lance sends: the staged path relative to the store root (no leading slash). */
  private JsonObject request(long version, Path staged) {
    long size;
    try {
      size = Files.exists(staged) ? Files.size(staged) : 0;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new JsonObject().put("id", tableId).put("version", version)
        .put("manifest_path", lanceStyle(staged)).put("manifest_size", size).put("naming_scheme", "V2");
  }

  private static String lanceStyle(Object path) {
    return path.toString().substring(1);
  }

  private Path manifestOf(long version) {
    return table.resolve(ManifestNaming.path(ManifestNaming.Scheme.V2, version));
  }

  private List<Long> versions() {
    return post("/v1/table/" + String.join("$", tableId) + "/version/list", "{}").ok().getJsonArray("versions").stream()
        .map(v -> ((JsonObject) v).getLong("version")).toList();
  }

  private Map<String, String> snapshot() {
    return SettledFiles.snapshot(tempDir, Path::toString);
  }

  private static Path write(Path path, byte[] bytes) {
    try {
      Files.createDirectories(path.getParent());
      Files.write(path, bytes);
      return path;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] read(Path path) {
    try {
      return Files.readAllBytes(path);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<Long> ids(long from, long to) {
    return LongStream.range(from, to).boxed().toList();
  }
}
