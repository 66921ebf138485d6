package dev.lancecommit.rules;

import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Transaction;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Rewrite (compaction). Per group: when the old fragments sit contiguously and in order in the fragment list the
 * new fragments are spliced in at that position, otherwise the old ones are removed and the new ones appended.
 * New fragments keep reserved ids and get fresh ids when 0. Index bitmaps follow the groups: with stable row ids
 * every bitmap is remapped; without, only the indices named in rewritten_indices, which also take their new uuid.
 */
final class RewriteOperation {
  private RewriteOperation() {}

  static void apply(ManifestDraft draft, Transaction.Rewrite rewrite) {
    List<Transaction.RewriteGroup> groups = rewrite.getGroupsCount() > 0
        ? rewrite.getGroupsList()
        : List.of(Transaction.RewriteGroup.newBuilder()
            .addAllOldFragments(rewrite.getOldFragmentsList())
            .addAllNewFragments(rewrite.getNewFragmentsList())
            .build());

    ArrayList<DataFragment> fragments = ManifestDraft.copyWithRoom(draft.fragments(), 0);
    List<IndexRetention.RewrittenGroup> applied = new ArrayList<>();
    for (Transaction.RewriteGroup group : groups) {
      List<DataFragment> oldFragments = group.getOldFragmentsList();
      if (oldFragments.isEmpty()) {
        throw new InvalidTransactionException("Rewrite group has no old fragments");
      }
      requirePresent(fragments, oldFragments, draft.previous().getVersion());
      List<DataFragment> newFragments = draft.assignFragmentIds(group.getNewFragmentsList());
      splice(fragments, oldFragments, newFragments);
      applied.add(IndexRetention.RewrittenGroup.of(oldFragments, newFragments));
    }
    draft.adoptFragments(fragments);
    if (draft.stableRowIds()) {
      draft.setIndices(IndexRetention.remapAllBitmaps(draft.indices(), applied));
    } else {
      draft.setIndices(
          IndexRetention.applyRewrittenIndices(draft.indices(), rewrite.getRewrittenIndicesList(), applied));
    }
  }

  private static void requirePresent(List<DataFragment> fragments, List<DataFragment> wanted, long version) {
    Set<Long> present = new HashSet<>();
    fragments.forEach(f -> present.add(f.getId()));
    for (DataFragment old : wanted) {
      if (!present.contains(old.getId())) {
        throw new InvalidTransactionException(
            "Table version " + version + " does not contain fragment " + old.getId() + " that the rewrite replaces");
      }
    }
  }

  private static void splice(List<DataFragment> fragments, List<DataFragment> oldFragments,
      List<DataFragment> newFragments) {
    int start = indexOf(fragments, oldFragments.get(0).getId());
    boolean contiguous = start + oldFragments.size() <= fragments.size();
    for (int i = 1; contiguous && i < oldFragments.size(); i++) {
      contiguous = fragments.get(start + i).getId() == oldFragments.get(i).getId();
    }
    if (contiguous) {
      fragments.subList(start, start + oldFragments.size()).clear();
      fragments.addAll(start, newFragments);
    } else {
      Set<Long> oldIds = new HashSet<>();
      oldFragments.forEach(f -> oldIds.add(f.getId()));
      fragments.removeIf(f -> oldIds.contains(f.getId()));
      fragments.addAll(newFragments);
    }
  }

  private static int indexOf(List<DataFragment> fragments, long id) {
    for (int i = 0; i < fragments.size(); i++) {
      if (fragments.get(i).getId() == id) {
        return i;
      }
    }
    return -1;
  }
}
