package dev.lancecommit.rules;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import dev.lancecommit.format.FeatureFlags;
import dev.lancecommit.format.RowIds;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.DeletionFile;
import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.format.pb.UUID;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.roaringbitmap.RoaringBitmap;

/** Hand-built manifests, fragments, indices and transactions for the rules tests. */
final class Fixtures {
  static final Instant NOW = Instant.parse("2026-11-30T10:15:30.123456789Z");
  static final Manifest.WriterVersion WRITER =
      Manifest.WriterVersion.newBuilder().setLibrary("test-writer").setVersion("1.2.3").build();
  static final Manifest.WriterVersion OLD_WRITER =
      Manifest.WriterVersion.newBuilder().setLibrary("lance").setVersion("0.39.0").build();

  /** Schema: 0 id (int64), 1 name (string), 2 vec (fixed_size_list), 3 its child item. */
  static final List<Field> SCHEMA = List.of(
      field(0, -1, "id", "int64"),
      field(1, -1, "name", "string"),
      field(2, -1, "vec", "fixed_size_list:float:4"),
      field(3, 2, "item", "float"));

  private Fixtures() {}

  static Field field(int id, int parent, String name, String type) {
    return Field.newBuilder().setId(id).setParentId(parent).setName(name).setLogicalType(type).setNullable(true)
        .build();
  }

  static DataFile file(String path, int... fields) {
    DataFile.Builder file = DataFile.newBuilder().setPath(path).setFileMajorVersion(2).setFileMinorVersion(1)
        .setFileSizeBytes(1000);
    int column = 0;
    for (int f : fields) {
      file.addFields(f).addColumnIndices(column++);
    }
    return file.build();
  }

  /** A fragment with one data file holding fields 0, 1, 2, 3. */
  static DataFragment fragment(long id, long rows) {
    return DataFragment.newBuilder().setId(id).setPhysicalRows(rows)
        .addFiles(file("f" + id + "-" + rows + ".lance", 0, 1, 2, 3)).build();
  }

  /** A new fragment as a writer sends it: id 0 (assign me) and a unique file name. */
  static DataFragment newFragment(String name, long rows) {
    return DataFragment.newBuilder().setPhysicalRows(rows).addFiles(file(name + ".lance", 0, 1, 2, 3)).build();
  }

  static DataFragment withDeletions(DataFragment fragment, long readVersion, long deleted) {
    return fragment.toBuilder().setDeletionFile(DeletionFile.newBuilder()
        .setFileType(DeletionFile.DeletionFileType.ARROW_ARRAY).setReadVersion(readVersion).setId(42)
        .setNumDeletedRows(deleted)).build();
  }

  static DataFragment withRowIds(DataFragment fragment, long start) {
    return fragment.toBuilder().setInlineRowIds(RowIds.encodeFresh(start, fragment.getPhysicalRows())).build();
  }

  /** A manifest at {@code version} holding the fragments, max_fragment_id absent unless set by the caller. */
  static Manifest.Builder manifest(long version, DataFragment... fragments) {
    return Manifest.newBuilder()
        .setVersion(version)
        .addAllFields(SCHEMA)
        .addAllFragments(Arrays.asList(fragments))
        .setWriterVersion(OLD_WRITER)
        .setDataFormat(Manifest.DataStorageFormat.newBuilder().setFileFormat("lance").setVersion("2.1"))
        .setTransactionFile("old.txn")
        .setTag("old-tag")
        .setIndexSection(4)
        .setTransactionSection(8);
  }

  /** A table at {@code version} with the given fragments and max_fragment_id, flags as Lance would set them. */
  static TableState table(long version, int maxFragmentId, DataFragment... fragments) {
    Manifest.Builder manifest = manifest(version, fragments).setMaxFragmentId(maxFragmentId);
    FeatureFlags.apply(manifest, false, true);
    return new TableState(manifest.build(), List.of());
  }

  static TableState stableTable(long version, int maxFragmentId, long nextRowId, DataFragment... fragments) {
    Manifest.Builder manifest = manifest(version, fragments).setMaxFragmentId(maxFragmentId).setNextRowId(nextRowId);
    FeatureFlags.apply(manifest, true, true);
    return new TableState(manifest.build(), List.of());
  }

  static TableState withIndices(TableState table, IndexMetadata... indices) {
    return new TableState(table.manifest(), Arrays.asList(indices));
  }

  static UUID uuid(int n) {
    return UUID.newBuilder().setUuid(ByteString.copyFrom(ByteBuffer.allocate(16).putLong(0, n).putLong(8, n))).build();
  }

  static ByteString bitmap(long... fragmentIds) {
    RoaringBitmap bitmap = new RoaringBitmap();
    for (long id : fragmentIds) {
      bitmap.add((int) id);
    }
    return FragmentBitmaps.encode(bitmap);
  }

  static List<Long> bitmapIds(IndexMetadata index) {
    RoaringBitmap bitmap = FragmentBitmaps.decode(index.getFragmentBitmap());
    List<Long> ids = new ArrayList<>();
    bitmap.forEach((int id) -> ids.add(Integer.toUnsignedLong(id)));
    return ids;
  }

  static IndexMetadata scalarIndex(int uuid, String name, long datasetVersion, int field, long... fragments) {
    return IndexMetadata.newBuilder().setUuid(uuid(uuid)).setName(name).addFields(field)
        .setDatasetVersion(datasetVersion).setFragmentBitmap(bitmap(fragments))
        .setIndexDetails(Any.newBuilder().setTypeUrl("/lance.table.BTreeIndexDetails"))
        .setIndexVersion(0).build();
  }

  static IndexMetadata vectorIndex(int uuid, String name, long datasetVersion, int field, long... fragments) {
    return scalarIndex(uuid, name, datasetVersion, field, fragments).toBuilder()
        .setIndexDetails(Any.newBuilder().setTypeUrl("/lance.table.VectorIndexDetails")).build();
  }

  static Transaction.Builder txn(long readVersion) {
    return Transaction.newBuilder().setReadVersion(readVersion).setUuid(java.util.UUID.randomUUID().toString());
  }

  static Transaction append(long readVersion, DataFragment... fragments) {
    return txn(readVersion).setAppend(Transaction.Append.newBuilder().addAllFragments(Arrays.asList(fragments)))
        .build();
  }

  static Transaction delete(long readVersion, List<DataFragment> updated, Long... deletedIds) {
    return txn(readVersion).setDelete(Transaction.Delete.newBuilder().addAllUpdatedFragments(updated)
        .addAllDeletedFragmentIds(Arrays.asList(deletedIds)).setPredicate("id > 3")).build();
  }

  static Transaction overwrite(long readVersion, DataFragment... fragments) {
    return txn(readVersion).setOverwrite(Transaction.Overwrite.newBuilder().addAllSchema(SCHEMA)
        .addAllFragments(Arrays.asList(fragments))).build();
  }

  static Transaction reserve(long readVersion, int count) {
    return txn(readVersion).setReserveFragments(Transaction.ReserveFragments.newBuilder().setNumFragments(count))
        .build();
  }

  static Transaction rewrite(long readVersion, Transaction.RewriteGroup... groups) {
    return txn(readVersion).setRewrite(Transaction.Rewrite.newBuilder().addAllGroups(Arrays.asList(groups))).build();
  }

  static Transaction.RewriteGroup group(List<DataFragment> oldFragments, List<DataFragment> newFragments) {
    return Transaction.RewriteGroup.newBuilder().addAllOldFragments(oldFragments).addAllNewFragments(newFragments)
        .build();
  }

  static CommitContext ctx(long version) {
    return new CommitContext(version, NOW, (version - 1) + "-txn.txn", WRITER, false, "2.1");
  }

  static CommitContext createCtx(boolean stableRowIds) {
    return new CommitContext(1, NOW, "0-create.txn", WRITER, stableRowIds, "2.1");
  }

  static List<Long> ids(TableState state) {
    return state.manifest().getFragmentsList().stream().map(DataFragment::getId).toList();
  }

  static long maxFragmentId(TableState state) {
    return Integer.toUnsignedLong(state.manifest().getMaxFragmentId());
  }

  static Transaction.UpdateMap.Builder updates() {
    return Transaction.UpdateMap.newBuilder();
  }

  static Transaction.UpdateMapEntry set(String key, String value) {
    return Transaction.UpdateMapEntry.newBuilder().setKey(key).setValue(value).build();
  }

  static Transaction.UpdateMapEntry unset(String key) {
    return Transaction.UpdateMapEntry.newBuilder().setKey(key).build();
  }
}
