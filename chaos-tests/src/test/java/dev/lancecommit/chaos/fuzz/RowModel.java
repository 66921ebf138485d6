package dev.lancecommit.chaos.fuzz;

import dev.lancecommit.format.deletion.DeletionVectors;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.OperationKind;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.file.LanceFileReader;
import org.roaringbitmap.RoaringBitmap;

/**
 * What a table holds if every acknowledged commit did exactly what its transaction says, independent of the manifests
 * the coordinator wrote: the fragments (by id, as Lance assigns them: an id of 0 takes the next after the highest ever
 * handed out, from 0 again after an Overwrite), the rows of each (the {@code id} column of the data file storing field
 * 0, read with stock Lance's file reader, minus the offsets in its deletion file), and the rows at every acknowledged
 * version. Operations that change no row (CreateIndex, UpdateConfig, ReserveFragments, UpdateBases) only move the
 * version; any other operation the fuzz suite never sends unmutated is reported as unmodelled rather than guessed.
 */
final class RowModel {
  private final Path tableDir;
  private final BufferAllocator allocator;
  private final Map<Path, List<Long>> fileIds;
  private final TreeMap<Long, DataFragment> fragments = new TreeMap<>();
  private long highWater = -1;
  private long version;
  private final Map<Long, List<Long>> rowsAt = new TreeMap<>();
  private final Map<String, Set<Long>> versionsOfUuid = new HashMap<>();

  RowModel(Path tableDir, BufferAllocator allocator, Map<Path, List<Long>> sharedFileIds) {
    this.tableDir = tableDir;
    this.allocator = allocator;
    this.fileIds = sharedFileIds;
  }

  long version() {
    return version;
  }

  /**
   * The versions transactions with {@code uuid} committed. Usually one; a writer that sends a uuid again on a newer
   * read version commits again, as with Lance's own commit (only the versions since the read version are searched
   * for the uuid), and a resubmission is then answered with whichever of them its read version reaches first.
   */
  Set<Long> versionsOf(String uuid) {
    return versionsOfUuid.getOrDefault(uuid, Set.of());
  }

  Map<Long, List<Long>> rowsByVersion() {
    return rowsAt;
  }

  /** Sorted ids (null for a row without an id) at {@code v}. */
  List<Long> rowsAt(long v) {
    return rowsAt.get(v);
  }

  /** Applies an acknowledged new version. */
  void apply(Transaction txn, long committedVersion) {
    if (committedVersion != version + 1) {
      throw new AssertionError("acknowledged version " + committedVersion + " after version " + version
          + " (transaction " + txn.getUuid() + ")");
    }
    OperationKind kind = OperationKind.of(txn);
    switch (kind) {
      case OVERWRITE -> {
        fragments.clear();
        long next = 0;
        for (DataFragment f : txn.getOverwrite().getFragmentsList()) {
          next = add(f, next);
        }
      }
      case APPEND -> {
        long next = highWater + 1;
        for (DataFragment f : txn.getAppend().getFragmentsList()) {
          next = add(f, next);
        }
      }
      case DELETE -> {
        txn.getDelete().getDeletedFragmentIdsList().forEach(fragments::remove);
        for (DataFragment f : txn.getDelete().getUpdatedFragmentsList()) {
          fragments.computeIfPresent(f.getId(), (id, old) -> f);
        }
      }
      case UPDATE -> {
        Transaction.Update update = txn.getUpdate();
        update.getRemovedFragmentIdsList().forEach(fragments::remove);
        for (DataFragment f : update.getUpdatedFragmentsList()) {
          fragments.computeIfPresent(f.getId(), (id, old) -> f);
        }
        long next = highWater + 1;
        for (DataFragment f : update.getNewFragmentsList()) {
          next = add(f, next);
        }
      }
      case REWRITE -> {
        Transaction.Rewrite rewrite = txn.getRewrite();
        List<Transaction.RewriteGroup> groups = rewrite.getGroupsCount() > 0 ? rewrite.getGroupsList()
            : List.of(Transaction.RewriteGroup.newBuilder().addAllOldFragments(rewrite.getOldFragmentsList())
                .addAllNewFragments(rewrite.getNewFragmentsList()).build());
        long next = highWater + 1;
        for (Transaction.RewriteGroup group : groups) {
          group.getOldFragmentsList().forEach(f -> fragments.remove(f.getId()));
          for (DataFragment f : group.getNewFragmentsList()) {
            next = add(f, next);
          }
        }
      }
      case RESERVE_FRAGMENTS -> highWater += Integer.toUnsignedLong(txn.getReserveFragments().getNumFragments());
      case CREATE_INDEX, UPDATE_CONFIG, UPDATE_BASES -> { }
      default -> throw new AssertionError("the coordinator acknowledged a " + kind.lanceName() + " (transaction "
          + txn.getUuid() + "), an operation the fuzz model does not follow: " + txn);
    }
    version = committedVersion;
    versionsOfUuid.computeIfAbsent(txn.getUuid(), u -> new java.util.TreeSet<>()).add(committedVersion);
    rowsAt.put(version, rows());
  }

  private long add(DataFragment fragment, long next) {
    long id = fragment.getId() == 0 ? next++ : fragment.getId();
    fragments.put(id, fragment.toBuilder().setId(id).build());
    highWater = Math.max(highWater, id);
    return next;
  }

  private List<Long> rows() {
    List<Long> rows = new ArrayList<>();
    for (DataFragment fragment : fragments.values()) {
      List<Long> ids = idsOf(fragment);
      Set<Integer> deleted = deletedOffsets(fragment);
      for (int offset = 0; offset < ids.size(); offset++) {
        if (!deleted.contains(offset)) {
          rows.add(ids.get(offset));
        }
      }
    }
    rows.sort(Comparator.nullsFirst(Comparator.naturalOrder()));
    return rows;
  }

  /** The {@code id} column of the file storing field 0; all nulls when no file stores it. */
  private List<Long> idsOf(DataFragment fragment) {
    for (DataFile file : fragment.getFilesList()) {
      if (file.getFieldsList().contains(0)) {
        return fileIds.computeIfAbsent(tableDir.resolve("data").resolve(file.getPath()), this::readIds);
      }
    }
    List<Long> nulls = new ArrayList<>();
    for (long i = 0; i < fragment.getPhysicalRows(); i++) {
      nulls.add(null);
    }
    return nulls;
  }

  private Set<Integer> deletedOffsets(DataFragment fragment) {
    if (!fragment.hasDeletionFile()) {
      return Set.of();
    }
    Path file = tableDir.resolve(DeletionVectors.relativePath(fragment.getId(), fragment.getDeletionFile()));
    try {
      RoaringBitmap rows = DeletionVectors.read(fragment, Files.readAllBytes(file));
      Set<Integer> offsets = new HashSet<>();
      rows.forEach((int offset) -> offsets.add(offset));
      return offsets;
    } catch (IOException e) {
      throw new UncheckedIOException("acknowledged deletion file " + file + " cannot be read", e);
    }
  }

  private List<Long> readIds(Path file) {
    List<Long> ids = new ArrayList<>();
    try (LanceFileReader reader = LanceFileReader.open(file.toString(), allocator);
        ArrowReader batches = reader.readAll(List.of("id"), null, 1024)) {
      while (batches.loadNextBatch()) {
        FieldVector vector = batches.getVectorSchemaRoot().getVector("id");
        for (int i = 0; i < vector.getValueCount(); i++) {
          Object value = vector.getObject(i);
          ids.add(value == null ? null : ((Number) value).longValue());
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("acknowledged data file " + file + " cannot be read by stock Lance", e);
    }
    return ids;
  }
}
