package dev.lancecommit.client.lance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.RowIdSequence;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.lance.LanceTables;
import dev.lancecommit.testing.lance.StockLanceFiles;
import dev.lancecommit.testing.lance.TestIndexes;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.WriteParams;
import org.lance.compaction.Compaction;
import org.lance.compaction.CompactionOptions;
import org.lance.compaction.CompactionTask;
import org.lance.compaction.RewriteResult;
import org.lance.index.Index;
import org.lance.index.IndexOptions;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.ScalarIndexParams;
import org.lance.operation.CreateIndex;
import org.lance.operation.Delete;
import org.lance.operation.Overwrite;
import org.lance.operation.ReserveFragments;
import org.lance.operation.Rewrite;
import org.lance.operation.RewriteGroup;
import org.lance.operation.UpdateConfig;
import org.lance.operation.UpdateMap;

/**
 * Commits through stock lance-core, reads back the {@code .txn} files and manifests it wrote with our protobufs, and
 * checks that converting the same Java objects with {@link LanceProtos} / {@link TransactionFactory} gives exactly the
 * same messages (the uuid is copied over; ids that Lance assigned at commit are the only other difference allowed).
 */
class LanceProtosTest {

  @TempDir
  Path dir;

  @Test
  void createAndAppendTransactionsEqualWhatLanceWrites() {
    Path table = dir.resolve("t.lance");
    try (LanceTables lance = LanceTables.local(table)) {
      List<FragmentMetadata> first = lance.writeRows(0, 10, 4);
      assertThat(first).hasSize(3);
      assertThat(commit(lance, 0, overwrite(first, LanceTables.ROW_SCHEMA))).isEqualTo(1);
      List<FragmentMetadata> second = lance.writeRows(10, 5);
      assertThat(lance.commitAppendWithLance(1, second)).isEqualTo(2);

      Transaction stockCreate = StockLanceFiles.transaction(table, 0);
      Transaction ours = TransactionFactory.create(
          LanceProtos.schema(LanceTables.ROW_SCHEMA), LanceProtos.fragments(first));
      assertThat(withUuid(ours, stockCreate)).isEqualTo(stockCreate);

      Transaction stockAppend = StockLanceFiles.transaction(table, 1);
      assertThat(withUuid(TransactionFactory.append(1, LanceProtos.fragments(second)), stockAppend))
          .isEqualTo(stockAppend);

      // The manifest carries the same fragments with the ids Lance assigned, in commit order.
      Manifest v2 = StockLanceFiles.manifest(table, 2);
      List<DataFragment> expected = new ArrayList<>();
      List<FragmentMetadata> all = new ArrayList<>(first);
      all.addAll(second);
      for (int i = 0; i < all.size(); i++) {
        expected.add(TransactionFactory.withId(LanceProtos.fragment(all.get(i)), i));
      }
      assertThat(v2.getFragmentsList()).isEqualTo(expected);
      assertThat(lance.readIds(2)).containsExactlyInAnyOrderElementsOf(range(0, 15));
    }
  }

  @Test
  void deletionFilesAndStableRowIdsConvertExactly() {
    Path table = dir.resolve("rowids.lance");
    String uri = table.toString();
    try (BufferAllocator alloc = new RootAllocator()) {
      List<FragmentMetadata> written;
      try (VectorSchemaRoot rows = LanceTables.rows(alloc, 0, 20)) {
        written = Fragment.write().datasetUri(uri).allocator(alloc).data(rows).maxRowsPerFile(10)
            .enableStableRowIds(true).execute();
      }
      try (org.lance.Transaction txn = new org.lance.Transaction(0, overwrite(written, LanceTables.ROW_SCHEMA));
          Dataset v1 = new CommitBuilder(uri, alloc).useStableRowIds(true).execute(txn)) {
        List<FragmentMetadata> committed = v1.getFragments().stream().map(Fragment::metadata).toList();
        assertThat(committed).allSatisfy(f -> assertThat(f.getRowIdMeta()).isNotNull());

        // The manifest's fragments, row id sequences and version sequences included, equal our conversion.
        Manifest m1 = StockLanceFiles.manifest(table, 1);
        assertThat(m1.getFragmentsList()).isEqualTo(LanceProtos.fragments(committed));
        RowIdSequence secondIds = RowIdSequence.parseFrom(m1.getFragments(1).getInlineRowIds());
        assertThat(secondIds.getSegments(0).getRange().getStart()).isEqualTo(10);
        assertThat(secondIds.getSegments(0).getRange().getEnd()).isEqualTo(20);

        FragmentMetadata withDeletions = v1.getFragment(1).deleteRows(List.of(0, 3, 7));
        assertThat(withDeletions.getDeletionFile()).isNotNull();
        try (org.lance.Transaction del = new org.lance.Transaction(1, Delete.builder()
                .updatedFragments(List.of(withDeletions)).deletedFragmentIds(List.of(0L)).predicate("id < 3")
                .build());
            Dataset v2 = new CommitBuilder(v1).execute(del)) {
          assertThat(v2.countRows()).isEqualTo(7);
        }
        Transaction stockDelete = StockLanceFiles.transaction(table, 1);
        Transaction ours = TransactionFactory.delete(
            1, List.of(LanceProtos.fragment(withDeletions)), List.of(0L), "id < 3");
        assertThat(withUuid(ours, stockDelete)).isEqualTo(stockDelete);
        assertThat(stockDelete.getDelete().getUpdatedFragments(0).getDeletionFile().getNumDeletedRows())
            .isEqualTo(3);
      }
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void schemaFieldsEqualWhatLanceWritesForCommonTypes() {
    Field f32 = new Field("item", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)),
        null);
    Schema schema = new Schema(List.of(
        new Field("i32", FieldType.notNullable(new ArrowType.Int(32, true)), null),
        new Field("i64", FieldType.nullable(new ArrowType.Int(64, true)), null),
        new Field("f", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null),
        new Field("d", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null),
        new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
        new Field("ls", FieldType.nullable(ArrowType.LargeUtf8.INSTANCE), null),
        new Field("b", FieldType.nullable(ArrowType.Bool.INSTANCE), null),
        new Field("bin", new FieldType(true, ArrowType.Binary.INSTANCE, null, Map.of("note", "bytes")), null),
        new Field("vec", FieldType.nullable(new ArrowType.FixedSizeList(8)), List.of(f32)),
        new Field("st", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(
            new Field("x", FieldType.nullable(new ArrowType.Int(32, true)), null),
            new Field("y", FieldType.nullable(ArrowType.Utf8.INSTANCE), null))),
        new Field("l", FieldType.nullable(ArrowType.List.INSTANCE),
            List.of(new Field("item", FieldType.nullable(new ArrowType.Int(64, true)), null))),
        new Field("ts", FieldType.nullable(new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")), null),
        new Field("ts_local", FieldType.nullable(new ArrowType.Timestamp(TimeUnit.MILLISECOND, null)), null),
        new Field("ll", FieldType.nullable(ArrowType.LargeList.INSTANCE), List.of(
            new Field("item", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(
                new Field("z", FieldType.nullable(new ArrowType.Int(8, false)), null))))),
        new Field("day", FieldType.nullable(new ArrowType.Date(DateUnit.DAY)), null),
        new Field("dec", FieldType.nullable(new ArrowType.Decimal(10, 2, 128)), null),
        new Field("h", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.HALF)), null)));
    Path table = dir.resolve("types.lance");
    try (BufferAllocator alloc = new RootAllocator();
        Dataset ds = Dataset.create(alloc, table.toString(), schema, new WriteParams.Builder().build())) {
      List<dev.lancecommit.format.pb.Field> ours = LanceProtos.schema(schema);
      assertThat(ours).isEqualTo(StockLanceFiles.transaction(table, 0).getOverwrite().getSchemaList());
      assertThat(ours).isEqualTo(StockLanceFiles.manifest(table, 1).getFieldsList());
      // And Lance's own view of the ids agrees (a struct's children follow it; fixed-size lists have none).
      assertThat(ours.stream().filter(f -> f.getName().equals("x")).findFirst().orElseThrow().getParentId())
          .isEqualTo(ds.getLanceSchema().fields().get(9).getId());
      assertThat(ours).hasSize(22);
    }
  }

  @Test
  void reserveRewriteAndConfigTransactionsEqualWhatLanceWrites() {
    Path table = dir.resolve("ops.lance");
    try (LanceTables lance = LanceTables.local(table)) {
      List<FragmentMetadata> first = lance.writeRows(0, 6, 3);
      assertThat(commit(lance, 0, overwrite(first, LanceTables.ROW_SCHEMA))).isEqualTo(1);
      assertThat(lance.commitWithLance(1, ReserveFragments.builder().numFragments(4).build())).isEqualTo(2);
      UpdateMap upserts = UpdateMap.builder().updates(Map.of("b.key", "2", "a.key", "1")).replace(false).build();
      assertThat(lance.commitWithLance(2, UpdateConfig.builder().configUpdates(upserts).build())).isEqualTo(3);
      try (Dataset v3 = lance.open(3)) {
        v3.deleteConfigKeys(Set.of("a.key"));
      }
      List<FragmentMetadata> old;
      try (Dataset v4 = lance.open(4)) {
        old = v4.getFragments().stream().map(Fragment::metadata).toList();
      }
      List<FragmentMetadata> compacted = lance.writeRows(0, 6);
      RewriteGroup group = RewriteGroup.builder().oldFragments(old).newFragments(compacted).build();
      assertThat(lance.commitWithLance(4, Rewrite.builder().groups(List.of(group)).build())).isEqualTo(5);

      Transaction reserve = StockLanceFiles.transaction(table, 1);
      assertThat(withUuid(TransactionFactory.reserve(1, 4), reserve)).isEqualTo(reserve);
      Transaction upsert = StockLanceFiles.transaction(table, 2);
      // Entry order follows the writer's map iteration order and carries no meaning.
      assertThat(sortedConfigEntries(withUuid(
          TransactionFactory.updateConfig(2, Map.of("a.key", "1", "b.key", "2"), List.of()), upsert)))
          .isEqualTo(sortedConfigEntries(upsert));
      Transaction delete = StockLanceFiles.transaction(table, 3);
      assertThat(withUuid(TransactionFactory.updateConfig(3, Map.of(), List.of("a.key")), delete)).isEqualTo(delete);
      Transaction rewrite = StockLanceFiles.transaction(table, 4);
      assertThat(withUuid(TransactionFactory.rewrite(
          4, LanceProtos.fragments(old), LanceProtos.fragments(compacted)), rewrite)).isEqualTo(rewrite);
      assertThat(rewrite.getRewrite().getGroups(0).getOldFragmentsList())
          .extracting(DataFragment::getId).containsExactly(0L, 1L);

      try (Dataset v5 = lance.open(5)) {
        assertThat(v5.getConfig()).containsEntry("b.key", "2").doesNotContainKey("a.key");
        assertThat(v5.countRows()).isEqualTo(6);
      }
    }
  }

  @Test
  void indexBitmapAndUuidEncodeLikeLance() {
    Path table = dir.resolve("idx.lance");
    try (LanceTables lance = LanceTables.local(table)) {
      assertThat(commit(lance, 0, overwrite(lance.writeRows(0, 9, 3), LanceTables.ROW_SCHEMA))).isEqualTo(1);
      Index index;
      try (Dataset v1 = lance.open(1)) {
        v1.createIndex(List.of("id"), IndexType.BTREE, Optional.of("id_idx"),
            IndexParams.builder().setScalarIndexParams(ScalarIndexParams.create("btree")).build(), true);
        index = v1.getIndexes().get(0);
      }
      IndexMetadata stock = StockLanceFiles.transaction(table, 1).getCreateIndex().getNewIndices(0);
      assertThat(stock.getFragmentBitmap()).isEqualTo(TransactionFactory.fragmentBitmap(List.of(0, 1, 2)));
      assertThat(stock.getUuid()).isEqualTo(TransactionFactory.uuid(index.uuid()));

      IndexMetadata ours = TestIndexes.btreeIndex("id_idx", List.of(0), 1, List.of(0, 1, 2));
      assertThat(ours.getIndexDetails().getTypeUrl()).isEqualTo(stock.getIndexDetails().getTypeUrl());
      assertThat(ours.toBuilder().setUuid(stock.getUuid()).build())
          .isEqualTo(stock.toBuilder().clearCreatedAt().clearFiles().build());
    }
  }

  @Test
  void compactionResultsAndIndexSegmentsConvertLikeLanceWritesThem() {
    Path table = dir.resolve("maintained.lance");
    try (LanceTables lance = LanceTables.local(table)) {
      assertThat(commit(lance, 0, overwrite(lance.writeRows(0, 20, 5), LanceTables.ROW_SCHEMA))).isEqualTo(1);
      List<RewriteResult> results = new ArrayList<>();
      CompactionOptions options = CompactionOptions.builder().withTargetRowsPerFragment(1000).build();
      try (Dataset v1 = lance.open(1)) {
        for (CompactionTask task : Compaction.planCompaction(v1, options).getCompactionTasks()) {
          results.add(task.execute(v1));
        }
        Compaction.commitCompaction(v1, results, options);
      }
      Transaction stock = StockLanceFiles.transactions(table).stream().filter(Transaction::hasRewrite).findFirst()
          .orElseThrow();
      Transaction ours = TransactionFactory.rewrite(stock.getReadVersion(),
          results.stream().map(LanceProtos::rewriteGroup).toList());
      // Lance's own commit gives the new fragments their ids; through the coordinator they keep 0 until it commits
      Transaction.Builder withStockIds = withUuid(ours, stock).toBuilder();
      for (int g = 0; g < stock.getRewrite().getGroupsCount(); g++) {
        for (int f = 0; f < stock.getRewrite().getGroups(g).getNewFragmentsCount(); f++) {
          assertThat(ours.getRewrite().getGroups(g).getNewFragments(f).getId()).isZero();
          withStockIds.getRewriteBuilder().getGroupsBuilder(g).getNewFragmentsBuilder(f)
              .setId(stock.getRewrite().getGroups(g).getNewFragments(f).getId());
        }
      }
      assertThat(withStockIds.build()).isEqualTo(stock);

      long version = lance.latestVersion();
      String uuid = java.util.UUID.randomUUID().toString();
      Index segment;
      try (Dataset latest = lance.open(version)) {
        IndexParams params = IndexParams.builder().setScalarIndexParams(ScalarIndexParams.create("btree")).build();
        List<Integer> fragments = latest.getFragments().stream().map(Fragment::getId).toList();
        segment = latest.createIndex(IndexOptions.builder(List.of("id"), IndexType.BTREE, params)
            .withIndexName("id_idx").withFragmentIds(fragments).withIndexUUID(uuid).build());
        latest.mergeIndexMetadata(uuid, IndexType.BTREE, Optional.empty());
      }
      assertThat(lance.commitWithLance(version, CreateIndex.builder().withNewIndices(List.of(segment)).build()))
          .isEqualTo(version + 1);
      IndexMetadata stockIndex = StockLanceFiles.transaction(table, version).getCreateIndex().getNewIndices(0);
      // Lance 7's Java Index does not expose the segment's files; everything else is what Lance wrote
      assertThat(LanceProtos.index(segment)).isEqualTo(stockIndex.toBuilder().clearFiles().build());
    }
  }

  @Test
  void schemaMetadataIsWhatLanceKeepsInTheManifest() {
    Schema schema = new Schema(LanceTables.ROW_SCHEMA.getFields(), Map.of("owner", "sales", "b", "2"));
    Path table = dir.resolve("meta.lance");
    try (BufferAllocator alloc = new RootAllocator();
        Dataset ds = Dataset.create(alloc, table.toString(), schema, new WriteParams.Builder().build())) {
      assertThat(ds.version()).isEqualTo(1);
    }
    assertThat(StockLanceFiles.manifest(table, 1).getSchemaMetadataMap()).isEqualTo(LanceProtos.schemaMetadata(schema));
    assertThat(StockLanceFiles.transaction(table, 0).getOverwrite().getSchemaMetadataMap()).isEmpty();
  }

  @Test
  void factoryTransactionsCarryFreshUuidV4() {
    Transaction a = TransactionFactory.reserve(3, 1);
    Transaction b = TransactionFactory.reserve(3, 1);
    assertThat(a.getUuid()).isNotEqualTo(b.getUuid());
    assertThat(java.util.UUID.fromString(a.getUuid()).version()).isEqualTo(4);
    assertThat(a.getUuid()).isEqualTo(a.getUuid().toLowerCase());
    Transaction rebased = TransactionFactory.rebased(a, 7);
    assertThat(rebased.getReadVersion()).isEqualTo(7);
    assertThat(rebased.getUuid()).isNotEqualTo(a.getUuid());
  }

  private static Overwrite overwrite(List<FragmentMetadata> fragments, Schema schema) {
    return Overwrite.builder().fragments(fragments).schema(schema).build();
  }

  private static long commit(LanceTables lance, long readVersion, org.lance.operation.Operation op) {
    try (org.lance.Transaction txn = new org.lance.Transaction(readVersion, op);
        Dataset ds = new CommitBuilder(lance.uri(), lance.allocator()).execute(txn)) {
      return ds.version();
    }
  }

  private static Transaction withUuid(Transaction ours, Transaction stock) {
    return ours.toBuilder().setUuid(stock.getUuid()).build();
  }

  private static Transaction sortedConfigEntries(Transaction txn) {
    Transaction.UpdateMap map = txn.getUpdateConfig().getConfigUpdates();
    List<Transaction.UpdateMapEntry> entries = new ArrayList<>(map.getUpdateEntriesList());
    entries.sort(java.util.Comparator.comparing(Transaction.UpdateMapEntry::getKey));
    Transaction.Builder b = txn.toBuilder();
    b.getUpdateConfigBuilder().getConfigUpdatesBuilder().clearUpdateEntries().addAllUpdateEntries(entries);
    return b.build();
  }

  private static List<Long> range(long from, long to) {
    List<Long> out = new ArrayList<>();
    for (long i = from; i < to; i++) {
      out.add(i);
    }
    return out;
  }
}
