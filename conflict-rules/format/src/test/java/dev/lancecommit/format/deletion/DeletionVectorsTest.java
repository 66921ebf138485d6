package dev.lancecommit.format.deletion;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.DeletionFile;
import dev.lancecommit.format.pb.DeletionFile.DeletionFileType;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.ByteArrayReadableSeekableByteChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.roaringbitmap.RoaringBitmap;

class DeletionVectorsTest {
  static final byte[] ZSTD_FRAME_MAGIC = {(byte) 0x28, (byte) 0xB5, (byte) 0x2F, (byte) 0xFD};

  private static RoaringBitmap sample() {
    RoaringBitmap rows = RoaringBitmap.bitmapOf(0, 1, 2, 17, 4095, 65_535, 65_536, 1 << 20);
    rows.add(0x8000_0000); // past the signed range: offsets are unsigned
    rows.add(0xFFFF_FFFF);
    rows.add(200_000L, 207_000L);
    return rows;
  }

  /** Writes an Arrow IPC file of {@code batches} batches with {@code field}, each holding {@code values}. */
  private static byte[] arrowFile(Field field, int batches, Integer... values) throws IOException {
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(List.of(field)), allocator)) {
      FieldVector vector = root.getVector(0);
      vector.allocateNew();
      for (int i = 0; i < values.length; i++) {
        if (values[i] == null) {
          vector.setNull(i);
        } else if (vector instanceof UInt4Vector u) {
          u.setSafe(i, values[i]);
        } else {
          ((IntVector) vector).setSafe(i, values[i]);
        }
      }
      vector.setValueCount(values.length);
      root.setRowCount(values.length);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (ArrowFileWriter writer = new ArrowFileWriter(root, null, Channels.newChannel(out))) {
        writer.start();
        for (int b = 0; b < batches; b++) {
          writer.writeBatch();
        }
        writer.end();
      }
      return out.toByteArray();
    }
  }

  private static Field rowId(boolean nullable) {
    return new Field("row_id", new FieldType(nullable, new ArrowType.Int(32, false), null), null);
  }

  static boolean contains(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  private static DeletionFile meta(DeletionFileType type) {
    return DeletionFile.newBuilder().setFileType(type).setReadVersion(3).setId(42).build();
  }

  @Test
  void arrowRoundTripsUnsignedOffsets() {
    RoaringBitmap rows = sample();
    assertThat(DeletionVectors.readArrow(DeletionVectors.writeArrow(rows))).isEqualTo(rows);
    assertThat(DeletionVectors.read(meta(DeletionFileType.ARROW_ARRAY), DeletionVectors.writeArrow(rows)))
        .isEqualTo(rows);
  }

  @Test
  void bitmapRoundTripsUnsignedOffsets() {
    RoaringBitmap rows = sample();
    assertThat(DeletionVectors.readBitmap(DeletionVectors.writeBitmap(rows))).isEqualTo(rows);
    assertThat(DeletionVectors.read(meta(DeletionFileType.BITMAP), DeletionVectors.writeBitmap(rows)))
        .isEqualTo(rows);
  }

  @ParameterizedTest
  @EnumSource(value = DeletionFileType.class, names = {"ARROW_ARRAY", "BITMAP"})
  void anEmptyVectorRoundTrips(DeletionFileType type) {
    byte[] bytes = DeletionVectors.write(type, new RoaringBitmap());
    assertThat(DeletionVectors.read(meta(type), bytes).isEmpty()).isTrue();
  }

  @Property(tries = 60)
  void anyVectorRoundTripsInBothFormats(@ForAll @Size(max = 300) List<Integer> offsets) {
    RoaringBitmap rows = new RoaringBitmap();
    offsets.forEach(rows::add);
    assertThat(DeletionVectors.readArrow(DeletionVectors.writeArrow(rows))).isEqualTo(rows);
    assertThat(DeletionVectors.readBitmap(DeletionVectors.writeBitmap(rows))).isEqualTo(rows);
  }

  @Test
  void theArrowFileIsOneZstdBatchOfNonNullUInt32RowIds() throws IOException {
    RoaringBitmap rows = RoaringBitmap.bitmapOf(9, 3, 7, 1_000_000);
    rows.add(2_000_000L, 2_004_000L); // compressible: Arrow keeps a buffer raw when ZSTD would not shrink it
    byte[] bytes = DeletionVectors.writeArrow(rows);
    assertThat(new String(bytes, 0, 6, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("ARROW1");
    assertThat(contains(bytes, ZSTD_FRAME_MAGIC)).as("ZSTD frames in the body").isTrue();
    try (BufferAllocator allocator = new RootAllocator();
        ArrowFileReader reader = new ArrowFileReader(new ByteArrayReadableSeekableByteChannel(bytes), allocator,
            org.apache.arrow.compression.CommonsCompressionFactory.INSTANCE)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      assertThat(root.getSchema().getFields()).containsExactly(rowId(false));
      assertThat(reader.getRecordBlocks()).hasSize(1);
      assertThat(reader.loadNextBatch()).isTrue();
      UInt4Vector column = (UInt4Vector) root.getVector("row_id");
      assertThat(column.getNullCount()).isZero();
      assertThat(column.getValueCount()).isEqualTo(4_004);
      assertThat(List.of(column.get(0), column.get(1), column.get(2), column.get(3), column.get(4_003)))
          .containsExactly(3, 7, 9, 1_000_000, 2_003_999);
    }
  }

  @Test
  void theBitmapFileIsPortableRoaringWithoutRunContainers() {
    RoaringBitmap rows = new RoaringBitmap();
    rows.add(0L, 50_000L);
    rows.runOptimize();
    byte[] bytes = DeletionVectors.writeBitmap(rows);
    int cookie = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getInt(0);
    assertThat(cookie).as("SERIAL_COOKIE_NO_RUNCONTAINER").isEqualTo(12346);
    assertThat(rows.hasRunCompression()).as("the caller's bitmap is left alone").isTrue();
    assertThat(DeletionVectors.readBitmap(bytes)).isEqualTo(rows);
  }

  @Test
  void bitmapsWithRunContainersAreRead() throws IOException {
    RoaringBitmap rows = new RoaringBitmap();
    rows.add(10L, 9_000L);
    rows.runOptimize();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    rows.serialize(new java.io.DataOutputStream(out));
    assertThat(DeletionVectors.readBitmap(out.toByteArray())).isEqualTo(rows);
  }

  @Test
  void uncompressedArrowFilesAreRead() throws IOException {
    byte[] bytes = arrowFile(rowId(false), 1, 5, 1, 3);
    assertThat(DeletionVectors.readArrow(bytes)).isEqualTo(RoaringBitmap.bitmapOf(1, 3, 5));
  }

  @Test
  void arrowFilesLanceWouldRefuseAreCorrupt() throws IOException {
    assertThatThrownBy(() -> DeletionVectors.readArrow(arrowFile(rowId(true), 1, 1, 2)))
        .isInstanceOf(CorruptDeletionFileException.class).hasMessageContaining("schema");
    assertThatThrownBy(() -> DeletionVectors.readArrow(arrowFile(
        new Field("row_id", FieldType.notNullable(new ArrowType.Int(32, true)), null), 1, 1, 2)))
        .isInstanceOf(CorruptDeletionFileException.class).hasMessageContaining("schema");
    assertThatThrownBy(() -> DeletionVectors.readArrow(arrowFile(
        new Field("rowid", FieldType.notNullable(new ArrowType.Int(32, false)), null), 1, 1, 2)))
        .isInstanceOf(CorruptDeletionFileException.class).hasMessageContaining("schema");
    assertThatThrownBy(() -> DeletionVectors.readArrow(arrowFile(
        new Field("row_id", new FieldType(false, new ArrowType.Int(32, false), null, Map.of("k", "v")), null),
        1, 1)))
        .isInstanceOf(CorruptDeletionFileException.class).hasMessageContaining("schema");
    assertThatThrownBy(() -> DeletionVectors.readArrow(arrowFile(rowId(false), 2, 1, 2)))
        .isInstanceOf(CorruptDeletionFileException.class).hasMessageContaining("exactly one record batch");
    assertThatThrownBy(() -> DeletionVectors.readArrow(arrowFile(rowId(false), 0)))
        .isInstanceOf(CorruptDeletionFileException.class).hasMessageContaining("exactly one record batch");
    assertThatThrownBy(() -> DeletionVectors.readArrow(arrowFile(rowId(false), 1, 1, null, 3)))
        .isInstanceOf(CorruptDeletionFileException.class).hasMessageContaining("null");
  }

  @Test
  void anArrowStreamIsNotAnArrowFile() throws IOException {
    try (BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot root = VectorSchemaRoot.create(ArrowDeletionFiles.SCHEMA, allocator)) {
      ((UInt4Vector) root.getVector(0)).allocateNew(1);
      ((UInt4Vector) root.getVector(0)).set(0, 1);
      root.setRowCount(1);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (ArrowStreamWriter writer = new ArrowStreamWriter(root, null, out)) {
        writer.start();
        writer.writeBatch();
        writer.end();
      }
      assertThatThrownBy(() -> DeletionVectors.readArrow(out.toByteArray()))
          .isInstanceOf(CorruptDeletionFileException.class).hasMessageContaining("not a readable Arrow IPC file");
    }
  }

  @Test
  void garbageAndTruncatedFilesAreCorrupt() {
    byte[] arrow = DeletionVectors.writeArrow(sample());
    byte[] bitmap = DeletionVectors.writeBitmap(sample());
    for (byte[] bad : List.of(new byte[0], "not a deletion file".getBytes(java.nio.charset.StandardCharsets.UTF_8),
        Arrays.copyOf(arrow, arrow.length - 7), Arrays.copyOf(bitmap, bitmap.length - 3), bitmap)) {
      assertThatThrownBy(() -> DeletionVectors.readArrow(bad)).isInstanceOf(CorruptDeletionFileException.class);
    }
    for (byte[] bad : List.of(new byte[0], "xx".getBytes(java.nio.charset.StandardCharsets.UTF_8),
        Arrays.copyOf(bitmap, bitmap.length - 3), arrow)) {
      assertThatThrownBy(() -> DeletionVectors.readBitmap(bad)).isInstanceOf(CorruptDeletionFileException.class);
    }
    byte[] trailing = Arrays.copyOf(bitmap, bitmap.length + 1);
    assertThatThrownBy(() -> DeletionVectors.readBitmap(trailing))
        .isInstanceOf(CorruptDeletionFileException.class).hasMessageContaining("1 bytes after");
  }

  @Test
  void theFileTypeInTheMetadataDecidesTheDecoder() {
    byte[] arrow = DeletionVectors.writeArrow(sample());
    assertThatThrownBy(() -> DeletionVectors.read(meta(DeletionFileType.BITMAP), arrow))
        .isInstanceOf(CorruptDeletionFileException.class).hasMessageContaining("BITMAP, read_version 3, id 42");
    DataFragment fragment = DataFragment.newBuilder().setId(7).setDeletionFile(meta(DeletionFileType.BITMAP)).build();
    assertThatThrownBy(() -> DeletionVectors.read(fragment, arrow))
        .isInstanceOf(CorruptDeletionFileException.class).hasMessageContaining("_deletions/7-3-42.bin");
    DeletionFile unknown = DeletionFile.newBuilder().setFileTypeValue(5).build();
    assertThatThrownBy(() -> DeletionVectors.read(unknown, arrow))
        .isInstanceOf(CorruptDeletionFileException.class).hasMessageContaining("unknown file type 5");
    assertThatThrownBy(() -> DeletionVectors.read(DataFragment.newBuilder().setId(1).build(), arrow))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no deletion file");
  }

  @Test
  void relativePathsFollowLanceAndPrintIdsUnsigned() {
    DeletionFile arrow = DeletionFile.newBuilder().setFileType(DeletionFileType.ARROW_ARRAY).setReadVersion(12)
        .setId(123456789L).build();
    assertThat(DeletionVectors.relativePath(21, arrow)).isEqualTo("_deletions/21-12-123456789.arrow");
    DeletionFile bin = arrow.toBuilder().setFileType(DeletionFileType.BITMAP).setId(-1L).build();
    assertThat(DeletionVectors.relativePath(0, bin)).isEqualTo("_deletions/0-12-18446744073709551615.bin");
    assertThat(DeletionVectors.suffix(DeletionFileType.ARROW_ARRAY)).isEqualTo("arrow");
    assertThat(DeletionVectors.suffix(DeletionFileType.BITMAP)).isEqualTo("bin");
  }

  @Test
  void formatChoiceFollowsLancesThreshold() {
    assertThat(DeletionVectors.typeForNewDeletions(0)).isEqualTo(DeletionFileType.ARROW_ARRAY);
    assertThat(DeletionVectors.typeForNewDeletions(4_999)).isEqualTo(DeletionFileType.ARROW_ARRAY);
    assertThat(DeletionVectors.typeForNewDeletions(5_000)).isEqualTo(DeletionFileType.BITMAP);
    DataFragment none = DataFragment.newBuilder().setId(1).build();
    DataFragment array = none.toBuilder().setDeletionFile(meta(DeletionFileType.ARROW_ARRAY)).build();
    DataFragment bitmap = none.toBuilder().setDeletionFile(meta(DeletionFileType.BITMAP)).build();
    assertThat(DeletionVectors.typeAfterExtending(none, 4_999)).isEqualTo(DeletionFileType.ARROW_ARRAY);
    assertThat(DeletionVectors.typeAfterExtending(none, 5_000)).isEqualTo(DeletionFileType.BITMAP);
    assertThat(DeletionVectors.typeAfterExtending(array, 5_000)).isEqualTo(DeletionFileType.ARROW_ARRAY);
    assertThat(DeletionVectors.typeAfterExtending(array, 5_001)).isEqualTo(DeletionFileType.BITMAP);
    assertThat(DeletionVectors.typeAfterExtending(bitmap, 1)).isEqualTo(DeletionFileType.BITMAP);
    assertThatThrownBy(() -> DeletionVectors.typeForNewDeletions(-1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void encodeDescribesTheFileItWrites() {
    RoaringBitmap rows = RoaringBitmap.bitmapOf(4, 8, 15);
    NewDeletionFile file = DeletionVectors.encode(9, 6, -5L, DeletionFileType.BITMAP, rows);
    assertThat(file.fragmentId()).isEqualTo(9);
    assertThat(file.meta()).isEqualTo(DeletionFile.newBuilder().setFileType(DeletionFileType.BITMAP)
        .setReadVersion(6).setId(-5L).setNumDeletedRows(3).build());
    assertThat(file.relativePath()).isEqualTo("_deletions/9-6-18446744073709551611.bin");
    assertThat(DeletionVectors.read(file.meta(), file.bytes())).isEqualTo(rows);

    byte[] copy = file.bytes();
    Arrays.fill(copy, (byte) 0);
    assertThat(DeletionVectors.read(file.meta(), file.bytes())).isEqualTo(rows);

    assertThatThrownBy(() -> DeletionVectors.encode(9, 6, 1, DeletionFileType.ARROW_ARRAY, new RoaringBitmap()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no deleted rows");
  }

  @Test
  void arrowAvailabilityIsCheckedWithAClearMessage() throws Exception {
    DeletionVectors.checkArrowAvailable();
    Process child = new ProcessBuilder(
        java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", classPathWithoutLance(), ArrowProbeMain.class.getName())
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
    String out = new String(child.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(child.waitFor()).isZero();
    assertThat(out).contains("UNAVAILABLE").contains("--add-opens=java.base/java.nio=ALL-UNNAMED");
  }

  /** The test class path minus lance-core, whose 180 MB jar only slows the child JVM down. */
  private static String classPathWithoutLance() {
    String separator = System.getProperty("path.separator");
    return java.util.Arrays.stream(System.getProperty("java.class.path").split(separator))
        .filter(entry -> !entry.contains("lance-core") && !entry.contains("lance-namespace"))
        .collect(java.util.stream.Collectors.joining(separator));
  }
}
