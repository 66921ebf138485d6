package dev.lancecommit.rules.conflict;

import com.google.protobuf.ByteString;
import dev.lancecommit.format.pb.BasePath;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.DeletionFile;
import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.MemWalIndexDetails;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.format.pb.Transaction.UpdateMap;
import dev.lancecommit.format.pb.Transaction.UpdateMapEntry;
import dev.lancecommit.format.pb.UUID;
import dev.lancecommit.rules.OperationKind;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.roaringbitmap.RoaringBitmap;

/** Small hand-built transactions for the conflict tests. Every transaction gets a fresh uuid and read version 1. */
final class Txns {
  private static final AtomicLong UUIDS = new AtomicLong();

  private Txns() {}

  static String freshUuid() {
    return String.format("00000000-0000-4000-8000-%012d", UUIDS.incrementAndGet());
  }

  static Transaction.Builder base() {
    return Transaction.newBuilder().setReadVersion(1).setUuid(freshUuid());
  }

  /** The smallest valid transaction of a kind: its operation set, every field empty. */
  static Transaction minimal(OperationKind kind) {
    Transaction.Builder b = base();
    switch (kind) {
      case APPEND -> b.setAppend(Transaction.Append.getDefaultInstance());
      case DELETE -> b.setDelete(Transaction.Delete.getDefaultInstance());
      case OVERWRITE -> b.setOverwrite(Transaction.Overwrite.getDefaultInstance());
      case CREATE_INDEX -> b.setCreateIndex(Transaction.CreateIndex.getDefaultInstance());
      case REWRITE -> b.setRewrite(Transaction.Rewrite.getDefaultInstance());
      case MERGE -> b.setMerge(Transaction.Merge.getDefaultInstance());
      case RESTORE -> b.setRestore(Transaction.Restore.getDefaultInstance());
      case RESERVE_FRAGMENTS -> b.setReserveFragments(Transaction.ReserveFragments.getDefaultInstance());
      case UPDATE -> b.setUpdate(Transaction.Update.getDefaultInstance());
      case PROJECT -> b.setProject(Transaction.Project.getDefaultInstance());
      case UPDATE_CONFIG -> b.setUpdateConfig(Transaction.UpdateConfig.getDefaultInstance());
      case DATA_REPLACEMENT -> b.setDataReplacement(Transaction.DataReplacement.getDefaultInstance());
      case UPDATE_MEM_WAL_STATE -> b.setUpdateMemWalState(Transaction.UpdateMemWalState.getDefaultInstance());
      case CLONE -> b.setClone(Transaction.Clone.getDefaultInstance());
      case UPDATE_BASES -> b.setUpdateBases(Transaction.UpdateBases.getDefaultInstance());
      case DATA_OVERLAY -> b.setDataOverlay(Transaction.DataOverlay.getDefaultInstance());
      case USER_OPERATION -> b.setUserOperation(Transaction.UserOperation.getDefaultInstance());
    }
    return b.build();
  }

  static DataFile file(String path, int... fields) {
    DataFile.Builder f = DataFile.newBuilder().setPath(path).setFileMajorVersion(2).setFileSizeBytes(100);
    Arrays.stream(fields).forEach(f::addFields);
    return f.build();
  }

  /** A fragment with one data file "{id}.lance" holding fields 0 and 1 and 10 physical rows. */
  static DataFragment fragment(long id) {
    return DataFragment.newBuilder().setId(id).addFiles(file(id + ".lance", 0, 1)).setPhysicalRows(10).build();
  }

  /** The same fragment with a deletion file of the given id. */
  static DataFragment withDeletions(DataFragment fragment, long deletionId) {
    return fragment.toBuilder().setDeletionFile(DeletionFile.newBuilder()
        .setFileType(DeletionFile.DeletionFileType.ARROW_ARRAY).setReadVersion(1).setId(deletionId)
        .setNumDeletedRows(1)).build();
  }

  static Transaction append(long... fragmentIds) {
    Transaction.Append.Builder a = Transaction.Append.newBuilder();
    Arrays.stream(fragmentIds).forEach(id -> a.addFragments(fragment(id)));
    return base().setAppend(a).build();
  }

  static Transaction delete(List<DataFragment> updated, long... deletedIds) {
    Transaction.Delete.Builder d = Transaction.Delete.newBuilder().addAllUpdatedFragments(updated);
    Arrays.stream(deletedIds).forEach(d::addDeletedFragmentIds);
    return base().setDelete(d).build();
  }

  static Transaction update(Consumer<Transaction.Update.Builder> body) {
    Transaction.Update.Builder u = Transaction.Update.newBuilder();
    body.accept(u);
    return base().setUpdate(u).build();
  }

  static Transaction update(List<DataFragment> updated, long... removedIds) {
    return update(u -> {
      u.addAllUpdatedFragments(updated);
      Arrays.stream(removedIds).forEach(u::addRemovedFragmentIds);
    });
  }

  static Transaction rewrite(long... oldIds) {
    Transaction.RewriteGroup.Builder g = Transaction.RewriteGroup.newBuilder();
    Arrays.stream(oldIds).forEach(id -> g.addOldFragments(fragment(id)));
    g.addNewFragments(fragment(100));
    return base().setRewrite(Transaction.Rewrite.newBuilder().addGroups(g)).build();
  }

  static Transaction dataReplacement(long fragmentId, int... fields) {
    return base().setDataReplacement(Transaction.DataReplacement.newBuilder()
        .addReplacements(Transaction.DataReplacementGroup.newBuilder().setFragmentId(fragmentId)
            .setNewFile(file("replacement-" + fragmentId + ".lance", fields)))).build();
  }

  static Transaction merge(boolean preservesNullability, long... fragmentIds) {
    Transaction.Merge.Builder m = Transaction.Merge.newBuilder().setPreservesNullability(preservesNullability);
    Arrays.stream(fragmentIds).forEach(id -> m.addFragments(fragment(id)));
    return base().setMerge(m).build();
  }

  static Transaction project(boolean preservesNullability, int... keptFieldIds) {
    Transaction.Project.Builder p = Transaction.Project.newBuilder().setPreservesNullability(preservesNullability);
    Arrays.stream(keptFieldIds).forEach(id -> p.addSchema(Field.newBuilder().setId(id).setName("c" + id)
        .setParentId(-1).setLogicalType("int32")));
    return base().setProject(p).build();
  }

  static Transaction overwrite(String... configKeyValues) {
    Transaction.Overwrite.Builder o = Transaction.Overwrite.newBuilder();
    for (String kv : configKeyValues) {
      String[] parts = kv.split("=", 2);
      o.putConfigUpsertValues(parts[0], parts[1]);
    }
    return base().setOverwrite(o).build();
  }

  static Transaction updateConfig(Consumer<Transaction.UpdateConfig.Builder> body) {
    Transaction.UpdateConfig.Builder u = Transaction.UpdateConfig.newBuilder();
    body.accept(u);
    return base().setUpdateConfig(u).build();
  }

  /** An UpdateMap: "k=v" upserts, "k" deletes. */
  static UpdateMap updateMap(boolean replace, String... entries) {
    UpdateMap.Builder m = UpdateMap.newBuilder().setReplace(replace);
    for (String entry : entries) {
      String[] parts = entry.split("=", 2);
      UpdateMapEntry.Builder e = UpdateMapEntry.newBuilder().setKey(parts[0]);
      if (parts.length == 2) {
        e.setValue(parts[1]);
      }
      m.addUpdateEntries(e);
    }
    return m.build();
  }

  static Transaction configUpdates(String... entries) {
    return updateConfig(u -> u.setConfigUpdates(updateMap(false, entries)));
  }

  static byte[] uuidBytes(int n) {
    byte[] bytes = new byte[16];
    bytes[15] = (byte) n;
    return bytes;
  }

  /**
   * An index over {@code fields}; {@code fragments} null means no fragment bitmap (unknown), else the covered ids.
   */
  static IndexMetadata index(String name, int uuid, int[] fields, long[] fragments) {
    IndexMetadata.Builder i = IndexMetadata.newBuilder().setName(name)
        .setUuid(UUID.newBuilder().setUuid(ByteString.copyFrom(uuidBytes(uuid))));
    Arrays.stream(fields).forEach(i::addFields);
    if (fragments != null) {
      RoaringBitmap bitmap = new RoaringBitmap();
      Arrays.stream(fragments).forEach(id -> bitmap.add((int) id));
      i.setFragmentBitmap(serialize(bitmap));
    }
    return i.build();
  }

  static ByteString serialize(RoaringBitmap bitmap) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (DataOutputStream data = new DataOutputStream(out)) {
      bitmap.serialize(data);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ByteString.copyFrom(out.toByteArray());
  }

  static Transaction createIndex(List<IndexMetadata> newIndices, List<IndexMetadata> removed) {
    return base().setCreateIndex(Transaction.CreateIndex.newBuilder().addAllNewIndices(newIndices)
        .addAllRemovedIndices(removed)).build();
  }

  static ByteString memWal(String region, long generation) {
    return MemWalIndexDetails.MemWal.newBuilder()
        .setId(MemWalIndexDetails.MemWalId.newBuilder().setRegion(region).setGeneration(generation))
        .setWalLocation("wal/" + region).build().toByteString();
  }

  static Transaction updateMemWalState(List<ByteString> added, List<ByteString> updated) {
    return base().setUpdateMemWalState(Transaction.UpdateMemWalState.newBuilder()
        .addAllAddedOrCompactedSstables(added).addAllUpdated(updated)).build();
  }

  static Transaction updateMerging(ByteString... memWals) {
    return update(u -> u.addAllMemWalToMergeOrCompactedSstables(List.of(memWals)));
  }

  static BasePath basePath(int id, String name, String path) {
    BasePath.Builder b = BasePath.newBuilder().setId(id).setPath(path);
    if (name != null) {
      b.setName(name);
    }
    return b.build();
  }

  static Transaction updateBases(BasePath... bases) {
    return base().setUpdateBases(Transaction.UpdateBases.newBuilder().addAllNewBases(List.of(bases))).build();
  }
}
