package dev.lancecommit.chaos.harness;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.lance.LanceTables;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.compaction.Compaction;
import org.lance.compaction.CompactionOptions;
import org.lance.compaction.CompactionPlan;
import org.lance.compaction.CompactionTask;
import org.lance.compaction.RewriteResult;
import org.lance.index.Index;
import org.lance.index.IndexOptions;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.ScalarIndexParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * Builds a writer's transactions the way a Lance writer would, from the table as it was at the writer's read
 * version, with stock lance-core doing the data work without committing: data files ({@code Fragment.write}),
 * deletion files ({@code Fragment.deleteRows}), compaction ({@code CompactionTask.execute}) and index files
 * ({@code Dataset.createIndex} on explicit fragments, then {@code mergeIndexMetadata}). The commit itself is left to
 * the coordinator. One planner per writer thread (it owns that writer's random choices). The fuzz suite
 * ({@code dev.lancecommit.chaos.fuzz}) takes its real transactions from here too.
 */
public final class TransactionPlanner {
  static final String INDEX_NAME = "id_idx";
  private static final String BTREE_DETAILS = "/lance.table.BTreeIndexDetails";
  private static final int MAX_ROWS_PER_APPEND = 8;
  private static final int MAX_ROWS_PER_DELETE = 3;

  private final Random random;

  public TransactionPlanner(Random random) {
    this.random = random;
  }

  /**
   * A transaction of {@code type} on {@code readVersion}, or null when the table offers nothing to do (no row to
   * delete, nothing to compact).
   */
  public PlannedCommit plan(OperationType type, ChaosTable table, long readVersion) {
    return switch (type) {
      case APPEND -> append(table, readVersion);
      case DELETE -> deleteOrUpdate(table, readVersion, false);
      case UPDATE -> deleteOrUpdate(table, readVersion, true);
      case REWRITE -> rewrite(table, readVersion);
      case CREATE_INDEX -> createIndex(table, readVersion);
      case CREATE -> throw new IllegalArgumentException("tables are created by the harness setup");
    };
  }

  /**
   * The writer's retry after a retryable conflict: an append keeps its data files and is sent again on the new read
   * version under a new uuid (as Lance's own commit loop does); everything else is rebuilt from the table as it is at
   * {@code readVersion}, since the rows or fragments it was built from may have changed.
   */
  PlannedCommit rebuild(PlannedCommit previous, long readVersion) {
    if (previous.type() == OperationType.APPEND) {
      return new PlannedCommit(previous.table(), previous.type(),
          TransactionFactory.rebased(previous.transaction(), readVersion), previous.effect());
    }
    return plan(previous.type(), previous.table(), readVersion);
  }

  /** The Overwrite creating a table with rows {@code 0..rows-1} in two fragments. */
  public static PlannedCommit create(ChaosTable table, int rows) {
    List<FragmentMetadata> fragments = table.lance().writeRows(0, rows, Math.max(1, rows / 2));
    Transaction txn = TransactionFactory.create(LanceProtos.schema(LanceTables.ROW_SCHEMA),
        LanceProtos.fragments(fragments));
    Map<Long, String> upserts = new HashMap<>();
    for (long id = 0; id < rows; id++) {
      upserts.put(id, LanceTables.valueOf(id));
    }
    return new PlannedCommit(table, OperationType.CREATE, txn, new RowEffect(upserts, Set.of()));
  }

  private PlannedCommit append(ChaosTable table, long readVersion) {
    int count = 1 + random.nextInt(MAX_ROWS_PER_APPEND);
    long first = table.allocateRowIds(count);
    List<FragmentMetadata> fragments = table.lance().writeRows(first, count);
    Map<Long, String> upserts = new HashMap<>();
    for (long id = first; id < first + count; id++) {
      upserts.put(id, LanceTables.valueOf(id));
    }
    Transaction txn = TransactionFactory.append(readVersion, LanceProtos.fragments(fragments));
    return new PlannedCommit(table, OperationType.APPEND, txn, new RowEffect(upserts, Set.of()));
  }

  /**
   * Deletes 1-3 live rows of one fragment (a new deletion file holding the old deletions plus these, or the whole
   * fragment when nothing would be left). An update also writes those rows again, with new values, as a new
   * fragment: Lance's rewrite-rows update.
   */
  private PlannedCommit deleteOrUpdate(ChaosTable table, long readVersion, boolean update) {
    try (Dataset ds = table.lance().open(readVersion)) {
      List<Fragment> fragments = ds.getFragments();
      if (fragments.isEmpty()) {
        return null;
      }
      Fragment fragment = fragments.get(random.nextInt(fragments.size()));
      Map<Integer, Long> live = liveRows(fragment);
      if (live.isEmpty()) {
        return null;
      }
      List<Integer> offsets = new ArrayList<>(live.keySet());
      Collections.shuffle(offsets, random);
      offsets = new ArrayList<>(offsets.subList(0, 1 + random.nextInt(Math.min(MAX_ROWS_PER_DELETE, offsets.size()))));
      Collections.sort(offsets);
      Set<Long> ids = new HashSet<>();
      offsets.forEach(o -> ids.add(live.get(o)));
      FragmentMetadata withDeletions = fragment.deleteRows(offsets);
      List<DataFragment> updated = withDeletions == null ? List.of() : List.of(LanceProtos.fragment(withDeletions));
      List<Long> removed = withDeletions == null ? List.of((long) fragment.getId()) : List.of();
      byte[] affected = affectedRows(fragment.getId(), offsets);
      if (!update) {
        String predicate = "id IN (" + String.join(", ", ids.stream().sorted().map(String::valueOf).toList()) + ")";
        Transaction txn = TransactionFactory.delete(readVersion, updated, removed, predicate);
        return new PlannedCommit(table, OperationType.DELETE, txn, new RowEffect(Map.of(), ids), affected);
      }
      Map<Long, String> newValues = new HashMap<>();
      String tag = Integer.toHexString(random.nextInt(1 << 24));
      ids.forEach(id -> newValues.put(id, "u" + tag + "-" + id));
      List<FragmentMetadata> rewritten = writeValues(table, newValues);
      Transaction txn = Transaction.newBuilder()
          .setReadVersion(readVersion)
          .setUuid(TransactionFactory.newUuid())
          .setUpdate(Transaction.Update.newBuilder()
              .addAllRemovedFragmentIds(removed)
              .addAllUpdatedFragments(updated)
              .addAllNewFragments(LanceProtos.fragments(rewritten))
              .setUpdateMode(Transaction.UpdateMode.REWRITE_ROWS))
          .build();
      return new PlannedCommit(table, OperationType.UPDATE, txn, new RowEffect(newValues, Set.of()), affected);
    }
  }

  /** The row addresses ({@code fragment << 32 | offset}) of the rows a Delete or Update took out of a fragment. */
  private static byte[] affectedRows(long fragmentId, List<Integer> offsets) {
    org.roaringbitmap.longlong.Roaring64NavigableMap rows = new org.roaringbitmap.longlong.Roaring64NavigableMap();
    offsets.forEach(offset -> rows.addLong(fragmentId << 32 | Integer.toUnsignedLong(offset)));
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.io.DataOutputStream out = new java.io.DataOutputStream(bytes)) {
      rows.serializePortable(out);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /** Compacts what Lance's planner picks (at most two tasks), materializing deletions. */
  private PlannedCommit rewrite(ChaosTable table, long readVersion) {
    try (Dataset ds = table.lance().open(readVersion)) {
      CompactionOptions options = CompactionOptions.builder()
          .withTargetRowsPerFragment(1_000_000)
          .withMaterializeDeletions(true)
          .withMaterializeDeletionsThreshold(0.0f)
          .build();
      CompactionPlan plan = Compaction.planCompaction(ds, options);
      List<CompactionTask> tasks = plan.getCompactionTasks();
      if (tasks.isEmpty()) {
        return null;
      }
      Transaction.Rewrite.Builder rewrite = Transaction.Rewrite.newBuilder();
      for (CompactionTask task : tasks.subList(0, Math.min(2, tasks.size()))) {
        RewriteResult result = task.execute(ds);
        rewrite.addGroups(Transaction.RewriteGroup.newBuilder()
            .addAllOldFragments(LanceProtos.fragments(result.getOriginalFragments()))
            .addAllNewFragments(LanceProtos.fragments(result.getNewFragments())));
      }
      Transaction txn = Transaction.newBuilder()
          .setReadVersion(readVersion)
          .setUuid(TransactionFactory.newUuid())
          .setRewrite(rewrite)
          .build();
      return new PlannedCommit(table, OperationType.REWRITE, txn, RowEffect.NONE);
    }
  }

  /**
   * A BTree index on {@code id} over every fragment at the read version, built by Lance into {@code _indices/{uuid}}
   * without committing; the transaction replaces the index of that name the read version had, as Lance's replace
   * does.
   */
  private PlannedCommit createIndex(ChaosTable table, long readVersion) {
    UUID uuid = UUID.randomUUID();
    List<Integer> fragmentIds = new ArrayList<>();
    Index built;
    try (Dataset ds = table.lance().open(readVersion)) {
      ds.getFragments().forEach(f -> fragmentIds.add(f.getId()));
      if (fragmentIds.isEmpty()) {
        return null;
      }
      IndexParams params = IndexParams.builder()
          .setScalarIndexParams(ScalarIndexParams.create("btree", "{}"))
          .build();
      built = ds.createIndex(IndexOptions.builder(List.of("id"), IndexType.BTREE, params)
          .withFragmentIds(fragmentIds)
          .withIndexUUID(uuid.toString())
          .withIndexName(INDEX_NAME)
          .replace(true)
          .build());
      ds.mergeIndexMetadata(uuid.toString(), IndexType.BTREE, Optional.empty());
    }
    ManifestFile atRead = table.manifest(readVersion).orElseThrow(() ->
        new IllegalStateException("version " + readVersion + " of " + table.key() + " has no manifest"));
    List<IndexMetadata> replaced = atRead.indices().stream().filter(i -> i.getName().equals(INDEX_NAME)).toList();
    IndexMetadata metadata = IndexMetadata.newBuilder()
        .setUuid(TransactionFactory.uuid(uuid))
        .addAllFields(built.fields())
        .setName(INDEX_NAME)
        .setDatasetVersion(readVersion)
        .setFragmentBitmap(TransactionFactory.fragmentBitmap(fragmentIds))
        .setIndexDetails(indexDetails(built))
        .setIndexVersion(built.indexVersion())
        .setCreatedAt(System.currentTimeMillis())
        .build();
    Transaction txn = TransactionFactory.createIndex(readVersion, List.of(metadata), replaced);
    return new PlannedCommit(table, OperationType.CREATE_INDEX, txn, RowEffect.NONE);
  }

  /** Lance hands the details over as the serialized {@code Any}; fall back to the bare BTree type. */
  private static Any indexDetails(Index built) {
    if (built.indexDetails().isPresent()) {
      try {
        Any any = Any.parseFrom(built.indexDetails().get());
        if (any.getTypeUrl().endsWith("IndexDetails")) {
          return any;
        }
      } catch (InvalidProtocolBufferException e) {
        // fall through
      }
    }
    return Any.newBuilder().setTypeUrl(BTREE_DETAILS).build();
  }

  /** Live rows of a fragment: row offset to id. */
  private static Map<Integer, Long> liveRows(Fragment fragment) {
    Map<Integer, Long> rows = new HashMap<>();
    ScanOptions options = new ScanOptions.Builder().columns(List.of("id")).withRowAddress(true).build();
    try (LanceScanner scanner = fragment.newScan(options); ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        BigIntVector ids = (BigIntVector) root.getVector("id");
        FieldVector addresses = root.getVector("_rowaddr");
        for (int i = 0; i < root.getRowCount(); i++) {
          long address = ((Number) addresses.getObject(i)).longValue();
          rows.put((int) (address & 0xFFFF_FFFFL), ids.get(i));
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("could not scan fragment " + fragment.getId(), e);
    }
    return rows;
  }

  /** Writes rows with the given ids and values as one uncommitted fragment. */
  private static List<FragmentMetadata> writeValues(ChaosTable table, Map<Long, String> values) {
    List<Long> ids = new ArrayList<>(values.keySet());
    Collections.sort(ids);
    try (VectorSchemaRoot root = VectorSchemaRoot.create(LanceTables.ROW_SCHEMA, table.lance().allocator())) {
      BigIntVector idVector = (BigIntVector) root.getVector("id");
      VarCharVector valueVector = (VarCharVector) root.getVector("value");
      idVector.allocateNew(ids.size());
      valueVector.allocateNew(ids.size());
      for (int i = 0; i < ids.size(); i++) {
        idVector.setSafe(i, ids.get(i));
        valueVector.setSafe(i, values.get(ids.get(i)).getBytes(StandardCharsets.UTF_8));
      }
      root.setRowCount(ids.size());
      return Fragment.write()
          .datasetUri(table.location())
          .allocator(table.lance().allocator())
          .data(root)
          .storageOptions(table.lance().storageOptions())
          .execute();
    }
  }
}
