package dev.lancecommit.coordinator.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.lancecommit.coordinator.storage.LocalObjectStore;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.TransactionFiles;
import dev.lancecommit.format.WriterVersions;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.IndexFile;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.InvalidTransactionException;
import dev.lancecommit.testing.FaultInjectingObjectStore;
import dev.lancecommit.testing.FaultInjectingObjectStore.Call;
import dev.lancecommit.testing.GatedExecutor;
import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.testing.lance.LanceTables;
import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.testing.lance.TestIndexes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.FragmentMetadata;

/**
 * The commit path's file checks against files stock Lance wrote: every file a commit adds is there and is what the
 * transaction says, else 400/13 naming it and nothing is written; the same transaction commits once the file is
 * right. Also what the checks cost, counted in store requests.
 *
 * <p>The store here (a fault-injecting wrapper) counts as an object store ({@code requestsAreRoundTrips}), so the
 * lane writes the transaction file while the files are checked: "nothing is written" means it is removed again.
 */
class CommitFileCheckTest {
  private static final String TABLE_KEY = "wh/ns/t.lance";

  @TempDir Path root;
  private FaultInjectingObjectStore store;
  private StorageLocation table;
  private Path tableDir;
  private LanceTables lance;
  private ExecutorService executor;
  private TableRef ref;

  @BeforeEach
  void setUp() {
    store = new FaultInjectingObjectStore(new LocalObjectStore(root));
    table = new StorageLocation(store, TABLE_KEY);
    tableDir = root.resolve(TABLE_KEY);
    lance = LanceTables.local(tableDir);
    executor = Executors.newFixedThreadPool(4);
    ref = new TableRef(List.of("ns", "t"), table.uri(), UUID.randomUUID().toString());
  }

  @AfterEach
  void tearDown() throws Exception {
    lance.close();
    executor.shutdownNow();
    executor.awaitTermination(5, TimeUnit.SECONDS);
  }

  private LaneCommitService service(boolean verify) {
    return new LaneCommitService(location -> table, new CommitSettings(100, 5, 3, 64, WriterVersions.coordinator(),
        "2.1", ManifestNaming.Scheme.V2).withVerifyFiles(verify), new CommitLaneTest.RecordingPublisher(), executor,
        Clock.systemUTC(), Duration.ofMinutes(10));
  }

  @Test
  void anAppendWhoseDataFileIsMissingIsRefusedWritesNothingAndCommitsOnceTheFileIsThere() throws Exception {
    LaneCommitService service = service(true);
    commit(service, create(0, 10));
    Transaction append = append(1, 100, 5);
    DataFile file = append.getAppend().getFragments(0).getFiles(0);
    Path data = tableDir.resolve("data").resolve(file.getPath());
    Path aside = root.resolve("aside.lance");
    Files.move(data, aside);

    assertThatThrownBy(() -> commit(service, append)).isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining("data file " + file.getPath() + " of fragment 1: " + table.uri("data/" + file.getPath())
            + " is not there");
    assertThat(versions()).containsExactly(1L);
    assertThat(store.delegate().head(table.key("_transactions/" + TransactionFiles.fileName(append)))).isEmpty();

    Files.move(aside, data);
    assertThat(commit(service, append).version()).isEqualTo(2);
    assertThat(lance.countRows(2)).isEqualTo(15);
  }

  /**
   * A group whose version names a bad file is not sunk by it: the check cannot tell which member named the file, so
   * every member is prepared again in a version of its own, the good ones land and only the bad one is refused.
   */
  @Test
  void aGroupMemberNamingAMissingFileIsRefusedAloneAndTheOthersLand() throws Exception {
    GatedExecutor gate = new GatedExecutor(executor);
    LaneCommitService service = new LaneCommitService(location -> table, new CommitSettings(100, 5, 3, 64,
        WriterVersions.coordinator(), "2.1", ManifestNaming.Scheme.V2).withVerifyFiles(true),
        new CommitLaneTest.RecordingPublisher(), gate, Clock.systemUTC(), Duration.ofMinutes(10));
    commit(service, create(0, 10));
    Transaction good1 = append(1, 100, 5);
    Transaction bad = append(1, 200, 5);
    Transaction good2 = append(1, 300, 5);
    Transaction held = append(1, 400, 5);
    DataFile missing = bad.getAppend().getFragments(0).getFiles(0);
    Files.delete(tableDir.resolve("data").resolve(missing.getPath()));

    FaultInjectingObjectStore.Hold v2 = store.holdNext(Call.PUT_IF_ABSENT,
        table.key(ManifestNaming.path(ManifestNaming.Scheme.V2, 2))::equals);
    CompletableFuture<CommitResult> first = submit(service, held);
    assertThat(v2.awaitHeld(Duration.ofSeconds(20))).isTrue();
    gate.close(); // the three wait together and are prepared as one group
    List<CompletableFuture<CommitResult>> answers = List.of(submit(service, good1), submit(service, bad),
        submit(service, good2));
    gate.open();
    v2.release();

    assertThat(first.get(60, TimeUnit.SECONDS).version()).isEqualTo(2);
    CommitResult landed1 = answers.get(0).get(60, TimeUnit.SECONDS);
    CommitResult landed2 = answers.get(2).get(60, TimeUnit.SECONDS);
    assertThat(List.of(landed1.version(), landed2.version())).containsExactlyInAnyOrder(3L, 4L);
    assertThat(landed1.groupSize()).isEqualTo(1);
    assertThatThrownBy(answers.get(1)::join).cause().isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining(missing.getPath()).hasMessageContaining("is not there");
    assertThat(versions()).containsExactly(1L, 2L, 3L, 4L);
    assertThat(lance.countRows(4)).isEqualTo(25);
  }

  /**
   * Commits waiting behind the version in flight have their files checked meanwhile, on threads of their own (the
   * lane's are held shut here), and their version reads only what was not found right then: a file written after that
   * check is read again, and the commit still lands.
   */
  @Test
  void theFilesOfWaitingCommitsAreCheckedMeanwhileAndTheirVersionReadsOnlyWhatWasNotFound() throws Exception {
    assertThat(tailReadsWhileWaiting(CommitSettings.DEFAULT_VERIFY_AHEAD_THREADS))
        .isEqualTo(new TailReads(2, 1));
  }

  /** With no threads checking ahead every file is read when its version is prepared, as before. */
  @Test
  void withoutThreadsAheadTheFilesAreReadWhenTheirVersionIsPrepared() throws Exception {
    assertThat(tailReadsWhileWaiting(0)).isEqualTo(new TailReads(0, 2));
  }

  /**
   * On an object store a version prepared on top of a write in flight writes its {@code .txn} beside that write, and
   * its manifest only once the {@code .txn} is there: no version is ever without it.
   */
  @Test
  void aVersionPreparedOnAWriteInFlightIsWrittenOnlyOnceItsTransactionFileIs() throws Exception {
    LaneCommitService service = service(true);
    HeldWrite held = appendHeldAtVersion2(service);
    FaultInjectingObjectStore.Hold txn3 = store.holdNext(Call.PUT_IF_ABSENT,
        key -> key.startsWith(table.key("_transactions/")));
    CompletableFuture<CommitResult> second = submit(service, append(1, 200, 5));
    assertThat(txn3.awaitHeld(Duration.ofSeconds(20))).isTrue();
    held.v2().release();

    assertThat(held.first().get(60, TimeUnit.SECONDS).version()).isEqualTo(2);
    Thread.sleep(300);
    assertThat(second).isNotDone();
    assertThat(store.delegate().head(table.key(ManifestNaming.path(ManifestNaming.Scheme.V2, 3)))).isEmpty();
    txn3.release();
    assertThat(second.get(60, TimeUnit.SECONDS).version()).isEqualTo(3);
    assertThat(lance.countRows(3)).isEqualTo(20);
  }

  /** That {@code .txn} write failing fails its version's commit, with nothing of the manifest written. */
  @Test
  void aTransactionFileThatCannotBeWrittenBesideAWriteInFlightFailsOnlyItsOwnVersion() throws Exception {
    LaneCommitService service = service(true);
    HeldWrite held = appendHeldAtVersion2(service);
    store.failNext(Call.PUT_IF_ABSENT, 1, FaultInjectingObjectStore.When.BEFORE,
        key -> key.startsWith(table.key("_transactions/")), FaultInjectingObjectStore.unavailable());
    Transaction refused = append(1, 200, 5);
    CompletableFuture<CommitResult> second = submit(service, refused);
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20))
        .until(() -> store.pendingFaults(Call.PUT_IF_ABSENT) == 0);
    held.v2().release();

    assertThat(held.first().get(60, TimeUnit.SECONDS).version()).isEqualTo(2);
    assertThatThrownBy(() -> second.get(60, TimeUnit.SECONDS)).cause()
        .isInstanceOf(dev.lancecommit.coordinator.storage.StoreUnavailableException.class);
    assertThat(versions()).containsExactly(1L, 2L);
    assertThat(commit(service, refused).version()).as("the same transaction commits once the store answers")
        .isEqualTo(3);
  }

  /** An append whose write of version 2 is held in the store. */
  private record HeldWrite(FaultInjectingObjectStore.Hold v2, CompletableFuture<CommitResult> first) {}

  /** Creates the table, then submits an append and waits until the write of its version 2 is held. */
  private HeldWrite appendHeldAtVersion2(LaneCommitService service) throws InterruptedException {
    commit(service, create(0, 10));
    FaultInjectingObjectStore.Hold v2 = store.holdNext(Call.PUT_IF_ABSENT,
        table.key(ManifestNaming.path(ManifestNaming.Scheme.V2, 2))::equals);
    CompletableFuture<CommitResult> first = submit(service, append(1, 100, 5));
    assertThat(v2.awaitHeld(Duration.ofSeconds(20))).isTrue();
    return new HeldWrite(v2, first);
  }

  /** Data file tails read while two commits wait behind a held write, and then by their version. */
  private record TailReads(int whileWaiting, int byTheirVersion) {}

  private TailReads tailReadsWhileWaiting(int aheadThreads) throws Exception {
    GatedExecutor gate = new GatedExecutor(executor);
    LaneCommitService service = new LaneCommitService(location -> table, new CommitSettings(100, 5, 3, 64,
        WriterVersions.coordinator(), "2.1", ManifestNaming.Scheme.V2).withVerifyFiles(true)
        .withVerifyFilesAheadThreads(aheadThreads), new CommitLaneTest.RecordingPublisher(), gate, Clock.systemUTC(),
        Duration.ofMinutes(10));
    commit(service, create(0, 10));
    Transaction first = append(1, 100, 5);
    Transaction waiting = append(1, 200, 5);
    Transaction late = append(1, 300, 5);
    Path lateFile = tableDir.resolve("data").resolve(late.getAppend().getFragments(0).getFiles(0).getPath());
    Path aside = root.resolve("aside.lance");
    Files.move(lateFile, aside);

    FaultInjectingObjectStore.Hold v2 = store.holdNext(Call.PUT_IF_ABSENT,
        table.key(ManifestNaming.path(ManifestNaming.Scheme.V2, 2))::equals);
    CompletableFuture<CommitResult> firstAnswer = submit(service, first);
    assertThat(v2.awaitHeld(Duration.ofSeconds(20))).isTrue();
    gate.close(); // nothing of the lane runs: what reads the files now is the check ahead
    int before = store.calls(Call.GET_TAIL);
    List<CompletableFuture<CommitResult>> answers = List.of(submit(service, waiting), submit(service, late));
    if (aheadThreads > 0) {
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20))
          .until(() -> store.calls(Call.GET_TAIL) - before == 2);
    } else {
      Thread.sleep(300);
    }
    int whileWaiting = store.calls(Call.GET_TAIL) - before;
    Files.move(aside, lateFile);
    gate.open();
    v2.release();

    assertThat(firstAnswer.get(60, TimeUnit.SECONDS).version()).isEqualTo(2);
    for (CompletableFuture<CommitResult> answer : answers) {
      CommitResult landed = answer.get(60, TimeUnit.SECONDS);
      assertThat(landed.version()).isEqualTo(3);
      assertThat(landed.groupSize()).isEqualTo(2);
    }
    assertThat(lance.countRows(3)).isEqualTo(25);
    return new TailReads(whileWaiting, store.calls(Call.GET_TAIL) - before - whileWaiting);
  }

  private CompletableFuture<CommitResult> submit(LaneCommitService service, Transaction txn) {
    return service.commit(ref, new CommitRequest(txn.toByteArray(), Optional.empty(), true, "tester"));
  }

  @Test
  void aDataFileThatIsNotWhatTheTransactionSaysIsRefusedNamingTheReason() {
    LaneCommitService service = service(true);
    commit(service, create(0, 10));
    Transaction append = append(1, 100, 5);
    long size = append.getAppend().getFragments(0).getFiles(0).getFileSizeBytes();

    assertRefused(service, withFragment(append, f -> f.setFiles(0, f.getFiles(0).toBuilder()
        .setFileSizeBytes(size + 1))), "has " + size + " bytes, but the version states " + (size + 1));
    assertRefused(service, withFragment(append, f -> f.setPhysicalRows(6)),
        "holds 5 rows, but the fragment's physical_rows is 6");
    assertRefused(service, withFragment(append, f -> f.setFiles(0, f.getFiles(0).toBuilder()
        .setColumnIndices(1, 7))), "has 2 columns, but the version gives field id 1 column index 7");
    assertRefused(service, withFragment(append, f -> f.setFiles(0, f.getFiles(0).toBuilder()
        .setColumnIndices(0, 1).setColumnIndices(1, 0))), "stores field id 0 in column 0, but the version says column 1");
    assertRefused(service, withFragment(append, f -> f.setFiles(0, f.getFiles(0).toBuilder()
        .setColumnIndices(1, -1))), "stores field id 1 in column 1, but the version gives it no column (-1)");
    assertRefused(service, withFragment(append, f -> f.setFiles(0, f.getFiles(0).toBuilder()
        .setFileMajorVersion(2).setFileMinorVersion(2))), "2.2");
    // not one of the refusals above wrote anything
    assertThat(versions()).containsExactly(1L);
    assertThat(store.delegate().list(table.key("_transactions"))).hasSize(1);
    assertThat(commit(service, append).version()).isEqualTo(2);
  }

  @Test
  void aDeletionFileMustHoldTheRowsItsFragmentSaysItDeletes() throws Exception {
    LaneCommitService service = service(true);
    commit(service, create(0, 10));
    DataFragment deleted;
    try (Dataset ds = lance.open(1)) {
      FragmentMetadata updated = ds.getFragment(0).deleteRows(List.of(1, 2, 3));
      deleted = LanceProtos.fragment(updated);
    }
    Transaction delete = TransactionFactory.delete(1, List.of(deleted), List.of());
    Transaction miscounted = TransactionFactory.delete(1, List.of(deleted.toBuilder().setDeletionFile(
        deleted.getDeletionFile().toBuilder().setNumDeletedRows(4)).build()), List.of());
    assertRefused(service, miscounted, "holds 3 deleted rows, but the fragment's num_deleted_rows is 4");

    Path deletionFile;
    try (var files = Files.list(tableDir.resolve("_deletions"))) {
      deletionFile = files.findFirst().orElseThrow();
    }
    Path aside = root.resolve("aside.arrow");
    Files.move(deletionFile, aside);
    assertRefused(service, delete, "deletion file of fragment 0: " + table.uri("_deletions/"
        + deletionFile.getFileName()) + " is not there");
    Files.move(aside, deletionFile);
    assertThat(commit(service, delete).version()).isEqualTo(2);
    assertThat(lance.countRows(2)).isEqualTo(7);
  }

  @Test
  void indexFilesMustBeThereWithTheirListedSizes() {
    LaneCommitService service = service(true);
    commit(service, create(0, 10));
    IndexMetadata index = TestIndexes.btreeIndex("id_idx", List.of(0), 1, List.of(0)).toBuilder()
        .addFiles(IndexFile.newBuilder().setPath("page_lookup.lance").setSizeBytes(4))
        .addFiles(IndexFile.newBuilder().setPath("page_data.lance").setSizeBytes(6))
        .build();
    String dir = "_indices/" + uuid(index);
    store.put(table.key(dir + "/page_lookup.lance"), new byte[4]);
    Transaction createIndex = TransactionFactory.createIndex(1, List.of(index), List.of());
    assertRefused(service, createIndex, "file page_data.lance of index 'id_idx': " + table.uri(dir
        + "/page_data.lance") + " is not there");
    store.put(table.key(dir + "/page_data.lance"), new byte[5]);
    assertRefused(service, createIndex, "has 5 bytes, but the version states 6");
    store.put(table.key(dir + "/page_data.lance"), new byte[6]);
    assertThat(commit(service, createIndex).version()).isEqualTo(2);

    // an index that lists no files (Lance before IndexMetadata.files) must at least have its directory
    IndexMetadata unlisted = TestIndexes.btreeIndex("value_idx", List.of(1), 2, List.of(0));
    Transaction second = TransactionFactory.createIndex(2, List.of(unlisted), List.of());
    assertRefused(service, second, "directory of index 'value_idx'");
    store.put(table.key("_indices/" + uuid(unlisted) + "/page_lookup.lance"), new byte[1]);
    assertThat(commit(service, second).version()).isEqualTo(3);
  }

  @Test
  void aRestoreOfAVersionWhoseFilesAreGoneIsRefused() throws Exception {
    LaneCommitService service = service(true);
    commit(service, create(0, 10));
    commit(service, TransactionFactory.overwrite(1, LanceProtos.schema(LanceTables.ROW_SCHEMA),
        LanceProtos.fragments(lance.writeRows(50, 3))));
    // version 1's only data file is removed (say, by a cleanup); restoring version 1 would publish it again
    String firstFile = TableOperations.of(table).readManifest(1, ManifestNaming.Scheme.V2).orElseThrow().manifest()
        .getFragments(0).getFiles(0).getPath();
    Files.delete(tableDir.resolve("data").resolve(firstFile));
    Transaction restore = Transaction.newBuilder().setReadVersion(2).setUuid(UUID.randomUUID().toString())
        .setRestore(Transaction.Restore.newBuilder().setVersion(1)).build();
    assertRefused(service, restore, firstFile + " is not there");
    assertThat(versions()).containsExactly(1L, 2L);
  }

  @Test
  void withChecksOffAMissingFileIsCommittedWhichIsTheTradeTheSwitchDocuments() throws Exception {
    LaneCommitService service = service(false);
    commit(service, create(0, 10));
    Transaction append = append(1, 100, 5);
    Files.delete(tableDir.resolve("data").resolve(append.getAppend().getFragments(0).getFiles(0).getPath()));
    assertThat(commit(service, append).version()).isEqualTo(2);
    assertThatThrownBy(() -> lance.readIds(2)).isInstanceOf(RuntimeException.class);
  }

  /**
   * The cost, in store requests the checks add (the same commits with checks on and off): an append of one fragment,
   * one ranged read of its data file's tail, however many fragments the table already has (those are carried over and
   * not read again); a delete, one read of its new deletion file; an index build, one HEAD per file it lists; a
   * config change, none.
   */
  @Test
  void eachCommitReadsOnlyTheFilesItAdds() throws Exception {
    Map<String, Map<Call, Integer>> on = requestsPerCommit(true);
    Map<String, Map<Call, Integer>> off = requestsPerCommit(false);
    Map<String, Map<Call, Integer>> added = new java.util.LinkedHashMap<>();
    for (String commit : on.keySet()) {
      Map<Call, Integer> delta = new EnumMap<>(Call.class);
      for (Call call : Call.values()) {
        int d = on.get(commit).get(call) - off.get(commit).get(call);
        if (d != 0) {
          delta.put(call, d);
        }
      }
      added.put(commit, delta);
    }
    System.out.println("store requests the file checks add per commit: " + added);
    assertThat(added.get("append, 11th version")).isEqualTo(Map.of(Call.GET_TAIL, 1));
    assertThat(added.get("delete of rows in one fragment")).isEqualTo(Map.of(Call.GET, 1));
    assertThat(added.get("index build listing 2 files")).isEqualTo(Map.of(Call.HEAD, 2));
    assertThat(added.get("config change")).isEmpty();
  }

  /** Requests (by kind) of a few commits on a table of ten versions, checks on or off. */
  private Map<String, Map<Call, Integer>> requestsPerCommit(boolean verify) throws Exception {
    String key = "wh/ns/cost-" + verify + ".lance";
    FaultInjectingObjectStore counting = new FaultInjectingObjectStore(new LocalObjectStore(root));
    StorageLocation location = new StorageLocation(counting, key);
    LaneCommitService service = new LaneCommitService(l -> location, new CommitSettings(100, 5, 3, 64,
        WriterVersions.coordinator(), "2.1", ManifestNaming.Scheme.V2).withVerifyFiles(verify),
        new CommitLaneTest.RecordingPublisher(), executor, Clock.systemUTC(), Duration.ofMinutes(10));
    TableRef costRef = new TableRef(List.of("ns", "cost" + verify), location.uri(), UUID.randomUUID().toString());
    Map<String, Map<Call, Integer>> requests = new java.util.LinkedHashMap<>();
    try (LanceTables costTable = LanceTables.local(root.resolve(key))) {
      commit(service, costRef, TransactionFactory.create(LanceProtos.schema(LanceTables.ROW_SCHEMA),
          LanceProtos.fragments(costTable.writeRows(0, 10))));
      for (int i = 1; i < 10; i++) {
        commit(service, costRef, TransactionFactory.append(i, LanceProtos.fragments(costTable.writeRows(i * 100, 5))));
      }
      Path hint = root.resolve(key).resolve("_versions/latest_version_hint.json");
      awaitHint(hint, 10);
      Transaction append = TransactionFactory.append(10, LanceProtos.fragments(costTable.writeRows(1000, 5)));
      requests.put("append, 11th version", requestsOf(counting, hint, () -> commit(service, costRef, append)));

      DataFragment withDeletions;
      try (Dataset ds = costTable.open(11)) {
        withDeletions = LanceProtos.fragment(ds.getFragment(3).deleteRows(List.of(0, 1)));
      }
      Transaction delete = TransactionFactory.delete(11, List.of(withDeletions), List.of());
      requests.put("delete of rows in one fragment", requestsOf(counting, hint, () -> commit(service, costRef, delete)));

      IndexMetadata index = TestIndexes.btreeIndex("id_idx", List.of(0), 12, List.of(0, 1)).toBuilder()
          .addFiles(IndexFile.newBuilder().setPath("page_lookup.lance").setSizeBytes(3))
          .addFiles(IndexFile.newBuilder().setPath("page_data.lance").setSizeBytes(5)).build();
      counting.delegate().put(location.key("_indices/" + uuid(index) + "/page_lookup.lance"), new byte[3]);
      counting.delegate().put(location.key("_indices/" + uuid(index) + "/page_data.lance"), new byte[5]);
      Transaction createIndex = TransactionFactory.createIndex(12, List.of(index), List.of());
      requests.put("index build listing 2 files", requestsOf(counting, hint, () -> commit(service, costRef, createIndex)));

      Transaction config = TransactionFactory.updateConfig(13, Map.of("k", "v"), List.of());
      requests.put("config change", requestsOf(counting, hint, () -> commit(service, costRef, config)));
    }
    return requests;
  }

  /** The requests of one commit, the version hint it moves after its answer included. */
  private static Map<Call, Integer> requestsOf(FaultInjectingObjectStore counting, Path hint,
      java.util.function.Supplier<CommitResult> commit) {
    Map<Call, Integer> before = counts(counting);
    awaitHint(hint, commit.get().version());
    Map<Call, Integer> after = counts(counting);
    Map<Call, Integer> delta = new EnumMap<>(Call.class);
    for (Call call : Call.values()) {
      delta.put(call, after.get(call) - before.get(call));
    }
    return delta;
  }

  private static void awaitHint(Path hint, long version) {
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(hint)
        && Files.readString(hint).contains("\"version\":" + version + "}"));
  }

  private static Map<Call, Integer> counts(FaultInjectingObjectStore counting) {
    Map<Call, Integer> counts = new EnumMap<>(Call.class);
    for (Call call : Call.values()) {
      counts.put(call, counting.calls(call));
    }
    return counts;
  }

  private void assertRefused(LaneCommitService service, Transaction txn, String reason) {
    assertThatThrownBy(() -> commit(service, txn)).isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining(reason);
  }

  private static Transaction withFragment(Transaction append, UnaryOperator<DataFragment.Builder> change) {
    Transaction.Builder b = append.toBuilder().setUuid(UUID.randomUUID().toString());
    b.getAppendBuilder().setFragments(0, change.apply(append.getAppend().getFragments(0).toBuilder()));
    return b.build();
  }

  private Transaction create(long firstId, int count) {
    return TransactionFactory.create(LanceProtos.schema(LanceTables.ROW_SCHEMA),
        LanceProtos.fragments(lance.writeRows(firstId, count)));
  }

  private Transaction append(long readVersion, long firstId, int count) {
    return TransactionFactory.append(readVersion, LanceProtos.fragments(lance.writeRows(firstId, count)));
  }

  private List<Long> versions() {
    return TableOperations.of(new StorageLocation(store.delegate(), TABLE_KEY)).versions().versions();
  }

  private CommitResult commit(LaneCommitService service, Transaction txn) {
    return commit(service, ref, txn);
  }

  private static CommitResult commit(LaneCommitService service, TableRef table, Transaction txn) {
    try {
      return service.commit(table, new CommitRequest(txn.toByteArray(), Optional.empty(), true, "tester"))
          .get(60, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new CompletionException(e.getCause());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static String uuid(IndexMetadata index) {
    ByteString bytes = index.getUuid().getUuid();
    java.nio.ByteBuffer buffer = bytes.asReadOnlyByteBuffer();
    return new UUID(buffer.getLong(), buffer.getLong()).toString();
  }
}
