package dev.lancecommit.rules.rebase;

import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.TransactionFiles;
import dev.lancecommit.format.WriterVersions;
import dev.lancecommit.format.deletion.DeletionVectors;
import dev.lancecommit.format.deletion.NewDeletionFile;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.CommitContext;
import dev.lancecommit.rules.ManifestBuilder;
import dev.lancecommit.rules.conflict.CommittedTransaction;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.roaringbitmap.RoaringBitmap;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

/**
 * A table held in memory for the rebase tests: its versions (built with {@link ManifestBuilder}, as the commit lane
 * builds them) and its deletion files (path -> bytes). Writers act the way Lance's delete and update paths do: read
 * the fragment's deletion vector at their read version, add their rows, write a new deletion file named after that
 * read version, and report the rows as affected row addresses.
 */
final class MemoryTable {
  static final List<Field> SCHEMA = List.of(Field.newBuilder().setId(0).setParentId(-1).setName("id")
      .setLogicalType("int64").build());

  private final List<TableState> versions = new ArrayList<>();
  private final List<CommittedTransaction> log = new ArrayList<>();
  private final Map<String, byte[]> files = new HashMap<>();
  private final List<String> reads = new ArrayList<>();

  /** What a writer sends: the transaction and its affected row addresses. */
  record Write(Transaction txn, Roaring64NavigableMap affectedRows) {}

  /** Creates the table (version 1) with one data file per fragment of the given row counts, ids from 0. */
  MemoryTable(long... physicalRows) {
    List<DataFragment> fragments = new ArrayList<>();
    for (long rows : physicalRows) {
      fragments.add(DataFragment.newBuilder().setPhysicalRows(rows).addFiles(DataFile.newBuilder()
          .setPath("data-" + fragments.size() + ".lance").addFields(0).addColumnIndices(0)
          .setFileMajorVersion(2).setFileMinorVersion(1).setFileSizeBytes(1000)).build());
    }
    Transaction create = TransactionFactory.create(SCHEMA, fragments);
    versions.add(ManifestBuilder.build(null, create, context(1, create)));
  }

  private MemoryTable(MemoryTable other) {
    versions.addAll(other.versions);
    log.addAll(other.log);
    files.putAll(other.files);
  }

  /** An independent copy: the same versions and files, committed to separately from now on. */
  MemoryTable copy() {
    return new MemoryTable(this);
  }

  static CommitContext context(long version, Transaction txn) {
    return new CommitContext(version, Instant.now(), TransactionFiles.fileName(txn), WriterVersions.coordinator(),
        false, CommitContext.DEFAULT_STORAGE_VERSION);
  }

  TableState latest() {
    return versions.get(versions.size() - 1);
  }

  TableState version(long version) {
    return versions.get((int) version - 1);
  }

  DataFragment fragment(long version, long fragmentId) {
    return version(version).manifest().getFragmentsList().stream().filter(f -> f.getId() == fragmentId)
        .findFirst().orElseThrow();
  }

  /** Commits on top of the latest version (the caller has settled any conflict). */
  TableState commit(Transaction txn) {
    TableState next = ManifestBuilder.build(latest(), txn, context(latest().version() + 1, txn));
    versions.add(next);
    log.add(new CommittedTransaction(next.version(), txn));
    return next;
  }

  /** Stores files (relative path -> bytes) as a commit writes them before its manifest. */
  void store(Map<String, byte[]> written) {
    files.putAll(written);
  }

  /** Writes the files of a rebase plan, then commits its transaction. */
  TableState commit(RebasePlan plan) {
    plan.filesToWrite().forEach(files::put);
    return commit(plan.transaction());
  }

  /** The transactions committed after {@code readVersion}. */
  List<CommittedTransaction> since(long readVersion) {
    return log.stream().filter(c -> c.version() > readVersion).toList();
  }

  /** The deletion vector of a fragment as stored (empty without a deletion file); records the read. */
  RoaringBitmap deletionVector(DataFragment fragment) {
    if (!fragment.hasDeletionFile()) {
      return new RoaringBitmap();
    }
    String path = DeletionVectors.relativePath(fragment.getId(), fragment.getDeletionFile());
    reads.add(path);
    byte[] bytes = files.get(path);
    if (bytes == null) {
      throw new IllegalStateException("no deletion file " + path);
    }
    return DeletionVectors.read(fragment, bytes);
  }

  List<String> reads() {
    return List.copyOf(reads);
  }

  int fileCount() {
    return files.size();
  }

  /** The fragment at {@code readVersion} with {@code offsets} added to its deletion vector, the file stored. */
  DataFragment withDeletions(long readVersion, long fragmentId, int... offsets) {
    DataFragment before = fragment(readVersion, fragmentId);
    RoaringBitmap rows = deletionVector(before);
    rows.add(offsets);
    NewDeletionFile file = DeletionVectors.encode(fragmentId, readVersion, ThreadLocalRandom.current().nextLong(),
        DeletionVectors.typeAfterExtending(before, rows.getLongCardinality()), rows);
    files.put(file.relativePath(), file.bytes());
    return before.toBuilder().setDeletionFile(file.meta()).build();
  }

  /** A Delete of rows of one fragment from {@code readVersion}, as Lance's delete path builds it. */
  Write delete(long readVersion, long fragmentId, int... offsets) {
    return new Write(TransactionFactory.delete(readVersion, List.of(withDeletions(readVersion, fragmentId, offsets)),
        List.of(), "test delete"), addresses(fragmentId, offsets));
  }

  /** An Update that moves rows of one fragment into a new fragment, as Lance's update path builds it. */
  Write update(long readVersion, long fragmentId, int... offsets) {
    DataFragment moved = DataFragment.newBuilder().setPhysicalRows(offsets.length).addFiles(DataFile.newBuilder()
        .setPath("moved-" + ThreadLocalRandom.current().nextInt(1_000_000) + ".lance").addFields(0)
        .addColumnIndices(0).setFileMajorVersion(2).setFileMinorVersion(1).setFileSizeBytes(100)).build();
    Transaction txn = Transaction.newBuilder().setReadVersion(readVersion).setUuid(TransactionFactory.newUuid())
        .setUpdate(Transaction.Update.newBuilder()
            .addUpdatedFragments(withDeletions(readVersion, fragmentId, offsets))
            .addNewFragments(moved)
            .addFieldsModified(0)
            .setUpdateMode(Transaction.UpdateMode.REWRITE_ROWS))
        .build();
    return new Write(txn, addresses(fragmentId, offsets));
  }

  static Roaring64NavigableMap addresses(long fragmentId, int... offsets) {
    Roaring64NavigableMap rows = new Roaring64NavigableMap();
    for (int offset : offsets) {
      rows.addLong(fragmentId << 32 | Integer.toUnsignedLong(offset));
    }
    return rows;
  }
}
