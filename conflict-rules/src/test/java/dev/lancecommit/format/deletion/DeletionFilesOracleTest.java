package dev.lancecommit.format.deletion;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.DeletionFile;
import dev.lancecommit.format.pb.DeletionFile.DeletionFileType;
import dev.lancecommit.testing.lance.LanceTables;
import dev.lancecommit.testing.lance.StockLanceFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.FragmentMetadata;
import org.lance.Transaction;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.lance.operation.Delete;
import org.roaringbitmap.RoaringBitmap;

/**
 * The deletion file codec against real Lance Java 7.0.0: files stock Lance writes decode to exactly the rows it
 * reports deleted, and files this codec writes are read (and extended) by stock Lance.
 */
class DeletionFilesOracleTest {
  @TempDir Path dir;

  /** Stock Lance's own delete, then the fragment's deletion file as its manifest names it. */
  private static DataFragment deleteWithLance(LanceTables table, Path root, String predicate) {
    long version;
    try (Dataset ds = table.open()) {
      ds.delete(predicate);
    }
    try (Dataset ds = table.open()) {
      version = ds.version();
    }
    return StockLanceFiles.manifest(root, version).getFragments(0);
  }

  /** Row offsets of fragment 0 that stock Lance no longer returns, from the row addresses of a scan. */
  private static RoaringBitmap offsetsLanceReportsDeleted(LanceTables table, long physicalRows) {
    RoaringBitmap deleted = new RoaringBitmap();
    deleted.add(0L, physicalRows);
    ScanOptions options = new ScanOptions.Builder().columns(List.of("id")).withRowAddress(true).build();
    try (Dataset ds = table.open(); LanceScanner scanner = ds.newScan(options);
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        FieldVector addresses = root.getVector("_rowaddr");
        for (int i = 0; i < root.getRowCount(); i++) {
          long address = ((Number) addresses.getObject(i)).longValue();
          assertThat(address >>> 32).as("fragment of row address").isZero();
          deleted.remove((int) address);
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return deleted;
  }

  private static byte[] readFile(Path root, String relativePath) {
    try {
      return Files.readAllBytes(root.resolve(relativePath));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<String> deletionFilesOnDisk(Path root) {
    try (Stream<Path> files = Files.list(root.resolve(DeletionVectors.DELETIONS_DIR))) {
      return files.map(p -> DeletionVectors.DELETIONS_DIR + "/" + p.getFileName()).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static RoaringBitmap range(long from, long toExclusive) {
    RoaringBitmap rows = new RoaringBitmap();
    rows.add(from, toExclusive);
    return rows;
  }

  @Test
  void aSmallLanceDeleteWritesAnArrowFileThatDecodesToTheDeletedRows() {
    Path root = dir.resolve("small.lance");
    try (LanceTables table = LanceTables.local(root)) {
      table.createWithLance(0, 100);
      DataFragment fragment = deleteWithLance(table, root, "id < 10 or id = 57");
      DeletionFile meta = fragment.getDeletionFile();

      assertThat(meta.getFileType()).isEqualTo(DeletionFileType.ARROW_ARRAY)
          .isEqualTo(DeletionVectors.typeForNewDeletions(11));
      assertThat(deletionFilesOnDisk(root)).containsExactly(DeletionVectors.relativePath(0, meta));
      RoaringBitmap decoded = DeletionVectors.read(fragment, readFile(root, DeletionVectors.relativePath(0, meta)));

      RoaringBitmap expected = range(0, 10);
      expected.add(57);
      assertThat(decoded).isEqualTo(expected).isEqualTo(offsetsLanceReportsDeleted(table, 100));
      assertThat(meta.getNumDeletedRows()).isEqualTo(decoded.getLongCardinality());
    }
  }

  @Test
  void aLargeLanceDeleteWritesABitmapFileThatDecodesToTheDeletedRows() {
    Path root = dir.resolve("large.lance");
    try (LanceTables table = LanceTables.local(root)) {
      table.createWithLance(0, 20_000);
      DataFragment fragment = deleteWithLance(table, root, "(id >= 3000 and id < 15000) or id % 7 = 0");
      DeletionFile meta = fragment.getDeletionFile();

      RoaringBitmap expected = range(3000, 15_000);
      for (int id = 0; id < 20_000; id += 7) {
        expected.add(id);
      }
      assertThat(meta.getFileType()).isEqualTo(DeletionFileType.BITMAP)
          .isEqualTo(DeletionVectors.typeForNewDeletions(expected.getCardinality()));
      assertThat(deletionFilesOnDisk(root)).containsExactly(DeletionVectors.relativePath(0, meta));
      RoaringBitmap decoded = DeletionVectors.read(meta, readFile(root, DeletionVectors.relativePath(0, meta)));
      assertThat(decoded).isEqualTo(expected).isEqualTo(offsetsLanceReportsDeleted(table, 20_000));
    }
  }

  @Test
  void lanceChoosesTheFormatByTheThresholdThisCodecNames() {
    int threshold = DeletionVectors.BITMAP_THRESHOLD;
    Path below = dir.resolve("below.lance");
    Path at = dir.resolve("at.lance");
    try (LanceTables belowTable = LanceTables.local(below); LanceTables atTable = LanceTables.local(at)) {
      belowTable.createWithLance(0, threshold + 10);
      atTable.createWithLance(0, threshold + 10);

      DataFragment before = StockLanceFiles.manifest(below, 1).getFragments(0);
      DataFragment arrow = deleteWithLance(belowTable, below, "id < " + (threshold - 1));
      assertThat(arrow.getDeletionFile().getFileType())
          .isEqualTo(DeletionVectors.typeAfterExtending(before, threshold - 1))
          .isEqualTo(DeletionFileType.ARROW_ARRAY);
      byte[] arrowBytes = readFile(below, DeletionVectors.relativePath(0, arrow.getDeletionFile()));
      assertThat(new String(arrowBytes, StandardCharsets.ISO_8859_1)).as("Lance compresses the buffers of its"
          + " .arrow files with ZSTD (frame magic 28 B5 2F FD)").contains("\u0028\u00b5\u002f\u00fd");
      assertThat(DeletionVectors.readArrow(arrowBytes)).isEqualTo(range(0, threshold - 1));
      DataFragment bitmap = deleteWithLance(atTable, at, "id < " + threshold);
      assertThat(bitmap.getDeletionFile().getFileType())
          .isEqualTo(DeletionVectors.typeForNewDeletions(threshold))
          .isEqualTo(DeletionFileType.BITMAP);

      // an array extended to exactly the threshold stays an array; one row more makes it a bitmap
      DataFragment stillArrow = deleteWithLance(belowTable, below, "id = " + (threshold + 5));
      assertThat(stillArrow.getDeletionFile().getFileType())
          .isEqualTo(DeletionVectors.typeAfterExtending(arrow, threshold))
          .isEqualTo(DeletionFileType.ARROW_ARRAY);
      DataFragment nowBitmap = deleteWithLance(belowTable, below, "id = " + (threshold + 6));
      assertThat(nowBitmap.getDeletionFile().getFileType())
          .isEqualTo(DeletionVectors.typeAfterExtending(stillArrow, threshold + 1))
          .isEqualTo(DeletionFileType.BITMAP);

      RoaringBitmap expected = range(0, threshold - 1);
      expected.add(threshold + 5);
      expected.add(threshold + 6);
      String path = DeletionVectors.relativePath(0, nowBitmap.getDeletionFile());
      assertThat(DeletionVectors.read(nowBitmap, readFile(below, path)))
          .isEqualTo(expected).isEqualTo(offsetsLanceReportsDeleted(belowTable, threshold + 10));
    }
  }

  @ParameterizedTest
  @EnumSource(value = DeletionFileType.class, names = {"ARROW_ARRAY", "BITMAP"})
  void stockLanceReadsAndExtendsADeletionFileThisCodecWrote(DeletionFileType type) throws IOException {
    Path root = dir.resolve("ours-" + type + ".lance");
    try (LanceTables table = LanceTables.local(root)) {
      table.createWithLance(0, 100);
      RoaringBitmap ours = RoaringBitmap.bitmapOf(3, 5, 7, 42, 99);
      NewDeletionFile file = DeletionVectors.encode(0, 1, ThreadLocalRandom.current().nextLong(), type, ours);
      Files.createDirectories(root.resolve(DeletionVectors.DELETIONS_DIR));
      Files.write(root.resolve(file.relativePath()), file.bytes());

      long committed;
      try (Dataset v1 = table.open(1)) {
        FragmentMetadata stock = v1.getFragments().get(0).metadata();
        org.lance.fragment.DeletionFile lanceMeta = new org.lance.fragment.DeletionFile(
            file.meta().getId(), file.meta().getReadVersion(), file.meta().getNumDeletedRows(),
            type == DeletionFileType.BITMAP ? org.lance.fragment.DeletionFileType.BITMAP
                : org.lance.fragment.DeletionFileType.ARRAY, null);
        FragmentMetadata updated = new FragmentMetadata(stock.getId(), stock.getFiles(), stock.getPhysicalRows(),
            lanceMeta, stock.getRowIdMeta());
        try (Transaction txn = new Transaction(1, Delete.builder().updatedFragments(List.of(updated))
                .deletedFragmentIds(List.of()).predicate("id in (3, 5, 7, 42, 99)").build());
            Dataset result = new CommitBuilder(v1).execute(txn)) {
          committed = result.version();
        }
      }
      assertThat(committed).isEqualTo(2);
      DataFragment committedFragment = StockLanceFiles.manifest(root, 2).getFragments(0);
      assertThat(committedFragment.getDeletionFile()).isEqualTo(file.meta());

      List<Long> expectedIds = new ArrayList<>();
      for (long id = 0; id < 100; id++) {
        if (!ours.contains((int) id)) {
          expectedIds.add(id);
        }
      }
      assertThat(table.countRows(2)).isEqualTo(95);
      assertThat(table.readIds(2)).isEqualTo(expectedIds);
      assertThat(offsetsLanceReportsDeleted(table, 100)).isEqualTo(ours);

      // Lance's own delete reads our vector and extends it
      DataFragment extended = deleteWithLance(table, root, "id = 50");
      RoaringBitmap expected = ours.clone();
      expected.add(50);
      assertThat(DeletionVectors.read(extended,
          readFile(root, DeletionVectors.relativePath(0, extended.getDeletionFile())))).isEqualTo(expected);
      assertThat(table.countRows(3)).isEqualTo(94);
    }
  }
}
