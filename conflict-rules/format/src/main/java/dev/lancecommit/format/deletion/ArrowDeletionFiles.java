package dev.lancecommit.format.deletion;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.SeekableReadChannel;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.ByteArrayReadableSeekableByteChannel;
import org.roaringbitmap.IntConsumer;
import org.roaringbitmap.RoaringBitmap;

/**
 * The {@code .arrow} deletion file: an Arrow IPC file (not stream) holding exactly one record batch with one
 * non-null {@code UInt32} column {@code row_id} of deleted row offsets, buffers ZSTD-compressed. Lance
 * ({@code lance-table/src/io/deletion.rs}) writes the offsets in hash-set order and refuses a file whose schema is
 * not exactly that (name, type, nullability, no metadata), whose batch count is not one, or that holds a null; the
 * same checks are made here. Reading accepts any IPC body compression Arrow defines (none, ZSTD, LZ4 frame).
 */
final class ArrowDeletionFiles {
  static final String COLUMN = "row_id";
  static final Schema SCHEMA = new Schema(List.of(
      new Field(COLUMN, FieldType.notNullable(new ArrowType.Int(32, false)), null)));

  /** 64 Mi offsets: far above anything Lance writes as .arrow (it switches to .bin past 5000 rows). */
  private static final long MEMORY_LIMIT = 256L << 20;

  static final String ARROW_UNAVAILABLE = "Arrow Java cannot allocate memory in this JVM, so .arrow deletion files"
      + " cannot be read or written; start the JVM with --add-opens=java.base/java.nio=ALL-UNNAMED";

  private ArrowDeletionFiles() {}

  /** Created on first use, so that a JVM without the flag Arrow needs fails with a clear message, every time. */
  private static final class Root {
    static final BufferAllocator ALLOCATOR = new RootAllocator(Long.MAX_VALUE);
  }

  private static BufferAllocator child(String name) {
    try {
      return Root.ALLOCATOR.newChildAllocator(name, 0, MEMORY_LIMIT);
    } catch (LinkageError | RuntimeException e) {
      throw new IllegalStateException(ARROW_UNAVAILABLE, e);
    }
  }

  static byte[] write(RoaringBitmap rows) {
    int count = rows.getCardinality();
    try (BufferAllocator allocator = child("deletion-file-write");
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator)) {
      UInt4Vector column = (UInt4Vector) root.getVector(COLUMN);
      column.allocateNew(count);
      int[] index = {0};
      rows.forEach((IntConsumer) offset -> column.set(index[0]++, offset));
      column.setValueCount(count);
      root.setRowCount(count);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (ArrowFileWriter writer = new ArrowFileWriter(root, null, Channels.newChannel(out), Map.of(),
          IpcOption.DEFAULT, CommonsCompressionFactory.INSTANCE, CompressionUtil.CodecType.ZSTD, Optional.empty())) {
        writer.start();
        writer.writeBatch();
        writer.end();
      }
      return out.toByteArray();
    } catch (IOException e) {
      throw new IllegalStateException("Writing an Arrow deletion file in memory failed", e);
    } catch (LinkageError e) {
      throw new IllegalStateException(ARROW_UNAVAILABLE, e);
    }
  }

  static RoaringBitmap read(byte[] bytes, String what) {
    try (BufferAllocator allocator = child("deletion-file-read")) {
      return decode(bytes, what, allocator);
    }
  }

  private static RoaringBitmap decode(byte[] bytes, String what, BufferAllocator allocator) {
    try (ArrowFileReader reader = new ArrowFileReader(
            new SeekableReadChannel(new ByteArrayReadableSeekableByteChannel(bytes)), allocator,
            CommonsCompressionFactory.INSTANCE)) {
      VectorSchemaRoot root = reader.getVectorSchemaRoot();
      checkSchema(root.getSchema(), what);
      List<ArrowBlock> batches = reader.getRecordBlocks();
      if (batches.size() != 1) {
        throw new CorruptDeletionFileException(
            what + " must hold exactly one record batch, it holds " + batches.size());
      }
      if (!reader.loadRecordBatch(batches.get(0))) {
        throw new CorruptDeletionFileException(what + ": its record batch could not be loaded");
      }
      UInt4Vector column = (UInt4Vector) root.getVector(0);
      RoaringBitmap rows = new RoaringBitmap();
      int count = root.getRowCount();
      for (int i = 0; i < count; i++) {
        if (column.isNull(i)) {
          throw new CorruptDeletionFileException(what + " holds a null row offset at position " + i);
        }
        rows.add(column.get(i));
      }
      return rows;
    } catch (CorruptDeletionFileException e) {
      throw e;
    } catch (LinkageError e) {
      throw new IllegalStateException(ARROW_UNAVAILABLE, e);
    } catch (IOException | RuntimeException e) {
      throw new CorruptDeletionFileException(
          what + " is not a readable Arrow IPC file (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")",
          e);
    }
  }

  private static void checkSchema(Schema schema, String what) {
    boolean exact = schema.getFields().size() == 1
        && schema.getCustomMetadata().isEmpty()
        && isRowIdField(schema.getFields().get(0));
    if (!exact) {
      throw new CorruptDeletionFileException(
          what + " must have the schema " + SCHEMA + " (non-null, no metadata), it has " + schema);
    }
  }

  private static boolean isRowIdField(Field field) {
    return field.getName().equals(COLUMN)
        && field.getType().equals(new ArrowType.Int(32, false))
        && !field.isNullable()
        && field.getDictionary() == null
        && field.getChildren().isEmpty()
        && field.getMetadata().isEmpty();
  }
}
