package dev.lancecommit.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.format.RowIds;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.lance.LanceTables;
import dev.lancecommit.testing.lance.StockLanceFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.WriteParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.lance.operation.ReserveFragments;

/**
 * ManifestBuilder against real Lance Java 7.0.0: data files are written by stock Lance, the next manifest is built
 * by ManifestBuilder and written next to Lance's own versions, then stock Lance opens it, reads the rows back and
 * commits on top of it (from a stale read version, so that it has to load and check our transaction). Where stock
 * Lance can run the same operation on a twin table, the two manifests are compared field by field.
 */
class ManifestBuilderOracleTest {
  @TempDir Path dir;

  private static List<Long> range(long from, long toExclusive) {
    return LongStream.range(from, toExclusive).boxed().toList();
  }

  private static List<Long> fragmentIds(Manifest manifest) {
    return manifest.getFragmentsList().stream().map(DataFragment::getId).toList();
  }

  private static List<Long> physicalRows(Manifest manifest) {
    return manifest.getFragmentsList().stream().map(DataFragment::getPhysicalRows).toList();
  }

  /** The fields Lance and we both care about, ignoring encoding details of the field messages. */
  private static List<String> shape(List<Field> fields) {
    return fields.stream().map(f -> f.getId() + ":" + f.getParentId() + ":" + f.getName() + ":"
        + f.getLogicalType() + ":" + f.getNullable()).toList();
  }

  /** What must agree between our manifest and stock Lance's for the same operation. */
  private static void assertSameOutcome(Manifest ours, Manifest stock) {
    assertThat(ours.getVersion()).isEqualTo(stock.getVersion());
    assertThat(fragmentIds(ours)).isEqualTo(fragmentIds(stock));
    assertThat(physicalRows(ours)).isEqualTo(physicalRows(stock));
    assertThat(ours.hasMaxFragmentId()).isEqualTo(stock.hasMaxFragmentId());
    assertThat(ours.getMaxFragmentId()).isEqualTo(stock.getMaxFragmentId());
    assertThat(ours.getReaderFeatureFlags()).isEqualTo(stock.getReaderFeatureFlags());
    assertThat(ours.getWriterFeatureFlags()).isEqualTo(stock.getWriterFeatureFlags());
    assertThat(ours.getDataFormat()).isEqualTo(stock.getDataFormat());
    assertThat(ours.getNextRowId()).isEqualTo(stock.getNextRowId());
    assertThat(shape(ours.getFieldsList())).isEqualTo(shape(stock.getFieldsList()));
    assertThat(ours.getConfigMap()).isEqualTo(stock.getConfigMap());
  }

  /** The operation name of the transaction stock Lance reads for {@code version}, or null when it finds none. */
  private static String operationLanceReads(LanceTables table, long version) {
    try (Dataset ds = table.open(version)) {
      return ds.readTransaction().map(t -> {
        try (t) {
          return t.operation().name();
        }
      }).orElse(null);
    }
  }

  @Test
  void appendMatchesStockLanceAndStockLanceCommitsOnTop() {
    Path oursPath = dir.resolve("ours.lance");
    Path stockPath = dir.resolve("stock.lance");
    try (LanceTables ours = LanceTables.local(oursPath); LanceTables stock = LanceTables.local(stockPath)) {
      ours.createWithLance(0, 10);
      stock.createWithLance(0, 10);

      LocalCommitter committer = new LocalCommitter(oursPath);
      TableState v2 = committer.commit(TransactionFactory.append(1, LanceProtos.fragments(ours.writeRows(10, 6, 3))));
      long stockVersion = stock.commitAppendWithLance(1, stock.writeRows(10, 6, 3));

      assertThat(v2.version()).isEqualTo(2).isEqualTo(stockVersion);
      assertSameOutcome(v2.manifest(), StockLanceFiles.manifest(stockPath, 2));
      assertThat(fragmentIds(v2.manifest())).containsExactly(0L, 1L, 2L);
      assertThat(ours.latestVersion()).isEqualTo(2);
      assertThat(ours.readIds(2)).isEqualTo(range(0, 16));
      assertThat(ours.readColumn(2, "value")).contains("v0", "v15");
      assertThat(operationLanceReads(ours, 2)).isEqualTo("Append");

      // stock Lance on a stale read version must load our transaction, find it compatible and commit after it
      long v3 = ours.commitAppendWithLance(1, ours.writeRows(16, 4));
      assertThat(v3).isEqualTo(3);
      assertThat(ours.readIds(3)).isEqualTo(range(0, 20));
      assertThat(fragmentIds(StockLanceFiles.manifest(oursPath, 3))).containsExactly(0L, 1L, 2L, 3L);
    }
  }

  @Test
  void aTableCreatedByTheBuilderIsReadAndExtendedByStockLance() {
    Path oursPath = dir.resolve("created.lance");
    Path stockPath = dir.resolve("stock-created.lance");
    try (LanceTables ours = LanceTables.local(oursPath); LanceTables stock = LanceTables.local(stockPath)) {
      List<DataFragment> fragments = LanceProtos.fragments(ours.writeRows(0, 7, 4));
      Transaction create = TransactionFactory.create(LanceProtos.schema(LanceTables.ROW_SCHEMA), fragments);
      TableState v1 = new LocalCommitter(oursPath).commit(create);
      stock.createWithLance(0, 7);

      Manifest stockV1 = StockLanceFiles.manifest(stockPath, 1);
      assertThat(v1.version()).isEqualTo(1);
      assertThat(shape(v1.manifest().getFieldsList())).isEqualTo(shape(stockV1.getFieldsList()));
      assertThat(v1.manifest().getDataFormat()).isEqualTo(stockV1.getDataFormat());
      assertThat(fragmentIds(v1.manifest())).containsExactly(0L, 1L);
      try (Dataset ds = ours.open()) {
        assertThat(ds.version()).isEqualTo(1);
        assertThat(ds.countRows()).isEqualTo(7);
        assertThat(ds.getLanceFileFormatVersion()).isEqualTo(stockV1.getDataFormat().getVersion());
      }
      assertThat(ours.readIds(1)).isEqualTo(range(0, 7));

      assertThat(ours.appendWithLance(7, 3)).isEqualTo(2);
      assertThat(ours.readIds(2)).isEqualTo(range(0, 10));
      assertThat(fragmentIds(StockLanceFiles.manifest(oursPath, 2))).containsExactly(0L, 1L, 2L);
    }
  }

  @Test
  void deleteIsReadByStockLanceAndKeepsTheHighWaterMark() {
    Path oursPath = dir.resolve("delete.lance");
    try (LanceTables ours = LanceTables.local(oursPath)) {
      ours.createWithLance(0, 10);
      LocalCommitter committer = new LocalCommitter(oursPath);
      committer.commit(TransactionFactory.append(1, LanceProtos.fragments(ours.writeRows(10, 10, 5))));

      FragmentMetadata withDeletions;
      try (Dataset ds = ours.open(2)) {
        withDeletions = new Fragment(ds, 0).deleteRows(List.of(0, 1, 2));
      }
      DataFragment updated = LanceProtos.fragment(withDeletions);
      assertThat(updated.hasDeletionFile()).isTrue();
      TableState v3 = committer.commit(TransactionFactory.delete(2, List.of(updated), List.of(2L)));

      assertThat(fragmentIds(v3.manifest())).containsExactly(0L, 1L);
      assertThat(v3.manifest().getMaxFragmentId()).isEqualTo(2);
      List<Long> expected = new ArrayList<>(range(3, 15));
      assertThat(ours.countRows(3)).isEqualTo(expected.size());
      assertThat(ours.readIds(3)).isEqualTo(expected);

      long v4 = ours.commitAppendWithLance(2, ours.writeRows(100, 2));
      assertThat(v4).isEqualTo(4);
      assertThat(fragmentIds(StockLanceFiles.manifest(oursPath, 4))).containsExactly(0L, 1L, 3L);
      assertThat(ours.countRows(4)).isEqualTo(expected.size() + 2);
    }
  }

  @Test
  void reservedIdsAreSkippedByStockLanceJustAsAfterItsOwnReservation() {
    Path oursPath = dir.resolve("reserve.lance");
    Path stockPath = dir.resolve("stock-reserve.lance");
    try (LanceTables ours = LanceTables.local(oursPath); LanceTables stock = LanceTables.local(stockPath)) {
      ours.createWithLance(0, 5);
      stock.createWithLance(0, 5);
      TableState v2 = new LocalCommitter(oursPath).commit(TransactionFactory.reserve(1, 3));
      stock.commitWithLance(1, ReserveFragments.builder().numFragments(3).build());
      assertSameOutcome(v2.manifest(), StockLanceFiles.manifest(stockPath, 2));
      assertThat(v2.manifest().getMaxFragmentId()).isEqualTo(3);

      assertThat(ours.appendWithLance(5, 2)).isEqualTo(3);
      assertThat(stock.appendWithLance(5, 2)).isEqualTo(3);
      assertThat(fragmentIds(StockLanceFiles.manifest(oursPath, 3)))
          .isEqualTo(fragmentIds(StockLanceFiles.manifest(stockPath, 3)))
          .containsExactly(0L, 4L);
      assertThat(ours.readIds(3)).isEqualTo(range(0, 7));
    }
  }

  @Test
  void configAndTableMetadataUpdatesAreSeenByStockLance() {
    Path oursPath = dir.resolve("config.lance");
    try (LanceTables ours = LanceTables.local(oursPath)) {
      ours.createWithLance(0, 3);
      LocalCommitter committer = new LocalCommitter(oursPath);
      Transaction configOnly = TransactionFactory.updateConfig(1,
          Map.of("team.owner", "rules", "team.tier", "gold"), List.of());
      Transaction setConfig = configOnly.toBuilder().setUpdateConfig(configOnly.getUpdateConfig().toBuilder()
          .setTableMetadataUpdates(Transaction.UpdateMap.newBuilder().addUpdateEntries(
              Transaction.UpdateMapEntry.newBuilder().setKey("purpose").setValue("oracle")))).build();
      committer.commit(setConfig);
      try (Dataset ds = ours.open()) {
        assertThat(ds.getConfig()).containsEntry("team.owner", "rules").containsEntry("team.tier", "gold");
        assertThat(ds.getTableMetadata()).containsEntry("purpose", "oracle");
      }
      // stock Lance, from the stale read version 1, merges a key in after loading our UpdateConfig
      ours.commitWithLance(1, org.lance.operation.UpdateConfig.builder()
          .configUpdates(org.lance.operation.UpdateMap.builder().updates(Map.of("team.extra", "1")).replace(false)
              .build())
          .build());
      TableState v4 = committer.commit(TransactionFactory.updateConfig(3, Map.of(), List.of("team.tier")));
      assertThat(v4.version()).isEqualTo(4);
      try (Dataset ds = ours.open()) {
        assertThat(ds.version()).isEqualTo(4);
        assertThat(ds.getConfig()).containsEntry("team.owner", "rules").containsEntry("team.extra", "1")
            .doesNotContainKey("team.tier");
        assertThat(ds.getTableMetadata()).containsEntry("purpose", "oracle");
      }
      assertThat(ours.readIds(4)).isEqualTo(range(0, 3));
    }
  }

  @Test
  void overwriteReplacesTheRowsAndStockLanceSeesItAsAnOverwrite() {
    Path oursPath = dir.resolve("overwrite.lance");
    Path stockPath = dir.resolve("stock-overwrite.lance");
    try (LanceTables ours = LanceTables.local(oursPath); LanceTables stock = LanceTables.local(stockPath)) {
      ours.createWithLance(0, 5);
      ours.appendWithLance(5, 5);
      stock.createWithLance(0, 5);
      stock.appendWithLance(5, 5);

      TableState v3 = new LocalCommitter(oursPath).commit(TransactionFactory.overwrite(2,
          LanceProtos.schema(LanceTables.ROW_SCHEMA), LanceProtos.fragments(ours.writeRows(100, 4, 2))));
      stock.commitWithLance(2, org.lance.operation.Overwrite.builder()
          .fragments(stock.writeRows(100, 4, 2)).schema(LanceTables.ROW_SCHEMA).build());
      assertSameOutcome(v3.manifest(), StockLanceFiles.manifest(stockPath, 3));
      assertThat(fragmentIds(v3.manifest())).containsExactly(0L, 1L);
      assertThat(ours.readIds(3)).isEqualTo(range(100, 104));

      // Lance loads our Overwrite and refuses an Append that was based on an older version
      List<FragmentMetadata> late = ours.writeRows(200, 1);
      assertThatThrownBy(() -> ours.commitAppendWithLance(2, late)).hasMessageContaining("ncompatible");

      assertThat(ours.appendWithLance(104, 1)).isEqualTo(4);
      assertThat(stock.appendWithLance(104, 1)).isEqualTo(4);
      assertThat(fragmentIds(StockLanceFiles.manifest(oursPath, 4)))
          .isEqualTo(fragmentIds(StockLanceFiles.manifest(stockPath, 4)));
    }
  }

  @Test
  void stableRowIdsMatchWhatStockLanceAssigns() {
    Path oursPath = dir.resolve("stable.lance");
    Path stockPath = dir.resolve("stock-stable.lance");
    try (LanceTables ours = LanceTables.local(oursPath); LanceTables stock = LanceTables.local(stockPath)) {
      createWithStableRowIds(ours, 0, 6);
      createWithStableRowIds(stock, 0, 6);

      TableState v2 = new LocalCommitter(oursPath).commit(
          TransactionFactory.append(1, LanceProtos.fragments(ours.writeRows(6, 5, 3))));
      stock.commitAppendWithLance(1, stock.writeRows(6, 5, 3));
      Manifest stockV2 = StockLanceFiles.manifest(stockPath, 2);

      assertSameOutcome(v2.manifest(), stockV2);
      assertThat(v2.manifest().getNextRowId()).isEqualTo(11);
      for (int i = 0; i < stockV2.getFragmentsCount(); i++) {
        DataFragment mine = v2.manifest().getFragments(i);
        DataFragment theirs = stockV2.getFragments(i);
        assertThat(RowIds.rowIds(RowIds.parse(mine.getInlineRowIds())))
            .isEqualTo(RowIds.rowIds(RowIds.parse(theirs.getInlineRowIds())));
        assertThat(RowIds.parseVersions(mine.getInlineCreatedAtVersions()))
            .isEqualTo(RowIds.parseVersions(theirs.getInlineCreatedAtVersions()));
        assertThat(RowIds.parseVersions(mine.getInlineLastUpdatedAtVersions()))
            .isEqualTo(RowIds.parseVersions(theirs.getInlineLastUpdatedAtVersions()));
      }
      assertThat(rowIds(ours)).isEqualTo(range(0, 11));

      ours.appendWithLance(11, 2);
      assertThat(rowIds(ours)).isEqualTo(range(0, 13));
    }
  }

  @Test
  void aRewriteIntoReservedIdsIsReadByStockLanceWhichCompactsOnTop() {
    Path oursPath = dir.resolve("rewrite.lance");
    try (LanceTables ours = LanceTables.local(oursPath)) {
      ours.createWithLance(0, 4);
      ours.appendWithLance(4, 4);
      ours.appendWithLance(8, 4);
      LocalCommitter committer = new LocalCommitter(oursPath);
      TableState v4 = committer.commit(TransactionFactory.reserve(3, 2));
      assertThat(v4.manifest().getMaxFragmentId()).isEqualTo(4);

      // "compaction": rows 0..7 rewritten into one file that takes the first reserved id, 3
      List<DataFragment> old = v4.manifest().getFragmentsList().subList(0, 2);
      DataFragment compacted = TransactionFactory.withId(LanceProtos.fragments(ours.writeRows(0, 8)).get(0), 3);
      TableState v5 = committer.commit(TransactionFactory.rewrite(4, old, List.of(compacted)));

      assertThat(fragmentIds(v5.manifest())).containsExactly(2L, 3L);
      assertThat(v5.manifest().getMaxFragmentId()).isEqualTo(4);
      assertThat(ours.countRows(5)).isEqualTo(12);
      assertThat(new java.util.TreeSet<>(ours.readIds(5))).containsExactlyElementsOf(range(0, 12));
      assertThat(operationLanceReads(ours, 5)).isEqualTo("Rewrite");

      // stock Lance appends (or compacts) after our rewrite without reusing any id up to the reservation
      assertThat(ours.appendWithLance(12, 3)).isEqualTo(6);
      try (Dataset ds = ours.open()) {
        ds.compact();
      }
      long latest = ours.latestVersion();
      Manifest afterLance = StockLanceFiles.manifest(oursPath, latest);
      assertThat(fragmentIds(afterLance)).allMatch(id -> id == 2 || id == 3 || id > 4);
      assertThat(fragmentIds(StockLanceFiles.manifest(oursPath, 6))).containsExactly(2L, 3L, 5L);
      assertThat(new java.util.TreeSet<>(ours.readIds(latest))).containsExactlyElementsOf(range(0, 15));
    }
  }

  @Test
  void indicesBuiltByStockLanceAreCarriedForwardAndRetained() {
    Path oursPath = dir.resolve("indexed.lance");
    try (LanceTables ours = LanceTables.local(oursPath)) {
      ours.createWithLance(0, 10);
      try (Dataset ds = ours.open()) {
        ds.createIndex(List.of("id"), org.lance.index.IndexType.BTREE, java.util.Optional.of("id_idx"),
            org.lance.index.IndexParams.builder()
                .setScalarIndexParams(org.lance.index.scalar.ScalarIndexParams.create("btree")).build(),
            true);
      }
      LocalCommitter committer = new LocalCommitter(oursPath);
      TableState v2 = committer.latest();
      assertThat(v2.indices()).extracting(i -> i.getName()).containsExactly("id_idx");

      TableState v3 = committer.commit(TransactionFactory.append(2, LanceProtos.fragments(ours.writeRows(10, 5))));
      assertThat(v3.indices()).isEqualTo(v2.indices());
      TableState v4 = committer.commit(TransactionFactory.delete(3, List.of(), List.of(0L)));
      // the only segment covers a deleted fragment only, but a lone scalar index is kept
      assertThat(v4.indices()).isEqualTo(v2.indices());

      try (Dataset ds = ours.open()) {
        assertThat(ds.version()).isEqualTo(4);
        assertThat(ds.listIndexes()).containsExactly("id_idx");
        assertThat(ds.countRows("id >= 12")).isEqualTo(3);
      }
      assertThat(ours.readIds(4)).isEqualTo(range(10, 15));
    }
  }

  private static void createWithStableRowIds(LanceTables table, long firstId, int count) {
    WriteParams params = new WriteParams.Builder().withMode(WriteParams.WriteMode.CREATE)
        .withEnableStableRowIds(true).build();
    try (VectorSchemaRoot root = LanceTables.rows(table.allocator(), firstId, count);
        ArrowArrayStream stream = ArrowArrayStream.allocateNew(table.allocator());
        ArrowReader reader = readerOf(table, root)) {
      Data.exportArrayStream(table.allocator(), reader, stream);
      Dataset.create(table.allocator(), stream, table.uri(), params).close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static ArrowReader readerOf(LanceTables table, VectorSchemaRoot root) throws IOException {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (org.apache.arrow.vector.ipc.ArrowStreamWriter writer =
        new org.apache.arrow.vector.ipc.ArrowStreamWriter(root, null, bytes)) {
      writer.start();
      writer.writeBatch();
      writer.end();
    }
    return new org.apache.arrow.vector.ipc.ArrowStreamReader(
        new java.io.ByteArrayInputStream(bytes.toByteArray()), table.allocator());
  }

  /** The stable row id of every row of the latest version, sorted. */
  private static List<Long> rowIds(LanceTables table) {
    List<Long> ids = new ArrayList<>();
    try (Dataset ds = table.open();
        LanceScanner scanner = ds.newScan(new ScanOptions.Builder().columns(List.of("id")).withRowId(true).build());
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        BaseIntVector rowIds = (BaseIntVector) reader.getVectorSchemaRoot().getVector("_rowid");
        for (int i = 0; i < rowIds.getValueCount(); i++) {
          ids.add(rowIds.getValueAsLong(i));
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    ids.sort(null);
    return ids;
  }
}
