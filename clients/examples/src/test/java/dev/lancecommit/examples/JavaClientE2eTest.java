package dev.lancecommit.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.client.CommitClient;
import dev.lancecommit.client.CommitRequest;
import dev.lancecommit.client.CommitResult;
import dev.lancecommit.client.IncompatibleConflictException;
import dev.lancecommit.client.InvalidInputException;
import dev.lancecommit.client.NamespaceNotFoundException;
import dev.lancecommit.client.RetryableConflictException;
import dev.lancecommit.client.TableAlreadyExistsException;
import dev.lancecommit.client.TableId;
import dev.lancecommit.client.TableInfo;
import dev.lancecommit.client.TableNotFoundException;
import dev.lancecommit.client.lance.LanceDeletes;
import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.lance.LanceTables;
import dev.lancecommit.testing.lance.StockLanceFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.FragmentMetadata;
import org.lance.WriteParams;
import org.lance.compaction.Compaction;
import org.lance.compaction.CompactionOptions;
import org.lance.compaction.CompactionPlan;
import org.lance.compaction.CompactionTask;
import org.lance.compaction.RewriteResult;
import org.lance.index.Index;
import org.lance.index.IndexOptions;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.ScalarIndexParams;

/**
 * The Java client against a real coordinator, writing data files with stock lance-core and reading every result back
 * with stock lance-core. Test rows are {@link LanceTables#ROW_SCHEMA}: {@code id}, {@code value = "v" + id}.
 */
class JavaClientE2eTest {
  @TempDir static Path dir;
  private static LocalCoordinator coordinator;
  private static CommitClient client;
  private static String namespace;

  @BeforeAll
  static void start() {
    coordinator = LocalCoordinator.start(dir.resolve("warehouse"));
    client = CommitClient.builder().uri(coordinator.url()).build();
    namespace = "java_" + UUID.randomUUID().toString().substring(0, 8);
    client.createNamespace(namespace);
  }

  @AfterAll
  static void stop() {
    client.close();
    coordinator.close();
  }

  /** Declares {@code name} and creates it with rows {@code 0..count-1} through the client. */
  private static TableInfo create(String name, int count, int rowsPerFile) {
    TableId id = TableId.of(namespace, name);
    TableInfo table = client.declareTable(id);
    try (LanceTables lance = LanceTables.at(table.location(), table.storageOptions())) {
      CommitResult created = client.createTable(id, lance.writeRows(0, count, rowsPerFile), LanceTables.ROW_SCHEMA);
      assertThat(created.version()).isEqualTo(1);
      assertThat(created.operation()).isEqualTo("Overwrite");
    }
    return table;
  }

  private static List<Long> ids(long from, long to) {
    return LongStream.range(from, to).boxed().toList();
  }

  @Test
  void createAppendDeleteOverwriteAndReadBackWithStockLance() {
    TableInfo table = create("orders", 10, 10);
    TableId id = table.id();
    assertThat(table.version()).isEmpty();
    try (LanceTables lance = LanceTables.at(table.location(), table.storageOptions())) {
      CommitResult appended = client.append(id, lance.writeRows(10, 5));
      assertThat(appended.version()).isEqualTo(2);
      assertThat(appended.readVersion()).isEqualTo(1);
      assertThat(appended.groupSize()).isEqualTo(1);
      try (org.lance.Dataset v1 = lance.open(1); org.lance.Dataset v2 = lance.open(2)) {
        List<Integer> before = v1.getFragments().stream().map(org.lance.Fragment::getId).toList();
        List<Long> added = v2.getFragments().stream().map(org.lance.Fragment::getId)
            .filter(fragmentId -> !before.contains(fragmentId)).map(Integer::longValue).toList();
        assertThat(added).isNotEmpty();
        assertThat(appended.newFragmentIds()).as("the ids stock Lance reads at version 2").isEqualTo(added);
      }
      CommitResult deleted = client.delete(id, "id % 2 = 0");
      assertThat(deleted.version()).isEqualTo(3);
      assertThat(deleted.operation()).isEqualTo("Delete");
      assertThat(lance.readIds(3)).containsExactlyInAnyOrderElementsOf(
          ids(0, 15).stream().filter(i -> i % 2 == 1).toList());
      assertThat(lance.readIds(2)).containsExactlyInAnyOrderElementsOf(ids(0, 15));

      assertThat(client.describeTable(id).version()).hasValue(3);
      CommitResult replaced = client.overwrite(id, lance.writeRows(100, 3), LanceTables.ROW_SCHEMA);
      assertThat(replaced.version()).isEqualTo(4);
      assertThat(replaced.readVersion()).isEqualTo(3);
      assertThat(lance.readIds(4)).containsExactly(100L, 101L, 102L);
      assertThat(lance.readColumn(4, "value")).containsExactly("v100", "v101", "v102");
      assertThat(lance.versions()).containsExactly(1L, 2L, 3L, 4L);
    }
  }

  @Test
  void theSchemaIsRecordedExactlyAsLanceRecordsIt() {
    Field f32 = new Field("item", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
        null);
    Schema schema = new Schema(List.of(
        new Field("id", new FieldType(false, new ArrowType.Int(64, true), null, Map.of("comment", "the key")), null),
        new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
        new Field("vec", FieldType.nullable(new ArrowType.FixedSizeList(4)), List.of(f32)),
        new Field("st", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(
            new Field("x", FieldType.nullable(new ArrowType.Int(32, true)), null))),
        new Field("ts", FieldType.nullable(new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")), null),
        new Field("day", FieldType.nullable(new ArrowType.Date(DateUnit.DAY)), null),
        new Field("dec", FieldType.nullable(new ArrowType.Decimal(10, 2, 128)), null)),
        Map.of("owner", "sales"));
    TableId id = TableId.of(namespace, "typed");
    TableInfo table = client.declareTable(id);
    client.createTable(id, List.of(), schema);
    Path stock = dir.resolve("stock-typed.lance");
    try (BufferAllocator allocator = new RootAllocator();
        Dataset ds = Dataset.create(allocator, stock.toString(), schema, new WriteParams.Builder().build())) {
      assertThat(ds.version()).isEqualTo(1);
    }
    Manifest ours = StockLanceFiles.manifest(Path.of(table.location()), 1);
    Manifest theirs = StockLanceFiles.manifest(stock, 1);
    assertThat(ours.getFieldsList()).isEqualTo(theirs.getFieldsList());
    assertThat(ours.getSchemaMetadataMap()).isEqualTo(theirs.getSchemaMetadataMap()).containsKey("owner");
  }

  @Test
  void concurrentAppendsAndDeletesFromManyThreads() throws Exception {
    TableInfo table = create("busy", 100, 100);
    int appenders = 6;
    int perAppender = 3;
    int deleters = 4;
    ExecutorService pool = Executors.newFixedThreadPool(appenders + deleters);
    List<Future<List<Long>>> results = new ArrayList<>();
    try (LanceTables lance = LanceTables.at(table.location(), table.storageOptions())) {
      for (int w = 0; w < appenders; w++) {
        int worker = w;
        results.add(pool.submit(() -> {
          List<Long> versions = new ArrayList<>();
          for (int k = 0; k < perAppender; k++) {
            long first = 1000 + (worker * perAppender + k) * 10L;
            versions.add(client.append(table.id(), lance.writeRows(first, 10)).version());
          }
          return versions;
        }));
      }
      for (int w = 0; w < deleters; w++) {
        int worker = w;
        // disjoint rows of one fragment: the coordinator merges the deletion vectors server-side
        results.add(pool.submit(() -> List.of(client.delete(table.id(),
            "id >= " + worker * 25 + " and id < " + (worker * 25 + 10)).version())));
      }
      List<Long> versions = new ArrayList<>();
      for (Future<List<Long>> f : results) {
        versions.addAll(f.get());
      }
      // Commits waiting together may share a version (group commit): every version after the create was answered
      // to at least one commit, none beyond the latest, and each writer's own commits got rising versions.
      long latest = lance.latestVersion();
      assertThat(latest).isBetween(2L, 1L + appenders * perAppender + deleters);
      assertThat(new java.util.TreeSet<>(versions)).containsExactlyElementsOf(ids(2, latest + 1));
      for (int w = 0; w < appenders; w++) {
        assertThat(results.get(w).get()).isSorted().doesNotHaveDuplicates();
      }
      List<Long> expected = new ArrayList<>(ids(0, 100).stream()
          .filter(i -> i % 25 >= 10).toList());
      expected.addAll(ids(1000, 1000 + appenders * perAppender * 10L));
      assertThat(lance.readIds(latest)).containsExactlyInAnyOrderElementsOf(expected);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void anAppendAnswered409_14IsRebuiltOnTheConflictingVersion() {
    TableInfo table = create("projected", 10, 10);
    try (LanceTables lance = LanceTables.at(table.location(), table.storageOptions())) {
      Transaction stale = TransactionFactory.append(1, LanceProtos.fragments(lance.writeRows(10, 5)));
      // a Project (the same schema, not preserving nullability) makes appends built before it retryable (409/14)
      Transaction project = Transaction.newBuilder().setReadVersion(1).setUuid(TransactionFactory.newUuid())
          .setProject(Transaction.Project.newBuilder().addAllSchema(LanceProtos.schema(LanceTables.ROW_SCHEMA)))
          .build();
      assertThat(client.commit(table.id(), project.toByteArray()).version()).isEqualTo(2);

      CommitResult result = client.commit(table.id(), stale.toByteArray());
      assertThat(result.version()).isEqualTo(3);
      assertThat(result.readVersion()).isEqualTo(2);
      assertThat(result.transactionUuid()).isEqualTo(stale.getUuid());
      assertThat(lance.readIds(3)).containsExactlyInAnyOrderElementsOf(ids(0, 15));
    }
  }

  @Test
  void otherRetryableConflictsNameTheVersionAndCanBeRebuilt() {
    TableInfo table = create("deletes", 10, 10);
    try (LanceTables lance = LanceTables.at(table.location(), table.storageOptions())) {
      CommitRequest first;
      CommitRequest second;
      try (Dataset v1 = lance.open(1)) {
        first = LanceDeletes.delete(v1, "id < 5");
        second = LanceDeletes.delete(v1, "id < 3");
      }
      assertThat(client.commit(table.id(), first).version()).isEqualTo(2);
      assertThatThrownBy(() -> client.commit(table.id(), second))
          .isInstanceOfSatisfying(RetryableConflictException.class, e -> {
            assertThat(e.httpStatus()).isEqualTo(409);
            assertThat(e.code()).isEqualTo(14);
            assertThat(e.conflictingVersion()).hasValue(2);
            assertThat(e.conflictingOperation()).isEqualTo("Delete");
          });

      List<Long> calls = new ArrayList<>();
      CommitResult rebuilt = client.commit(table.id(), 1, readVersion -> {
        calls.add(readVersion);
        try (Dataset ds = lance.open(readVersion)) {
          return LanceDeletes.delete(ds, "id < 3");
        }
      });
      assertThat(calls).containsExactly(1L, 2L);
      assertThat(rebuilt.version()).isEqualTo(3);
      assertThat(lance.readIds(3)).containsExactlyInAnyOrderElementsOf(ids(5, 10));
    }
  }

  @Test
  void incompatibleConflictsAndRefusalsAreDefinite() {
    TableInfo table = create("refusals", 10, 10);
    try (LanceTables lance = LanceTables.at(table.location(), table.storageOptions())) {
      Transaction staleAppend = TransactionFactory.append(1, LanceProtos.fragments(lance.writeRows(10, 1)));
      client.overwrite(table.id(), lance.writeRows(50, 2), LanceTables.ROW_SCHEMA);
      assertThatThrownBy(() -> client.commit(table.id(), staleAppend.toByteArray()))
          .isInstanceOfSatisfying(IncompatibleConflictException.class, e -> {
            assertThat(e.code()).isEqualTo(19);
            assertThat(e.conflictingVersion()).hasValue(2);
            assertThat(e.conflictingOperation()).isEqualTo("Overwrite");
          });
      assertThatThrownBy(() -> client.declareTable(table.id()))
          .isInstanceOfSatisfying(TableAlreadyExistsException.class, e -> assertThat(e.code()).isEqualTo(5));
      assertThatThrownBy(() -> client.append(TableId.of(namespace, "missing"), List.of()))
          .isInstanceOf(TableNotFoundException.class);
      assertThatThrownBy(() -> client.declareTable(TableId.of("no_such_" + namespace, "t")))
          .isInstanceOf(NamespaceNotFoundException.class);
      Transaction outside = TransactionFactory.append(2, LanceProtos.fragments(lance.writeRows(0, 1)));
      Transaction escaping = outside.toBuilder().setAppend(outside.getAppend().toBuilder().setFragments(0,
          outside.getAppend().getFragments(0).toBuilder().setFiles(0,
              outside.getAppend().getFragments(0).getFiles(0).toBuilder().setPath("../../elsewhere.lance")))).build();
      assertThatThrownBy(() -> client.commit(table.id(), escaping.toByteArray()))
          .isInstanceOfSatisfying(InvalidInputException.class, e -> {
            assertThat(e.httpStatus()).isEqualTo(400);
            assertThat(e.code()).isEqualTo(13);
          });
      assertThatThrownBy(() -> client.commit(table.id(), new byte[] {(byte) 0xff, (byte) 0xff, 1}))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a Lance Transaction");
      assertThat(lance.readIds(lance.latestVersion())).containsExactly(50L, 51L);
    }
  }

  @Test
  void compactionDoneWithLanceIsCommittedAsARewrite() {
    TableInfo table = create("compacted", 40, 10);
    try (LanceTables lance = LanceTables.at(table.location(), table.storageOptions())) {
      client.delete(table.id(), "id < 5");
      List<RewriteResult> rewritten = new ArrayList<>();
      try (Dataset v2 = lance.open(2)) {
        CompactionPlan plan = Compaction.planCompaction(v2, CompactionOptions.builder()
            .withTargetRowsPerFragment(1000).build());
        assertThat(plan.getCompactionTasks()).isNotEmpty();
        for (CompactionTask task : plan.getCompactionTasks()) {
          rewritten.add(task.execute(v2));
        }
      }
      CommitResult compacted = client.compact(table.id(), rewritten.toArray(RewriteResult[]::new));
      assertThat(compacted.version()).isEqualTo(3);
      assertThat(compacted.operation()).isEqualTo("Rewrite");
      assertThat(StockLanceFiles.manifest(Path.of(table.location()), 3).getFragmentsCount()).isEqualTo(1);
      assertThat(lance.readIds(3)).containsExactlyInAnyOrderElementsOf(ids(5, 40));
      assertThat(lance.readColumn(3, "value")).contains("v5", "v39");
    }
  }

  @Test
  void indexSegmentsBuiltWithLanceAreCommittedAsCreateIndex() {
    TableInfo table = create("indexed", 30, 10);
    try (LanceTables lance = LanceTables.at(table.location(), table.storageOptions())) {
      String uuid = UUID.randomUUID().toString();
      Index built;
      try (Dataset v1 = lance.open(1)) {
        IndexParams params = IndexParams.builder().setScalarIndexParams(ScalarIndexParams.create("btree")).build();
        built = v1.createIndex(IndexOptions.builder(List.of("id"), IndexType.BTREE, params)
            .withIndexName("id_idx").withFragmentIds(List.of(0, 1, 2)).withIndexUUID(uuid).build());
        v1.mergeIndexMetadata(uuid, IndexType.BTREE, Optional.empty());
        assertThat(v1.getIndexes()).as("building a segment does not commit it").isEmpty();
      }
      CommitResult indexed = client.createIndex(table.id(), List.of(built), List.of());
      assertThat(indexed.version()).isEqualTo(2);
      assertThat(indexed.operation()).isEqualTo("CreateIndex");
      try (Dataset v2 = lance.open(2)) {
        assertThat(v2.getIndexes()).extracting(Index::name).containsExactly("id_idx");
        assertThat(v2.getIndexes().get(0).uuid().toString()).isEqualTo(uuid);
        assertThat(v2.getIndexes().get(0).fragments()).hasValue(List.of(0, 1, 2));
      }
      assertThat(lance.readIds(2)).containsExactlyInAnyOrderElementsOf(ids(0, 30));
    }
  }
}
