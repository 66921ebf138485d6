package dev.lancecommit.chaos.differential;

import dev.lancecommit.testing.lance.LanceTables;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.LongFunction;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;

/** Rows of {@link LanceTables#ROW_SCHEMA} with chosen values, as Arrow batches and C streams for lance-core. */
public final class TestRows {
  private TestRows() {}

  /** Rows {@code ids} with {@code value = values(id)}. The caller closes the root. */
  public static VectorSchemaRoot root(BufferAllocator allocator, List<Long> ids, LongFunction<String> values) {
    VectorSchemaRoot root = VectorSchemaRoot.create(LanceTables.ROW_SCHEMA, allocator);
    BigIntVector idVector = (BigIntVector) root.getVector("id");
    VarCharVector valueVector = (VarCharVector) root.getVector("value");
    idVector.allocateNew(ids.size());
    valueVector.allocateNew(ids.size());
    for (int i = 0; i < ids.size(); i++) {
      idVector.setSafe(i, ids.get(i));
      valueVector.setSafe(i, values.apply(ids.get(i)).getBytes(StandardCharsets.UTF_8));
    }
    root.setRowCount(ids.size());
    return root;
  }

  /**
   * Exports the single batch {@code root} as an Arrow C stream for lance-core's stream-taking calls. The caller
   * closes the stream after the call.
   */
  public static ArrowArrayStream stream(BufferAllocator allocator, VectorSchemaRoot root) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ArrowStreamWriter writer = new ArrowStreamWriter(root, null, bytes)) {
      writer.start();
      writer.writeBatch();
      writer.end();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ArrowReader reader = new ArrowStreamReader(new ByteArrayInputStream(bytes.toByteArray()), allocator);
    ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator);
    Data.exportArrayStream(allocator, reader, stream);
    return stream;
  }
}
