package dev.lancecommit.chaos.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lancecommit.e2e.CommitApi;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.testing.lance.LanceTables;
import dev.lancecommit.client.lance.TransactionFactory;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.util.Text;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.lance.merge.MergeInsertParams;
import org.lance.merge.MergeInsertResult;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

/**
 * Writers upsert keys of their own (writer {@code w} of {@code W} owns ids {@code k*W + w}), interleaved in the
 * fragments every writer shares. Through the coordinator a writer does what Lance's merge_insert does, itself: finds
 * the row at its read version, writes the fragment's new deletion file and a fragment holding the new row, and sends
 * the Update (REWRITE_ROWS) with the row's address as {@code affected_rows}, so the coordinator rebases it over the
 * other writers' updates of the same fragment; after a 409/14 it starts again on the latest version. Directly,
 * Lance's own {@code merge_insert} (update all when matched) with its own conflict handling and retries. The whole
 * upsert is timed on both sides (merge_insert cannot be split). Afterwards: version 1 + acknowledged upserts, every
 * key present once, holding the value its last acknowledged upsert wrote.
 */
final class UpsertWorkload implements Workload {
  static final String COORDINATOR = "coordinator";
  static final String LANCE = "lance merge_insert";
  private static final int ROWS_PER_FILE = 256;
  private static final int MAX_ATTEMPTS = 200;
  private static final ObjectMapper JSON = new ObjectMapper();

  @Override
  public List<String> systems() {
    return List.of(COORDINATOR, LANCE);
  }

  @Override
  public RunResult run(String system, Cell cell) throws Exception {
    return system.equals(COORDINATOR) ? throughCoordinator(cell) : throughLance(cell);
  }

  /** What each key must hold afterwards: its last acknowledged value, or a value of an upsert that failed after it. */
  private static final class Expected {
    private final Map<Long, String> acknowledged = new ConcurrentHashMap<>();
    private final Map<Long, Set<String>> uncertain = new ConcurrentHashMap<>();

    void acknowledged(long key, String value) {
      acknowledged.put(key, value);
      uncertain.remove(key);
    }

    void failed(long key, String value) {
      uncertain.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(value);
    }

    boolean accepts(long key, String value) {
      return value.equals(acknowledged.getOrDefault(key, LanceTables.valueOf(key)))
          || uncertain.getOrDefault(key, Set.of()).contains(value);
    }
  }

  private RunResult throughCoordinator(Cell cell) throws Exception {
    int keys = cell.writers() * cell.options().keysPerWriter();
    try (BenchCoordinator coordinator = BenchCoordinator.start(cell)) {
      CommitApi api = coordinator.api();
      coordinator.createNamespace("{}");
      List<String> id = List.of(coordinator.namespace(), "upserts");
      try (LanceTables lance = LanceTables.at(coordinator.declare(id), cell.store().lanceOptions())) {
        CommitApi.Response created = api.commit(id, TransactionFactory.create(
            LanceProtos.schema(LanceTables.ROW_SCHEMA), LanceProtos.fragments(lance.writeRows(0, keys,
                ROWS_PER_FILE))));
        if (created.status() != 200) {
          throw new IllegalStateException("could not create " + id + ": " + created);
        }
        RunResult result = new RunResult(COORDINATOR);
        result.countsRetries();
        Expected expected = new Expected();
        Set<Long> versions = ConcurrentHashMap.newKeySet(); // grouped upserts share a version
        WriterPool.run(result, cell.writers(), cell.options().seconds(), (writer, deadline) -> {
          long seen = 1;
          for (int n = 0; System.nanoTime() < deadline; n++) {
            long key = (long) (n % cell.options().keysPerWriter()) * cell.writers() + writer;
            String value = "w" + writer + "-" + n;
            long start = System.nanoTime();
            try {
              seen = upsertThroughCoordinator(api, id, lance, seen, key, value, result);
              versions.add(seen);
              long end = System.nanoTime();
              result.committed(end - start, 1, end <= deadline);
              expected.acknowledged(key, value);
            } catch (RuntimeException e) {
              result.failed(e);
              expected.failed(key, value);
              seen = api.latestVersion(id);
            }
          }
        });
        verify(result, lance, api.latestVersion(id), versions.size(), keys, expected);
        return result;
      }
    }
  }

  /** One upsert, started again on the latest version after each 409/14 or 429; returns the version it made. */
  private static long upsertThroughCoordinator(CommitApi api, List<String> id, LanceTables lance, long readVersion,
      long key, String value, RunResult result) {
    long read = readVersion;
    for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      long address;
      Transaction txn;
      try (Dataset ds = lance.open(read)) {
        address = rowAddress(ds, key);
        int fragmentId = (int) (address >>> 32);
        FragmentMetadata withDeletion = ds.getFragment(fragmentId).deleteRows(List.of((int) (address & 0xFFFF_FFFFL)));
        List<DataFragment> updated = withDeletion == null ? List.of()
            : List.of(LanceProtos.fragment(withDeletion));
        List<Long> removed = withDeletion == null ? List.of((long) fragmentId) : List.of();
        List<FragmentMetadata> fresh = writeRow(lance, key, value);
        txn = Transaction.newBuilder()
            .setReadVersion(read)
            .setUuid(TransactionFactory.newUuid())
            .setUpdate(Transaction.Update.newBuilder()
                .addAllRemovedFragmentIds(removed)
                .addAllUpdatedFragments(updated)
                .addAllNewFragments(LanceProtos.fragments(fresh))
                .setUpdateMode(Transaction.UpdateMode.REWRITE_ROWS))
            .build();
      }
      Roaring64NavigableMap affected = new Roaring64NavigableMap();
      affected.addLong(address);
      ObjectNode body = JSON.createObjectNode()
          .put("transaction", Base64.getEncoder().encodeToString(txn.toByteArray()))
          .put("affected_rows", Base64.getEncoder().encodeToString(portable(affected)));
      CommitApi.Response r = api.commitBytes(id, body.toString().getBytes(StandardCharsets.UTF_8), CommitApi.JSON);
      if (r.status() == 200) {
        if (r.body().has("group_size")) {
          result.groupSize(r.body().get("group_size").asInt());
        }
        return r.version();
      }
      if (!(r.status() == 409 && r.code() == 14) && r.status() != 429) {
        throw new IllegalStateException("upsert refused: " + r);
      }
      result.retried();
      read = api.latestVersion(id);
    }
    throw new IllegalStateException("no upsert after " + MAX_ATTEMPTS + " attempts");
  }

  private RunResult throughLance(Cell cell) throws Exception {
    int keys = cell.writers() * cell.options().keysPerWriter();
    try (LanceTables lance = LanceTables.at(cell.store().uri(cell.name() + "/lance/upserts.lance"),
        cell.store().lanceOptions())) {
      lance.createWithLance(0, keys);
      RunResult result = new RunResult(LANCE);
      Expected expected = new Expected();
      AtomicLong commits = new AtomicLong();
      WriterPool.run(result, cell.writers(), cell.options().seconds(), (writer, deadline) -> {
        Dataset ds = lance.open();
        try {
          for (int n = 0; System.nanoTime() < deadline; n++) {
            long key = (long) (n % cell.options().keysPerWriter()) * cell.writers() + writer;
            String value = "w" + writer + "-" + n;
            long start = System.nanoTime();
            try {
              Dataset next = mergeInsert(ds, lance.allocator(), key, value);
              long end = System.nanoTime();
              result.committed(end - start, 1, end <= deadline);
              expected.acknowledged(key, value);
              commits.incrementAndGet();
              ds.close();
              ds = next;
            } catch (RuntimeException e) {
              result.failed(e);
              expected.failed(key, value);
              ds.close();
              ds = lance.open();
            }
          }
        } finally {
          ds.close();
        }
      });
      verify(result, lance, lance.latestVersion(), commits.get(), keys, expected);
      return result;
    }
  }

  /** Lance's merge_insert of one row on {@code id}: update all columns when matched, insert when not. */
  private static Dataset mergeInsert(Dataset ds, BufferAllocator allocator, long key, String value) {
    MergeInsertParams params = new MergeInsertParams(List.of("id")).withMatchedUpdateAll()
        .withNotMatched(MergeInsertParams.WhenNotMatched.InsertAll);
    try (VectorSchemaRoot root = row(allocator, key, value);
        ArrowReader reader = readerOf(root, allocator);
        ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator)) {
      Data.exportArrayStream(allocator, reader, stream);
      MergeInsertResult merged = ds.mergeInsert(params, stream);
      return merged.dataset();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The address ({@code fragment << 32 | offset}) of the live row holding {@code key} at the dataset's version. */
  private static long rowAddress(Dataset ds, long key) {
    ScanOptions options = new ScanOptions.Builder().columns(List.of("id")).filter("id = " + key)
        .withRowAddress(true).build();
    try (LanceScanner scanner = ds.newScan(options); ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        if (root.getRowCount() > 0) {
          return ((Number) root.getVector("_rowaddr").getObject(0)).longValue();
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("could not find key " + key, e);
    }
    throw new IllegalStateException("key " + key + " is not in version " + ds.version());
  }

  private static List<FragmentMetadata> writeRow(LanceTables lance, long key, String value) {
    try (VectorSchemaRoot root = row(lance.allocator(), key, value)) {
      return Fragment.write().datasetUri(lance.uri()).allocator(lance.allocator()).data(root)
          .storageOptions(lance.storageOptions()).execute();
    }
  }

  private static VectorSchemaRoot row(BufferAllocator allocator, long key, String value) {
    VectorSchemaRoot root = VectorSchemaRoot.create(LanceTables.ROW_SCHEMA, allocator);
    BigIntVector ids = (BigIntVector) root.getVector("id");
    VarCharVector values = (VarCharVector) root.getVector("value");
    ids.allocateNew(1);
    values.allocateNew(1);
    ids.setSafe(0, key);
    values.setSafe(0, value.getBytes(StandardCharsets.UTF_8));
    root.setRowCount(1);
    return root;
  }

  private static ArrowReader readerOf(VectorSchemaRoot root, BufferAllocator allocator) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ArrowStreamWriter writer = new ArrowStreamWriter(root, null, bytes)) {
      writer.start();
      writer.writeBatch();
      writer.end();
    }
    return new ArrowStreamReader(new ByteArrayInputStream(bytes.toByteArray()), allocator);
  }

  private static byte[] portable(Roaring64NavigableMap rows) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      rows.serializePortable(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /**
   * Version 1 + the versions acknowledged upserts made (one each, fewer when grouped); every key once, with the value
   * its last acknowledged upsert wrote.
   */
  private static void verify(RunResult result, LanceTables lance, long latest, long versionsMade, int keys,
      Expected expected) {
    Map<Long, String> values = new HashMap<>();
    Set<Long> duplicated = new HashSet<>();
    try (Dataset ds = lance.open(latest);
        LanceScanner scanner = ds.newScan(new ScanOptions.Builder().columns(List.of("id", "value")).build());
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        FieldVector ids = root.getVector("id");
        FieldVector vals = root.getVector("value");
        for (int i = 0; i < root.getRowCount(); i++) {
          long key = ((Number) ids.getObject(i)).longValue();
          Object v = vals.getObject(i);
          if (values.put(key, v instanceof Text text ? text.toString() : String.valueOf(v)) != null) {
            duplicated.add(key);
          }
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("could not read version " + latest, e);
    }
    List<String> wrong = new ArrayList<>();
    for (long key = 0; key < keys; key++) {
      String value = values.get(key);
      if (value == null || !expected.accepts(key, value)) {
        wrong.add(key + "=" + value);
      }
    }
    boolean ok = latest == 1 + versionsMade && values.size() == keys && duplicated.isEmpty() && wrong.isEmpty();
    result.verification(ok, "v" + latest + " (expected v" + (1 + versionsMade) + "), " + values.size() + " keys of "
        + keys + (duplicated.isEmpty() ? "" : ", duplicated " + duplicated.size())
        + (wrong.isEmpty() ? "" : ", wrong values " + wrong.subList(0, Math.min(3, wrong.size()))));
  }
}
