package dev.lancecommit.chaos.property;

import dev.lancecommit.chaos.differential.RowAddresses;
import dev.lancecommit.chaos.differential.TableFiles;
import dev.lancecommit.chaos.differential.TestRows;
import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.lance.LanceTables;
import dev.lancecommit.testing.lance.StockLanceFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.ScalarIndexParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

/**
 * A writer outside the coordinator: it knows the table only as stock Lance shows it at its read version, writes data
 * and deletion files with lance-core, and builds the transaction a Lance writer would send.
 */
final class Writer {
  static final String INDEX_NAME = "id_idx";

  private final LanceTables table;
  private final Path localRoot;
  private final Path scratchDir;
  private long nextId;

  Writer(LanceTables table, Path localRoot, Path scratchDir, long firstFreeId) {
    this.table = table;
    this.localRoot = localRoot;
    this.scratchDir = scratchDir;
    this.nextId = firstFreeId;
  }

  /** The operation of {@code step} on {@code readVersion}, or empty when it has nothing to do there. */
  Optional<PlannedCommit> plan(Step step, long readVersion) {
    return switch (step.kind()) {
      case APPEND -> Optional.of(append(step, readVersion));
      case DELETE -> delete(step, readVersion);
      case OVERWRITE -> Optional.of(overwrite(step, readVersion));
      case REWRITE -> rewrite(step, readVersion);
      case UPDATE_CONFIG -> Optional.of(updateConfig(step, readVersion));
      case CREATE_INDEX -> Optional.of(createIndex(step, readVersion));
    };
  }

  private PlannedCommit append(Step step, long readVersion) {
    Map<Long, String> rows = freshRows(1 + step.parameter() % 5);
    Transaction txn = TransactionFactory.append(readVersion, write(rows));
    return new PlannedCommit(step, readVersion, txn, Optional.empty(), m -> m.insert(rows), Set.of(), Set.of(),
        "append ids " + rows.keySet());
  }

  private PlannedCommit overwrite(Step step, long readVersion) {
    Map<Long, String> rows = freshRows(3 + step.parameter() % 4);
    Transaction txn = TransactionFactory.overwrite(readVersion, LanceProtos.schema(LanceTables.ROW_SCHEMA),
        write(rows));
    return new PlannedCommit(step, readVersion, txn, Optional.empty(), m -> m.replaceAll(rows), Set.of(), Set.of(),
        "overwrite with ids " + rows.keySet());
  }

  /** Delete by predicate: the writer finds the matching rows at its read version and deletes exactly those. */
  private Optional<PlannedCommit> delete(Step step, long readVersion) {
    int modulus = 2 + step.parameter() % 4;
    int remainder = (step.parameter() / 4) % modulus;
    String predicate = "id % " + modulus + " = " + remainder;
    try (Dataset ds = table.open(readVersion)) {
      Map<Integer, List<Integer>> offsetsByFragment = new TreeMap<>();
      List<Long> ids = new ArrayList<>();
      Roaring64NavigableMap addresses = new Roaring64NavigableMap();
      ScanOptions options = new ScanOptions.Builder().columns(List.of("id")).filter(predicate).withRowAddress(true)
          .build();
      try (LanceScanner scanner = ds.newScan(options); ArrowReader reader = scanner.scanBatches()) {
        while (reader.loadNextBatch()) {
          VectorSchemaRoot root = reader.getVectorSchemaRoot();
          BigIntVector idVector = (BigIntVector) root.getVector("id");
          UInt8Vector addressVector = (UInt8Vector) root.getVector("_rowaddr");
          for (int i = 0; i < root.getRowCount(); i++) {
            long address = addressVector.get(i);
            ids.add(idVector.get(i));
            addresses.addLong(address);
            offsetsByFragment.computeIfAbsent((int) (address >>> 32), k -> new ArrayList<>())
                .add((int) (address & 0xffffffffL));
          }
        }
      } catch (Exception e) {
        throw new IllegalStateException("scan of " + predicate + " at version " + readVersion + " failed", e);
      }
      if (ids.isEmpty()) {
        return Optional.empty();
      }
      List<DataFragment> updated = new ArrayList<>();
      List<Long> removed = new ArrayList<>();
      for (Map.Entry<Integer, List<Integer>> e : offsetsByFragment.entrySet()) {
        Fragment fragment = ds.getFragment(e.getKey());
        FragmentMetadata after = fragment.countRows() == e.getValue().size() ? null
            : fragment.deleteRows(e.getValue());
        if (after == null) {
          removed.add((long) e.getKey());
        } else {
          updated.add(LanceProtos.fragment(after));
        }
      }
      Transaction txn = TransactionFactory.delete(readVersion, updated, removed, predicate);
      return Optional.of(new PlannedCommit(step, readVersion, txn,
          Optional.of(RowAddresses.portable(addresses)), m -> m.delete(ids), Set.of(), Set.of(),
          "delete " + predicate + " -> ids " + ids + " (fragments updated " + offsetsByFragment.keySet()
              + ", removed " + removed + ")"));
    }
  }

  /** Compaction: up to two neighbouring fragments as of the read version become one, deletions materialized. */
  private Optional<PlannedCommit> rewrite(Step step, long readVersion) {
    try (Dataset ds = table.open(readVersion)) {
      List<Fragment> fragments = new ArrayList<>(ds.getFragments());
      if (fragments.isEmpty()) {
        return Optional.empty();
      }
      fragments.sort((a, b) -> Integer.compare(a.getId(), b.getId()));
      int start = step.parameter() % fragments.size();
      List<Fragment> old = fragments.subList(start, Math.min(start + 2, fragments.size()));
      List<Integer> oldIds = old.stream().map(Fragment::getId).toList();
      Map<Long, String> live = new LinkedHashMap<>();
      ScanOptions options = new ScanOptions.Builder().columns(List.of("id", "value")).fragmentIds(oldIds).build();
      for (List<Object> row : scan(ds, options)) {
        live.put(((Number) row.get(0)).longValue(), String.valueOf(row.get(1)));
      }
      List<DataFragment> oldProtos = old.stream().map(f -> LanceProtos.fragment(f.metadata())).toList();
      Transaction txn = TransactionFactory.rewrite(readVersion, oldProtos, write(live));
      return Optional.of(new PlannedCommit(step, readVersion, txn, Optional.empty(), m -> { }, Set.of(), Set.of(),
          "rewrite fragments " + oldIds + " (" + live.size() + " live rows) into one"));
    }
  }

  private PlannedCommit updateConfig(Step step, long readVersion) {
    String key = "k" + step.parameter() % 3;
    boolean delete = step.parameter() % 4 == 0;
    String value = "v" + step.parameter();
    Transaction txn = TransactionFactory.updateConfig(readVersion, delete ? Map.of() : Map.of(key, value),
        delete ? List.of(key) : List.of());
    return new PlannedCommit(step, readVersion, txn, Optional.empty(),
        m -> {
          if (delete) {
            m.deleteConfig(key);
          } else {
            m.upsertConfig(key, value);
          }
        },
        delete ? Set.of() : Set.of(key), delete ? Set.of(key) : Set.of(),
        (delete ? "delete config " + key : "upsert config " + key + "=" + value));
  }

  /**
   * Builds a BTREE index with stock Lance on a copy of the table as of the read version (so Lance builds exactly on
   * that version and commits nothing here), brings the index files over and sends the transaction Lance recorded.
   */
  private PlannedCommit createIndex(Step step, long readVersion) {
    Path scratch = scratchDir.resolve("index-" + step.writer() + "-" + System.nanoTime() + ".lance");
    TableFiles.copyUpToVersion(localRoot, scratch, readVersion);
    byte[] bytes;
    try (LanceTables copy = LanceTables.local(scratch)) {
      try (Dataset ds = copy.open()) {
        if (ds.version() != readVersion) {
          throw new IllegalStateException("copy of version " + readVersion + " opens at " + ds.version());
        }
        ds.createIndex(List.of("id"), IndexType.BTREE, Optional.of(INDEX_NAME),
            IndexParams.builder().setScalarIndexParams(ScalarIndexParams.create("btree")).build(), true);
      }
      String file = StockLanceFiles.manifest(scratch, readVersion + 1).getTransactionFile();
      bytes = TableFiles.read(scratch.resolve("_transactions").resolve(file));
    }
    TableFiles.copyNewFiles(localRoot, scratch, localRoot);
    TableFiles.deleteTree(scratch);
    Transaction txn;
    try {
      txn = Transaction.parseFrom(bytes);
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new IllegalStateException(e);
    }
    return new PlannedCommit(step, readVersion, txn, Optional.empty(), m -> { }, Set.of(), Set.of(),
        "create index " + INDEX_NAME + " on id");
  }

  private Map<Long, String> freshRows(int count) {
    Map<Long, String> rows = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      long id = nextId++;
      rows.put(id, LanceTables.valueOf(id));
    }
    return rows;
  }

  /** Writes the rows as one uncommitted fragment with stock Lance. */
  private List<DataFragment> write(Map<Long, String> rows) {
    try (VectorSchemaRoot root = TestRows.root(table.allocator(), new ArrayList<>(rows.keySet()), rows::get)) {
      return LanceProtos.fragments(Fragment.write()
          .datasetUri(table.uri())
          .allocator(table.allocator())
          .data(root)
          .execute());
    }
  }

  static List<List<Object>> scan(Dataset ds, ScanOptions options) {
    List<List<Object>> out = new ArrayList<>();
    try (LanceScanner scanner = ds.newScan(options); ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        for (int i = 0; i < root.getRowCount(); i++) {
          List<Object> row = new ArrayList<>();
          for (var vector : root.getFieldVectors()) {
            Object value = vector.getObject(i);
            row.add(value instanceof org.apache.arrow.vector.util.Text t ? t.toString() : value);
          }
          out.add(row);
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("stock Lance could not scan " + ds.uri() + " at version " + ds.version(), e);
    }
    return out;
  }
}
