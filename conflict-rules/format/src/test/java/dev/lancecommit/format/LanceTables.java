package dev.lancecommit.format;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.WriteParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/** Real Lance tables for the oracle tests: rows {id: int64, name: utf8}, written through lance-core. */
final class LanceTables {
  static final Schema SCHEMA =
      new Schema(
          List.of(
              new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
              new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));

  private LanceTables() {}

  /** Rows with ids [from, from + count) as an in-memory Arrow stream. */
  static ArrowReader rows(BufferAllocator allocator, long from, int count) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, allocator);
        ArrowStreamWriter writer = new ArrowStreamWriter(root, null, out)) {
      BigIntVector id = (BigIntVector) root.getVector("id");
      VarCharVector name = (VarCharVector) root.getVector("name");
      id.allocateNew(count);
      name.allocateNew(count);
      for (int i = 0; i < count; i++) {
        id.set(i, from + i);
        name.setSafe(i, ("row-" + (from + i)).getBytes(StandardCharsets.UTF_8));
      }
      root.setRowCount(count);
      writer.start();
      writer.writeBatch();
      writer.end();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new ArrowStreamReader(new ByteArrayInputStream(out.toByteArray()), allocator);
  }

  /** Creates or appends through the plain write API (Lance 7 default: V2 manifest names). */
  static void write(BufferAllocator allocator, Path table, WriteParams.WriteMode mode, long from, int count) {
    try (ArrowReader reader = rows(allocator, from, count);
        Dataset ds =
            Dataset.write()
                .allocator(allocator)
                .reader(reader)
                .uri(table.toString())
                .mode(mode)
                .execute()) {
      // closing is all that is needed
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Creates a table with V1 manifest names and stable row ids. */
  static void createV1WithStableRowIds(BufferAllocator allocator, Path table, long from, int count) {
    WriteParams params =
        new WriteParams.Builder()
            .withMode(WriteParams.WriteMode.CREATE)
            .withEnableV2ManifestPaths(false)
            .withEnableStableRowIds(true)
            .build();
    try (ArrowReader reader = rows(allocator, from, count);
        ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator)) {
      Data.exportArrayStream(allocator, reader, stream);
      Dataset.create(allocator, stream, table.toString(), params).close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Dataset open(BufferAllocator allocator, Path table) {
    return Dataset.open().allocator(allocator).uri(table.toString()).build();
  }

  /** Every id value of the dataset's current version, sorted. */
  static List<Long> ids(Dataset ds) {
    return column(ds, "id", false);
  }

  /** The _rowid of every visible row, sorted. */
  static List<Long> rowIds(Dataset ds) {
    return column(ds, "_rowid", true);
  }

  private static List<Long> column(Dataset ds, String column, boolean withRowId) {
    List<Long> values = new ArrayList<>();
    ScanOptions options =
        new ScanOptions.Builder().columns(List.of("id")).withRowId(withRowId).build();
    try (LanceScanner scanner = ds.newScan(options);
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        BaseIntVector vector = (BaseIntVector) reader.getVectorSchemaRoot().getVector(column);
        for (int i = 0; i < vector.getValueCount(); i++) {
          values.add(vector.getValueAsLong(i));
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    values.sort(null);
    return values;
  }

  /** File names in {@code dir} (not recursive). */
  static List<String> list(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static byte[] read(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
