package dev.lancecommit.chaos.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lancecommit.e2e.CommitApi;
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
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
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
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.lance.merge.MergeInsertParams;
import org.lance.merge.MergeInsertResult;
import org.lance.operation.Update;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

/**
 * Writers upsert keys of their own (writer {@code w} of {@code W} owns ids {@code k*W + w}), interleaved in the
 * fragments every writer shares. Three systems, each on a table laid out the same way (256 rows per fragment):
 * <ul>
 *   <li>{@code coordinator} and {@code lance update} run the same writer, which does what Lance's merge_insert does,
 *       itself: it removes the key's old row (a new deletion file for a fragment other rows live in, the whole
 *       fragment when the key's row is its only one), writes a fragment holding the new row, and commits the Update
 *       (REWRITE_ROWS). It knows where each of its keys lives (one scan before the clock, then from its own commits:
 *       the fragment it wrote, found in the version it committed), so no upsert scans the table. Through the
 *       coordinator the Update carries the row's address as {@code affected_rows}, so it is rebased over the other
 *       writers' updates of the same fragment; directly, it goes through Lance's own commit loop
 *       ({@code CommitBuilder}: rebase over compatible versions, put-if-not-exists, retries). Both start the upsert
 *       again on the latest version when told to retry (409/14 or 429; Lance's retryable commit conflict).</li>
 *   <li>{@code lance merge_insert}: Lance's own {@code merge_insert} (update all when matched), which scans for the
 *       row and handles conflicts and retries itself; what a Lance user writes today.</li>
 * </ul>
 * The whole upsert is timed (merge_insert cannot be split), except, with files written ahead, the fragment of the new
 * row, which {@code coordinator} and {@code lance update} writers then find written ({@link #rowsWrittenAhead}).
 * Afterwards: version 1 + acknowledged upserts (fewer when grouped), every key present once, holding the value its
 * last acknowledged upsert wrote.
 */
final class UpsertWorkload implements Workload {
  static final String COORDINATOR = "coordinator";
  static final String LANCE_UPDATE = "lance update";
  static final String LANCE_MERGE_INSERT = "lance merge_insert";
  private static final int ROWS_PER_FILE = 256;
  private static final int MAX_ATTEMPTS = 200;
  private static final ObjectMapper JSON = new ObjectMapper();

  @Override
  public List<String> systems() {
    return List.of(COORDINATOR, LANCE_UPDATE, LANCE_MERGE_INSERT);
  }

  @Override
  public RunResult run(String system, Cell cell) throws Exception {
    return switch (system) {
      case COORDINATOR -> throughCoordinator(cell);
      case LANCE_UPDATE -> throughLanceCommitLoop(cell);
      default -> throughMergeInsert(cell);
    };
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

  /**
   * Commits one prepared upsert from {@code readVersion} ({@code ds} is the newest version the writer has open);
   * answers what it made, or null when told to retry.
   */
  private interface UpsertCommit {
    Committed commit(Dataset ds, long readVersion, PreparedUpsert upsert);
  }

  /**
   * A committed upsert: its version, and either that version opened (Lance's commit returns it) or the id the version
   * gave the upsert's new fragment (the coordinator's answer names it), or both.
   */
  private record Committed(long version, Dataset opened, Long freshFragmentId) {}

  /** An upsert's Update, ready to commit from the version it was prepared on. */
  private record PreparedUpsert(long rowAddress, List<Long> removed, List<FragmentMetadata> updated,
      FragmentMetadata fresh) {
    Update operation() {
      return Update.builder()
          .removedFragmentIds(removed)
          .updatedFragments(updated)
          .newFragments(List.of(fresh))
          .fieldsModified(new long[0])
          .fieldsForPreservingFragBitmap(new long[0])
          .updateMode(Optional.of(Update.UpdateMode.RewriteRows))
          .build();
    }

    Transaction transaction(long readVersion) {
      return Transaction.newBuilder()
          .setReadVersion(readVersion)
          .setUuid(TransactionFactory.newUuid())
          .setUpdate(Transaction.Update.newBuilder()
              .addAllRemovedFragmentIds(removed)
              .addAllUpdatedFragments(updated.stream().map(LanceProtos::fragment).toList())
              .addAllNewFragments(LanceProtos.fragments(List.of(fresh)))
              .setUpdateMode(Transaction.UpdateMode.REWRITE_ROWS))
          .build();
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
        Set<Long> versions = ConcurrentHashMap.newKeySet(); // grouped upserts share a version
        Expected expected = sameWriter(cell, lance, result, () -> api.latestVersion(id), (ds, readVersion, upsert) -> {
          Roaring64NavigableMap affected = new Roaring64NavigableMap();
          affected.addLong(upsert.rowAddress());
          ObjectNode body = JSON.createObjectNode()
              .put("transaction", Base64.getEncoder().encodeToString(upsert.transaction(readVersion).toByteArray()))
              .put("affected_rows", Base64.getEncoder().encodeToString(portable(affected)));
          CommitApi.Response r = api.commitBytes(id, body.toString().getBytes(StandardCharsets.UTF_8),
              CommitApi.JSON);
          if (r.status() == 200) {
            if (r.body().has("group_size")) {
              result.groupSize(r.body().get("group_size").asInt());
            }
            versions.add(r.version());
            JsonNode ids = r.body().path("new_fragment_ids");
            return ids.size() == 1 ? new Committed(r.version(), null, ids.get(0).asLong())
                : new Committed(r.version(), ds.checkoutVersion(r.version()), null);
          }
          if ((r.status() == 409 && r.code() == 14) || r.status() == 429) {
            return null;
          }
          throw new IllegalStateException("upsert refused: " + r);
        });
        verify(result, lance, api.latestVersion(id), versions.size(), keys, expected);
        return result;
      }
    }
  }

  private RunResult throughLanceCommitLoop(Cell cell) throws Exception {
    int keys = cell.writers() * cell.options().keysPerWriter();
    try (LanceTables lance = createdWithLance(cell, "lance-update", keys)) {
      RunResult result = new RunResult(LANCE_UPDATE);
      AtomicLong commits = new AtomicLong();
      Expected expected = sameWriter(cell, lance, result, lance::latestVersion, (ds, readVersion, upsert) -> {
        try (org.lance.Transaction txn = new org.lance.Transaction(readVersion, upsert.operation())) {
          Dataset committed = new CommitBuilder(ds).execute(txn);
          commits.incrementAndGet();
          return new Committed(committed.version(), committed, null);
        } catch (RuntimeException e) {
          if (isRetryableConflict(e)) {
            return null;
          }
          throw e;
        }
      });
      verify(result, lance, lance.latestVersion(), commits.get(), keys, expected);
      return result;
    }
  }

  /**
   * Lance's "retry the operation on the new version" answer (RetryableCommitConflict), as its Java binding throws
   * it.
   */
  private static boolean isRetryableConflict(RuntimeException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String message = String.valueOf(t.getMessage()).toLowerCase(java.util.Locale.ROOT);
      if (message.contains("retryable commit conflict") || message.contains("retryablecommitconflict")) {
        return true;
      }
    }
    return false;
  }

  /**
   * The writers of {@code coordinator} and {@code lance update}: the same preparation, the same timing, only
   * {@code commit} differs. Returns what every key must hold afterwards.
   */
  private static Expected sameWriter(Cell cell, LanceTables lance, RunResult result, LongSupplier latestVersion,
      UpsertCommit commit) throws Exception {
    result.countsRetries();
    Expected expected = new Expected();
    Map<Long, Long> initial;
    try (Dataset first = lance.open(1)) {
      initial = rowAddresses(first);
    }
    int initialMaxFragmentId = initial.values().stream().mapToInt(a -> (int) (a >>> 32)).max().orElse(0);
    List<List<FragmentMetadata>> rowsAhead = rowsWrittenAhead(cell, lance);
    AtomicInteger writtenInWindow = new AtomicInteger();
    WriterPool.run(result, cell.writers(), cell.options().seconds(), (writer, deadline) -> {
      List<FragmentMetadata> mine = rowsAhead.get(writer);
      Map<Long, Long> addresses = new HashMap<>(); // this writer's keys -> row address at the version it holds
      for (int k = 0; k < cell.options().keysPerWriter(); k++) {
        long key = (long) k * cell.writers() + writer;
        addresses.put(key, initial.get(key));
      }
      int belowNewFragments = initialMaxFragmentId; // new fragments of later versions get higher ids
      Dataset ds = lance.open(1);
      long known = 1; // the newest version this writer knows: the one it has open, or the one its last upsert made
      try {
        for (int n = 0; System.nanoTime() < deadline; n++) {
          long key = keyOf(cell, writer, n);
          String value = valueOf(writer, n);
          long start = System.nanoTime();
          try {
            FragmentMetadata fresh;
            if (n < mine.size()) {
              fresh = mine.get(n);
            } else {
              fresh = writeRow(lance, key, value);
              writtenInWindow.incrementAndGet();
            }
            Committed committed = null;
            for (int attempt = 1; committed == null; attempt++) {
              if (attempt > MAX_ATTEMPTS) {
                throw new IllegalStateException("no upsert after " + MAX_ATTEMPTS + " attempts");
              }
              long address = addresses.get(key);
              // A row in a one-row fragment this writer wrote is replaced by removing that fragment: nothing of it
              // is read, so the Update may name as its read version the newest version the writer knows (which has
              // the fragment). A row in a shared fragment gets a deletion file made from the version open.
              boolean ownFragment = (int) (address >>> 32) > initialMaxFragmentId;
              committed = commit.commit(ds, ownFragment ? Math.max(known, ds.version()) : ds.version(),
                  prepare(ds, address, fresh, ownFragment));
              if (committed == null) {
                result.retried();
                Dataset latest = ds.checkoutVersion(latestVersion.getAsLong());
                ds.close();
                ds = latest;
                known = Math.max(known, ds.version());
              }
            }
            known = Math.max(known, committed.version());
            boolean sharedRowsLeft = addresses.entrySet().stream()
                .anyMatch(e -> e.getKey() != key && (int) (e.getValue() >>> 32) <= initialMaxFragmentId);
            Dataset opened = committed.opened();
            if (opened == null && (sharedRowsLeft || committed.freshFragmentId() == null)) {
              opened = ds.checkoutVersion(committed.version()); // the next deletion file is made from it
            }
            if (opened != null) {
              ds.close();
              ds = opened;
            }
            belowNewFragments = committed.freshFragmentId() != null ? committed.freshFragmentId().intValue()
                : fragmentHolding(ds, fresh, belowNewFragments);
            addresses.put(key, (long) belowNewFragments << 32);
            long end = System.nanoTime();
            result.committed(end - start, 1, end <= deadline);
            expected.acknowledged(key, value);
          } catch (RuntimeException e) {
            result.failed(e);
            expected.failed(key, value);
            ds.close();
            ds = lance.open(latestVersion.getAsLong());
            // the key's row may have moved in an upsert whose outcome is unknown: find it again
            addresses.putAll(rowAddresses(ds, addresses.keySet()));
          }
        }
      } finally {
        ds.close();
      }
    });
    if (!rowsAhead.stream().allMatch(List::isEmpty)) {
      CommitBenchmark.log("rows the writers wrote inside the window: " + writtenInWindow.get());
    }
    return expected;
  }

  /** The key writer {@code writer}'s {@code n}-th upsert sets: its keys in turn. */
  private static long keyOf(Cell cell, int writer, int n) {
    return (long) (n % cell.options().keysPerWriter()) * cell.writers() + writer;
  }

  /** The value writer {@code writer}'s {@code n}-th upsert sets. */
  private static String valueOf(int writer, int n) {
    return "w" + writer + "-" + n;
  }

  /**
   * Each writer's first new rows, one fragment each, written before the window when the options ask for files
   * ahead ({@link BenchOptions#dataFilesAheadOfWindow}, split evenly over the writers), as the appends' data files
   * are. What an upsert writes is known in advance ({@link #keyOf}, {@link #valueOf}), so only the fragment is
   * written ahead: its deletion file, or the fragment it removes, depends on the version it commits on, and is made
   * inside the window by both systems.
   */
  private static List<List<FragmentMetadata>> rowsWrittenAhead(Cell cell, LanceTables lance) throws Exception {
    int writers = cell.writers();
    int each = (int) Math.ceil((double) cell.options().dataFilesAheadOfWindow() / writers);
    List<List<FragmentMetadata>> ahead = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      ahead.add(new ArrayList<>(Collections.nCopies(each, (FragmentMetadata) null)));
    }
    if (each == 0) {
      return ahead;
    }
    CommitBenchmark.log("writing " + (long) each * writers + " upserted rows before the window");
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(writers, 8));
    try {
      List<Future<?>> written = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        for (int n = 0; n < each; n++) {
          int writer = w;
          int upsert = n;
          written.add(pool.submit(() -> ahead.get(writer).set(upsert,
              writeRow(lance, keyOf(cell, writer, upsert), valueOf(writer, upsert)))));
        }
      }
      for (Future<?> f : written) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    CommitBenchmark.flushWrittenAhead(cell);
    return ahead;
  }

  /** The Update that replaces the row at {@code address} (as of {@code ds}) with {@code fresh}'s row. */
  private static PreparedUpsert prepare(Dataset ds, long address, FragmentMetadata fresh, boolean ownFragment) {
    int fragmentId = (int) (address >>> 32);
    if (ownFragment) {
      return new PreparedUpsert(address, List.of((long) fragmentId), List.of(), fresh);
    }
    Fragment fragment = ds.getFragment(fragmentId);
    FragmentMetadata withDeletion = fragment.metadata().getNumRows() == 1 ? null
        : fragment.deleteRows(List.of((int) (address & 0xFFFF_FFFFL)));
    return withDeletion == null
        ? new PreparedUpsert(address, List.of((long) fragmentId), List.of(), fresh)
        : new PreparedUpsert(address, List.of(), List.of(withDeletion), fresh);
  }

  /**
   * The id {@code ds} gave the fragment this writer wrote as {@code fresh}: higher than {@code below}, the id of a
   * fragment of an earlier version. Looked up id by id upwards (as many lookups as fragments the other writers added
   * meanwhile), since listing every fragment would make each upsert's cost grow with the table.
   */
  private static int fragmentHolding(Dataset ds, FragmentMetadata fresh, int below) {
    String path = fresh.getFiles().get(0).getPath();
    for (int id = below + 1; id <= below + 100_000; id++) {
      FragmentMetadata metadata;
      try {
        metadata = ds.getFragment(id).metadata();
      } catch (RuntimeException absent) { // removed, or not (yet) in this version
        continue;
      }
      if (metadata.getFiles().get(0).getPath().equals(path)) {
        return id;
      }
    }
    throw new IllegalStateException("version " + ds.version() + " has no fragment with data file " + path
        + " among the 100,000 ids above " + below);
  }

  private RunResult throughMergeInsert(Cell cell) throws Exception {
    int keys = cell.writers() * cell.options().keysPerWriter();
    try (LanceTables lance = createdWithLance(cell, "lance", keys)) {
      RunResult result = new RunResult(LANCE_MERGE_INSERT);
      Expected expected = new Expected();
      AtomicLong commits = new AtomicLong();
      WriterPool.run(result, cell.writers(), cell.options().seconds(), (writer, deadline) -> {
        Dataset ds = lance.open();
        try {
          for (int n = 0; System.nanoTime() < deadline; n++) {
            long key = keyOf(cell, writer, n);
            String value = valueOf(writer, n);
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

  /**
   * A table under {@code dir} of the cell, created straight with Lance at version 1 holding keys {@code 0 .. keys-1},
   * 256 rows per fragment, as the coordinator's is made.
   */
  private static LanceTables createdWithLance(Cell cell, String dir, int keys) {
    LanceTables lance = cell.options().lanceTable(cell.store().uri(cell.name() + "/" + dir + "/upserts.lance"),
        cell.store().lanceOptions());
    try {
      long version = lance.createWithLance(0, keys, ROWS_PER_FILE);
      if (version != 1) {
        throw new IllegalStateException("created " + lance.uri() + " at version " + version);
      }
    } catch (RuntimeException e) {
      lance.close();
      throw e;
    }
    return lance;
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

  /** The address ({@code fragment << 32 | offset}) of every live row, by key. */
  private static Map<Long, Long> rowAddresses(Dataset ds) {
    return rowAddresses(ds, null);
  }

  /** The addresses of the live rows of {@code keys} (of every key when null), by key. */
  private static Map<Long, Long> rowAddresses(Dataset ds, Set<Long> keys) {
    ScanOptions.Builder options = new ScanOptions.Builder().columns(List.of("id")).withRowAddress(true);
    if (keys != null) {
      options.filter("id IN (" + String.join(",", keys.stream().map(String::valueOf).toList()) + ")");
    }
    Map<Long, Long> addresses = new HashMap<>();
    try (LanceScanner scanner = ds.newScan(options.build()); ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        FieldVector ids = root.getVector("id");
        FieldVector rowAddresses = root.getVector("_rowaddr");
        for (int i = 0; i < root.getRowCount(); i++) {
          addresses.put(((Number) ids.getObject(i)).longValue(), ((Number) rowAddresses.getObject(i)).longValue());
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("could not scan version " + ds.version(), e);
    }
    return addresses;
  }

  private static FragmentMetadata writeRow(LanceTables lance, long key, String value) {
    try (VectorSchemaRoot root = row(lance.allocator(), key, value)) {
      return Fragment.write().datasetUri(lance.uri()).allocator(lance.allocator()).data(root)
          .storageOptions(lance.storageOptions()).execute().get(0);
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

  /** Row addresses as the commit API's {@code affected_rows} takes them: a portable 64-bit Roaring map. */
  static byte[] portable(Roaring64NavigableMap rows) {
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
