package dev.lancecommit.testing.lance;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.Text;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.ReadOptions;
import org.lance.Session;
import org.lance.Transaction;
import org.lance.Version;
import org.lance.WriteDatasetBuilder;
import org.lance.WriteParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.lance.operation.Append;
import org.lance.operation.Operation;

/**
 * One Lance table seen through stock lance-core: write data files, commit with Lance's own commit loop, open any
 * version and read it back. Works on local paths and on {@code s3://} URIs (pass the object store settings as Lance
 * storage options). Owns one Arrow allocator; close it when done.
 *
 * <p>The test rows are {@link #ROW_SCHEMA}: {@code id int64 not null, value utf8}, with {@code value = "v" + id}, so
 * a reader can check both columns from the ids alone.
 */
public final class LanceTables implements AutoCloseable {

  public static final Schema ROW_SCHEMA = new Schema(List.of(
      new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
      new Field("value", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));

  private final String uri;
  private final Map<String, String> storageOptions;
  private final BufferAllocator allocator;
  /** Shared by every {@link #open}, closed with this; null: each open makes a Session of its own. */
  private final Session session;

  private LanceTables(String uri, Map<String, String> storageOptions, boolean sharedSession) {
    this.uri = uri;
    this.storageOptions = Map.copyOf(storageOptions);
    this.allocator = new RootAllocator();
    this.session = sharedSession ? Session.create() : null;
  }

  public static LanceTables local(Path root) {
    return new LanceTables(root.toAbsolutePath().toString(), Map.of(), false);
  }

  /** A table at {@code uri}: a local path, or {@code s3://bucket/key} with Lance storage options for the store. */
  public static LanceTables at(String uri, Map<String, String> storageOptions) {
    return new LanceTables(uri, storageOptions, false);
  }

  /**
   * The table at {@code uri}, every {@link #open} of it sharing one Lance {@link Session} (its metadata and index
   * caches, Lance's default sizes), as the writer threads of one process would share it. Without one, each open makes
   * a Session of its own with caches of those sizes, which N writers that keep their datasets open hold N times over.
   */
  public static LanceTables sharingOneSession(String uri, Map<String, String> storageOptions) {
    return new LanceTables(uri, storageOptions, true);
  }

  /** The Session every open shares, if this table was made {@link #sharingOneSession}. */
  public Optional<Session> session() {
    return Optional.ofNullable(session);
  }

  public String uri() {
    return uri;
  }

  public Map<String, String> storageOptions() {
    return storageOptions;
  }

  public BufferAllocator allocator() {
    return allocator;
  }

  /** Opens the latest version. The caller closes the dataset. */
  public Dataset open() {
    return Dataset.open(allocator, uri, readOptions().build());
  }

  /** Opens {@code version}. The caller closes the dataset. */
  public Dataset open(long version) {
    return Dataset.open(allocator, uri, readOptions().setVersion(version).build());
  }

  private ReadOptions.Builder readOptions() {
    ReadOptions.Builder options = new ReadOptions.Builder().setStorageOptions(storageOptions);
    return session == null ? options : options.setSession(session);
  }

  public long latestVersion() {
    try (Dataset ds = open()) {
      return ds.version();
    }
  }

  /** Every version Lance lists for the table, ascending. */
  public List<Long> versions() {
    try (Dataset ds = open()) {
      List<Long> out = new ArrayList<>();
      for (Version v : ds.listVersions()) {
        out.add(v.getId());
      }
      out.sort(null);
      return out;
    }
  }

  public long countRows(long version) {
    try (Dataset ds = open(version)) {
      return ds.countRows();
    }
  }

  /**
   * All values of {@code column} at {@code version}, in scan order (fragment order, then row order). Strings come
   * back as {@link String}, integers as {@link Long}/{@link Integer}, nulls as {@code null}.
   */
  public List<Object> readColumn(long version, String column) {
    try (Dataset ds = open(version)) {
      return readColumn(ds, column);
    }
  }

  /** The {@code id} column of the test rows at {@code version}, in scan order. */
  public List<Long> readIds(long version) {
    List<Long> ids = new ArrayList<>();
    for (Object value : readColumn(version, "id")) {
      ids.add(((Number) value).longValue());
    }
    return ids;
  }

  public static List<Object> readColumn(Dataset ds, String column) {
    List<Object> out = new ArrayList<>();
    ScanOptions options = new ScanOptions.Builder().columns(List.of(column)).build();
    try (LanceScanner scanner = ds.newScan(options); ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        FieldVector vector = root.getVector(column);
        for (int i = 0; i < root.getRowCount(); i++) {
          Object value = vector.getObject(i);
          out.add(value instanceof Text text ? text.toString() : value);
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("could not scan column " + column + " of " + ds.uri(), e);
    }
    return out;
  }

  /**
   * Writes test rows {@code firstId .. firstId+count-1} as data files of this table without committing them.
   * Returns the uncommitted fragments (id 0), one per {@code rowsPerFile} rows.
   */
  public List<FragmentMetadata> writeRows(long firstId, int count, int rowsPerFile) {
    try (VectorSchemaRoot root = rows(allocator, firstId, count)) {
      return Fragment.write()
          .datasetUri(uri)
          .allocator(allocator)
          .data(root)
          .storageOptions(storageOptions)
          .maxRowsPerFile(rowsPerFile)
          .execute();
    }
  }

  /** {@link #writeRows(long, int, int)} as a single fragment. */
  public List<FragmentMetadata> writeRows(long firstId, int count) {
    return writeRows(firstId, count, Math.max(count, 1));
  }

  /** Creates the table with test rows through stock Lance's {@code Dataset.write(CREATE)}; returns its version (1). */
  public long createWithLance(long firstId, int count) {
    return writeWithLance(firstId, count, WriteParams.WriteMode.CREATE, 0);
  }

  /** {@link #createWithLance(long, int)} with at most {@code rowsPerFile} rows in each fragment. */
  public long createWithLance(long firstId, int count, int rowsPerFile) {
    return writeWithLance(firstId, count, WriteParams.WriteMode.CREATE, rowsPerFile);
  }

  /**
   * Appends test rows with stock Lance's {@code Dataset.write(APPEND)} (its own commit loop, conflict resolution and
   * retries). Returns the version Lance committed.
   */
  public long appendWithLance(long firstId, int count) {
    return writeWithLance(firstId, count, WriteParams.WriteMode.APPEND, 0);
  }

  /** {@code rowsPerFile} 0: Lance's default. */
  private long writeWithLance(long firstId, int count, WriteParams.WriteMode mode, int rowsPerFile) {
    try (VectorSchemaRoot root = rows(allocator, firstId, count);
        ArrowReader reader = readerOf(root)) {
      WriteDatasetBuilder write = Dataset.write()
          .allocator(allocator)
          .reader(reader)
          .uri(uri)
          .mode(mode)
          .storageOptions(storageOptions);
      if (rowsPerFile > 0) {
        write.maxRowsPerFile(rowsPerFile);
      }
      try (Dataset ds = write.execute()) {
        return ds.version();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Commits already written fragments as an Append through Lance's {@code CommitBuilder}, starting from
   * {@code readVersion}. Lance rebases over newer versions itself. Returns the version Lance committed.
   */
  public long commitAppendWithLance(long readVersion, List<FragmentMetadata> fragments) {
    return commitWithLance(readVersion, Append.builder().fragments(fragments).build());
  }

  /** Commits {@code operation} through Lance's {@code CommitBuilder} from {@code readVersion}. */
  public long commitWithLance(long readVersion, Operation operation) {
    try (Dataset base = open(readVersion);
        Transaction txn = new Transaction(readVersion, operation);
        Dataset committed = new CommitBuilder(base).execute(txn)) {
      return committed.version();
    }
  }

  /** The test rows {@code firstId .. firstId+count-1}. The caller closes the root. */
  public static VectorSchemaRoot rows(BufferAllocator allocator, long firstId, int count) {
    VectorSchemaRoot root = VectorSchemaRoot.create(ROW_SCHEMA, allocator);
    BigIntVector ids = (BigIntVector) root.getVector("id");
    VarCharVector values = (VarCharVector) root.getVector("value");
    ids.allocateNew(count);
    values.allocateNew(count);
    for (int i = 0; i < count; i++) {
      long id = firstId + i;
      ids.setSafe(i, id);
      values.setSafe(i, valueOf(id).getBytes(StandardCharsets.UTF_8));
    }
    root.setRowCount(count);
    return root;
  }

  /** The {@code value} column of test row {@code id}. */
  public static String valueOf(long id) {
    return "v" + id;
  }

  /** An in-memory Arrow stream of {@code root}'s single batch. */
  private ArrowReader readerOf(VectorSchemaRoot root) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ArrowStreamWriter writer = new ArrowStreamWriter(root, null, bytes)) {
      writer.start();
      writer.writeBatch();
      writer.end();
    }
    return new ArrowStreamReader(new ByteArrayInputStream(bytes.toByteArray()), allocator);
  }

  @Override
  public void close() {
    try {
      if (session != null) {
        session.close();
      }
    } finally {
      allocator.close();
    }
  }
}
