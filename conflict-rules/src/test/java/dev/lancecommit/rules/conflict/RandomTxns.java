package dev.lancecommit.rules.conflict;

import com.google.protobuf.ByteString;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.OperationKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

/**
 * Random small transactions of a given kind: few fragment ids (0-4), fields (0-3), config keys (a-c), index names
 * and MemWAL regions, so that overlaps and non-overlaps both happen often.
 */
final class RandomTxns {
  private RandomTxns() {}

  private static final String[] KEYS = {"a", "b", "c"};
  private static final String[] INDEX_NAMES = {"a_idx", "b_idx", IndexRules.FRAG_REUSE, IndexRules.MEM_WAL};

  static Transaction of(OperationKind kind, Random r) {
    Transaction.Builder b = Txns.base();
    switch (kind) {
      case APPEND -> b.setAppend(Transaction.Append.newBuilder().addAllFragments(fragments(r, 2)));
      case DELETE -> b.setDelete(Transaction.Delete.newBuilder().addAllUpdatedFragments(fragments(r, 2))
          .addAllDeletedFragmentIds(ids(r, 2)));
      case OVERWRITE -> {
        Transaction.Overwrite.Builder o = Transaction.Overwrite.newBuilder().addAllFragments(fragments(r, 1));
        keys(r).forEach(k -> o.putConfigUpsertValues(k, "v"));
        b.setOverwrite(o);
      }
      case CREATE_INDEX -> b.setCreateIndex(Transaction.CreateIndex.newBuilder()
          .addAllNewIndices(indices(r, 2)).addAllRemovedIndices(indices(r, 1)));
      case REWRITE -> {
        Transaction.Rewrite.Builder rw = Transaction.Rewrite.newBuilder();
        for (int g = 0; g < 1 + r.nextInt(2); g++) {
          rw.addGroups(Transaction.RewriteGroup.newBuilder().addAllOldFragments(fragments(r, 2))
              .addNewFragments(Txns.fragment(0)));
        }
        b.setRewrite(rw);
      }
      case MERGE -> b.setMerge(Transaction.Merge.newBuilder().addAllFragments(fragments(r, 3))
          .setPreservesNullability(r.nextBoolean()));
      case RESTORE -> b.setRestore(Transaction.Restore.newBuilder().setVersion(1));
      case RESERVE_FRAGMENTS -> b.setReserveFragments(Transaction.ReserveFragments.newBuilder().setNumFragments(2));
      case UPDATE -> {
        Transaction.Update.Builder u = Transaction.Update.newBuilder().addAllUpdatedFragments(fragments(r, 2))
            .addAllRemovedFragmentIds(ids(r, 1)).addAllNewFragments(fragments(r, 1))
            .setUpdateMode(r.nextBoolean() ? Transaction.UpdateMode.REWRITE_ROWS : Transaction.UpdateMode.REWRITE_COLUMNS);
        fields(r).forEach(u::addFieldsModified);
        if (r.nextInt(3) == 0) {
          u.addMemWalToMergeOrCompactedSstables(memWal(r));
        }
        if (r.nextInt(5) == 0) {
          u.setInsertedRows(ByteString.copyFromUtf8("filter"));
        }
        b.setUpdate(u);
      }
      case PROJECT -> {
        Transaction.Project p = Txns.project(r.nextBoolean(), fields(r).stream().mapToInt(Integer::intValue).toArray())
            .getProject();
        b.setProject(p);
      }
      case UPDATE_CONFIG -> b.setUpdateConfig(updateConfig(r));
      case DATA_REPLACEMENT -> {
        Transaction.DataReplacement.Builder d = Transaction.DataReplacement.newBuilder();
        for (long id : ids(r, 2)) {
          int[] fields = fields(r).stream().mapToInt(Integer::intValue).toArray();
          d.addReplacements(Transaction.DataReplacementGroup.newBuilder().setFragmentId(id)
              .setNewFile(Txns.file("r.lance", fields)));
        }
        b.setDataReplacement(d);
      }
      case UPDATE_MEM_WAL_STATE -> {
        Transaction.UpdateMemWalState.Builder m = Transaction.UpdateMemWalState.newBuilder();
        if (r.nextBoolean()) {
          m.addAddedOrCompactedSstables(memWal(r));
        }
        if (r.nextInt(3) == 0) {
          m.addUpdated(memWal(r));
        }
        b.setUpdateMemWalState(m);
      }
      case CLONE -> b.setClone(Transaction.Clone.newBuilder().setRefVersion(1).setRefPath("s3://src"));
      case UPDATE_BASES -> {
        Transaction.UpdateBases.Builder u = Transaction.UpdateBases.newBuilder();
        for (int i = 0; i < 1 + r.nextInt(2); i++) {
          u.addNewBases(Txns.basePath(r.nextInt(3), r.nextBoolean() ? KEYS[r.nextInt(3)] : null,
              "s3://p" + r.nextInt(3)));
        }
        b.setUpdateBases(u);
      }
      case DATA_OVERLAY -> {
        Transaction.DataOverlay.Builder o = Transaction.DataOverlay.newBuilder();
        ids(r, 2).forEach(id -> o.addGroups(Transaction.DataOverlayGroup.newBuilder().setFragmentId(id)));
        b.setDataOverlay(o);
      }
      case USER_OPERATION -> b.setUserOperation(Transaction.UserOperation.getDefaultInstance());
    }
    return b.build();
  }

  static RebaseInputs inputs(Random r, boolean rebaseAllowed) {
    RebaseInputs.Builder b = RebaseInputs.builder().rebaseAllowed(rebaseAllowed);
    if (r.nextBoolean()) {
      Roaring64NavigableMap rows = new Roaring64NavigableMap();
      ids(r, 3).forEach(id -> rows.addLong((id << 32) | r.nextInt(10)));
      b.affectedRows(rows);
    }
    if (r.nextBoolean()) {
      List<DataFragment> initial = new ArrayList<>();
      ids(r, 5).forEach(id -> initial.add(fragment(id, r)));
      b.initialFragments(initial);
    }
    return b.build();
  }

  private static TreeSet<Long> ids(Random r, int max) {
    TreeSet<Long> ids = new TreeSet<>();
    int n = r.nextInt(max + 1);
    for (int i = 0; i < n; i++) {
      ids.add((long) r.nextInt(5));
    }
    return ids;
  }

  private static List<DataFragment> fragments(Random r, int max) {
    List<DataFragment> fragments = new ArrayList<>();
    ids(r, max).forEach(id -> fragments.add(fragment(id, r)));
    return fragments;
  }

  private static DataFragment fragment(long id, Random r) {
    DataFragment.Builder f = DataFragment.newBuilder().setId(id).setPhysicalRows(10)
        .addFiles(Txns.file(id + "-" + r.nextInt(2) + ".lance", 0, 1));
    return r.nextBoolean() ? Txns.withDeletions(f.build(), r.nextInt(3)) : f.build();
  }

  private static TreeSet<Integer> fields(Random r) {
    TreeSet<Integer> fields = new TreeSet<>();
    for (int i = 0; i < 4; i++) {
      if (r.nextBoolean()) {
        fields.add(i);
      }
    }
    return fields;
  }

  private static TreeSet<String> keys(Random r) {
    TreeSet<String> keys = new TreeSet<>();
    for (String key : KEYS) {
      if (r.nextInt(3) == 0) {
        keys.add(key);
      }
    }
    return keys;
  }

  private static List<IndexMetadata> indices(Random r, int max) {
    List<IndexMetadata> indices = new ArrayList<>();
    for (int i = r.nextInt(max + 1); i > 0; i--) {
      long[] covered = r.nextInt(4) == 0 ? null : ids(r, 3).stream().mapToLong(Long::longValue).toArray();
      indices.add(Txns.index(INDEX_NAMES[r.nextInt(INDEX_NAMES.length)], r.nextInt(3),
          fields(r).stream().mapToInt(Integer::intValue).toArray(), covered));
    }
    return indices;
  }

  private static ByteString memWal(Random r) {
    return r.nextInt(8) == 0
        ? ByteString.copyFrom(new byte[] {0x48, 0x01})
        : Txns.memWal("r" + r.nextInt(2), r.nextInt(2));
  }

  private static Transaction.UpdateMap map(Random r) {
    List<String> entries = new ArrayList<>();
    for (String key : keys(r)) {
      entries.add(r.nextBoolean() ? key + "=v" : key);
    }
    return Txns.updateMap(r.nextInt(8) == 0, entries.toArray(String[]::new));
  }

  private static Transaction.UpdateConfig updateConfig(Random r) {
    Transaction.UpdateConfig.Builder u = Transaction.UpdateConfig.newBuilder();
    if (r.nextInt(5) == 0) {
      keys(r).forEach(k -> u.putUpsertValues(k, "v"));
      keys(r).forEach(u::addDeleteKeys);
      if (r.nextBoolean()) {
        u.putSchemaMetadata("s", "v");
      }
      return u.build();
    }
    if (r.nextBoolean()) {
      u.setConfigUpdates(map(r));
    }
    if (r.nextInt(3) == 0) {
      u.setTableMetadataUpdates(map(r));
    }
    if (r.nextInt(3) == 0) {
      u.setSchemaMetadataUpdates(map(r));
    }
    if (r.nextInt(3) == 0) {
      u.putFieldMetadataUpdates(r.nextInt(3), map(r));
    }
    return u.build();
  }
}
