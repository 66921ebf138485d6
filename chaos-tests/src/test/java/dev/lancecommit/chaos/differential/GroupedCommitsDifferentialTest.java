package dev.lancecommit.chaos.differential;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.coordinator.commit.CommitEventSink;
import dev.lancecommit.coordinator.commit.CommitRequest;
import dev.lancecommit.coordinator.commit.CommitResult;
import dev.lancecommit.coordinator.commit.CommitSettings;
import dev.lancecommit.coordinator.commit.LaneCommitService;
import dev.lancecommit.coordinator.storage.LocalObjectStore;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.WriterVersions;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.group.GroupMembers;
import dev.lancecommit.testing.FaultInjectingObjectStore;
import dev.lancecommit.testing.FaultInjectingObjectStore.Call;
import dev.lancecommit.testing.FaultInjectingObjectStore.Hold;
import dev.lancecommit.testing.GatedExecutor;
import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.testing.lance.LanceTables;
import dev.lancecommit.client.lance.TransactionFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

/**
 * Group commits read by stock Lance: writers build their transactions with Lance on one read version (appends, and
 * upserts and deletes of disjoint rows of one fragment), the coordinator commits the ones that wait behind a write
 * as one version, and stock Lance must read exactly the union of the members' rows there, read every earlier
 * version as before, and commit on top of it with its own commit loop.
 *
 * <p>Grouping is forced by holding the manifest write of the version before ({@link FaultInjectingObjectStore}) and
 * gating the lane's executor while the members are submitted.
 */
class GroupedCommitsDifferentialTest {
  private static final int ROWS = 100;
  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir Path work;
  private FaultInjectingObjectStore store;
  private ExecutorService pool;
  private GatedExecutor lanes;
  private LaneCommitService service;
  private LanceTables lance;
  private TableRef ref;
  private String tableKey;
  private ManifestNaming.Scheme scheme;

  @BeforeEach
  void setUp() {
    store = new FaultInjectingObjectStore(new LocalObjectStore(work));
    pool = Executors.newFixedThreadPool(4);
    lanes = new GatedExecutor(pool);
    Path dir = work.resolve("wh/grouped.lance");
    tableKey = work.relativize(dir).toString();
    lance = LanceTables.local(dir);
    lance.createWithLance(0, ROWS); // version 1, written by stock Lance: rows 0..99 in fragment 0
    scheme = TableOperations.of(new StorageLocation(store.delegate(), tableKey)).versions().scheme().orElseThrow();
    ref = new TableRef(List.of("ns", "grouped"), dir.toString(), UUID.randomUUID().toString());
    service = new LaneCommitService(location -> new StorageLocation(store, tableKey),
        new CommitSettings(1000, 20, 3, 64, WriterVersions.coordinator(), "2.1", ManifestNaming.Scheme.V2),
        CommitEventSink.discard(), lanes, Clock.systemUTC(), Duration.ofMinutes(10));
  }

  @AfterEach
  void tearDown() throws Exception {
    store.clearFaults();
    lanes.open();
    pool.shutdownNow();
    pool.awaitTermination(10, TimeUnit.SECONDS);
    lance.close();
  }

  @Test
  void groupedAppendsReadAsTheUnionOfTheirRowsAndLanceCommitsOnTop() throws Exception {
    List<CompletableFuture<CommitResult>> grouped = behindAWrite(1, 8, i -> {
      long first = ROWS + 10L * (i + 1);
      return new Member(TransactionFactory.append(1, LanceProtos.fragments(lance.writeRows(first, 10))), null);
    }, TransactionFactory.append(1, LanceProtos.fragments(lance.writeRows(ROWS, 10))));

    for (CompletableFuture<CommitResult> answer : grouped) {
      assertThat(answer.get(60, TimeUnit.SECONDS)).satisfies(r -> {
        assertThat(r.version()).isEqualTo(3);
        assertThat(r.groupSize()).isEqualTo(8);
      });
    }
    assertThat(lance.versions()).containsExactly(1L, 2L, 3L);
    assertThat(rows(1)).isEqualTo(expected(0, ROWS, Map.of()));
    assertThat(rows(2)).isEqualTo(expected(0, ROWS + 10, Map.of()));
    assertThat(rows(3)).as("exactly the union of the members' rows").isEqualTo(expected(0, ROWS + 90, Map.of()));
    assertThat(GroupMembers.of(recordedAt(3))).hasSize(8);

    // stock Lance's own commit loop reads the group's transaction and commits on top of it
    long next = lance.commitAppendWithLance(3, lance.writeRows(ROWS + 90, 5));
    assertThat(next).isEqualTo(4);
    assertThat(rows(4)).isEqualTo(expected(0, ROWS + 95, Map.of()));
  }

  @Test
  void groupedUpsertsOfDisjointKeysInOneFragmentReadAsEveryUpsert() throws Exception {
    Map<Long, String> upserted = new TreeMap<>();
    List<CompletableFuture<CommitResult>> grouped = behindAWrite(1, 6, i -> {
      List<Integer> offsets = List.of(10 + 3 * i, 11 + 3 * i);
      offsets.forEach(o -> upserted.put((long) o, "u" + o));
      return upsert(1, offsets);
    }, upsert(1, List.of(90, 91)).transaction());
    upserted.put(90L, "u90");
    upserted.put(91L, "u91");

    for (CompletableFuture<CommitResult> answer : grouped) {
      assertThat(answer.get(60, TimeUnit.SECONDS)).satisfies(r -> {
        assertThat(r.version()).isEqualTo(3);
        assertThat(r.groupSize()).isEqualTo(6);
        assertThat(r.operation()).isEqualTo("Update");
      });
    }
    assertThat(lance.versions()).containsExactly(1L, 2L, 3L);
    assertThat(rows(3)).as("each key once, with its upserted value").isEqualTo(expected(0, ROWS, upserted));
    Map<Long, String> atTwo = new TreeMap<>(Map.of(90L, "u90", 91L, "u91"));
    assertThat(rows(2)).isEqualTo(expected(0, ROWS, atTwo));
    assertThat(recordedAt(3).getUpdate().getNewFragmentsCount()).isEqualTo(6);
    assertThat(lance.commitAppendWithLance(3, lance.writeRows(ROWS, 5))).isEqualTo(4);
    assertThat(rows(4)).hasSize(ROWS + 5);
  }

  @Test
  void groupedDeletesOfDisjointRowsReadAsEveryDeletion() throws Exception {
    List<Long> deleted = new ArrayList<>(List.of(50L, 51L));
    List<CompletableFuture<CommitResult>> grouped = behindAWrite(1, 5, i -> {
      List<Integer> offsets = List.of(4 * i, 4 * i + 1);
      offsets.forEach(o -> deleted.add((long) o));
      return delete(1, offsets);
    }, delete(1, List.of(50, 51)).transaction());

    for (CompletableFuture<CommitResult> answer : grouped) {
      assertThat(answer.get(60, TimeUnit.SECONDS).version()).isEqualTo(3);
    }
    Map<Long, String> left = expected(0, ROWS, Map.of());
    deleted.forEach(left::remove);
    assertThat(rows(3)).isEqualTo(left);
    assertThat(lance.countRows(3)).isEqualTo(ROWS - 12);
  }

  // ------------------------------------------------------------------------------------------------ helpers

  private record Member(Transaction transaction, byte[] affectedRows) {}

  private interface MemberFactory {
    Member make(int index);
  }

  /**
   * Commits {@code first} (from {@code readVersion}) and holds its manifest write; meanwhile builds and submits
   * {@code count} members, then lets everything go. Returns the members' answers.
   */
  private List<CompletableFuture<CommitResult>> behindAWrite(long readVersion, int count, MemberFactory members,
      Transaction first) throws Exception {
    StorageLocation table = new StorageLocation(store, tableKey);
    Hold hold = store.holdNext(Call.PUT_IF_ABSENT,
        table.key(ManifestNaming.path(scheme, readVersion + 1))::equals);
    CompletableFuture<CommitResult> firstAnswer = submit(new Member(first, affectedOf(first)));
    assertThat(hold.awaitHeld(WAIT)).isTrue();
    List<Member> built = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      built.add(members.make(i));
    }
    lanes.close();
    List<CompletableFuture<CommitResult>> answers = new ArrayList<>();
    built.forEach(m -> answers.add(submit(m)));
    lanes.open();
    hold.release();
    assertThat(firstAnswer.get(60, TimeUnit.SECONDS).version()).isEqualTo(readVersion + 1);
    return answers;
  }

  private final Map<String, byte[]> affected = new HashMap<>();

  private byte[] affectedOf(Transaction txn) {
    return affected.get(txn.getUuid());
  }

  private CompletableFuture<CommitResult> submit(Member member) {
    return service.commit(ref, new CommitRequest(member.transaction().toByteArray(),
        Optional.ofNullable(member.affectedRows()), true, "writer"));
  }

  /** Lance's delete of rows of fragment 0 at {@code readVersion}, with its row addresses. */
  private Member delete(long readVersion, List<Integer> offsets) {
    try (Dataset ds = lance.open(readVersion)) {
      FragmentMetadata updated = ds.getFragment(0).deleteRows(offsets);
      Transaction txn = TransactionFactory.delete(readVersion, List.of(LanceProtos.fragment(updated)), List.of(),
          "_rowoffset IN " + offsets);
      return remember(txn, offsets);
    }
  }

  /** An upsert of rows of fragment 0: Lance deletes them there and writes them again with value "u" + id. */
  private Member upsert(long readVersion, List<Integer> offsets) {
    try (Dataset ds = lance.open(readVersion)) {
      FragmentMetadata updated = ds.getFragment(0).deleteRows(offsets);
      List<DataFragment> rewritten = LanceProtos.fragments(writeUpserted(offsets));
      Transaction txn = Transaction.newBuilder()
          .setReadVersion(readVersion)
          .setUuid(TransactionFactory.newUuid())
          .setUpdate(Transaction.Update.newBuilder()
              .addUpdatedFragments(LanceProtos.fragment(updated))
              .addAllNewFragments(rewritten)
              .setUpdateMode(Transaction.UpdateMode.REWRITE_ROWS))
          .build();
      return remember(txn, offsets);
    }
  }

  private Member remember(Transaction txn, List<Integer> offsets) {
    Roaring64NavigableMap rows = new Roaring64NavigableMap();
    offsets.forEach(o -> rows.addLong(RowAddresses.of(0, o)));
    byte[] portable = RowAddresses.portable(rows);
    affected.put(txn.getUuid(), portable);
    return new Member(txn, portable);
  }

  /** Rows with ids = the offsets (fragment 0 holds ids 0..99 in order) and value "u" + id, as uncommitted files. */
  private List<FragmentMetadata> writeUpserted(List<Integer> ids) {
    try (VectorSchemaRoot root = VectorSchemaRoot.create(LanceTables.ROW_SCHEMA, lance.allocator())) {
      BigIntVector idVector = (BigIntVector) root.getVector("id");
      VarCharVector values = (VarCharVector) root.getVector("value");
      idVector.allocateNew(ids.size());
      values.allocateNew(ids.size());
      for (int i = 0; i < ids.size(); i++) {
        idVector.setSafe(i, ids.get(i));
        values.setSafe(i, ("u" + ids.get(i)).getBytes(StandardCharsets.UTF_8));
      }
      root.setRowCount(ids.size());
      return Fragment.write().datasetUri(lance.uri()).allocator(lance.allocator()).data(root).execute();
    }
  }

  /** Id -> value of every row stock Lance reads at {@code version}; a duplicated id fails. */
  private Map<Long, String> rows(long version) {
    List<Long> ids = lance.readIds(version);
    List<Object> values = lance.readColumn(version, "value");
    Map<Long, String> rows = new TreeMap<>();
    for (int i = 0; i < ids.size(); i++) {
      String previous = rows.put(ids.get(i), String.valueOf(values.get(i)));
      assertThat(previous).as("row %s read twice at version %s", ids.get(i), version).isNull();
    }
    return rows;
  }

  /** Rows {@code first .. first+count-1} with their test values, then the given values over them. */
  private static Map<Long, String> expected(long first, long count, Map<Long, String> overrides) {
    Map<Long, String> rows = new TreeMap<>();
    for (long id = first; id < first + count; id++) {
      rows.put(id, LanceTables.valueOf(id));
    }
    rows.putAll(overrides);
    return rows;
  }

  private Transaction recordedAt(long version) {
    TableOperations ops = TableOperations.of(new StorageLocation(store.delegate(), tableKey));
    return ops.transactionOf(ops.readManifest(version, scheme).orElseThrow());
  }
}
