package dev.lancecommit.rules.conflict;

import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.conflict.ConflictCondition.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/** Which fragments a transaction modifies, and the "R if overlap" conditions built on that (o1, r1). */
public final class FragmentOverlap {
  private FragmentOverlap() {}

  /**
   * Lance's {@code modified_fragment_ids} of the committing transaction: Delete/Update -> updated ids and
   * deleted/removed ids; Rewrite -> every group's old fragment ids; DataReplacement -> the replaced fragment ids;
   * Merge -> the ids of its fragment list; [2026] DataOverlay -> the overlaid fragment ids; others -> none.
   */
  public static SortedSet<Long> modifiedFragmentIds(Transaction txn) {
    TreeSet<Long> ids = new TreeSet<>();
    switch (txn.getOperationCase()) {
      case DELETE -> {
        txn.getDelete().getUpdatedFragmentsList().forEach(f -> ids.add(f.getId()));
        ids.addAll(txn.getDelete().getDeletedFragmentIdsList());
      }
      case UPDATE -> {
        txn.getUpdate().getUpdatedFragmentsList().forEach(f -> ids.add(f.getId()));
        ids.addAll(txn.getUpdate().getRemovedFragmentIdsList());
      }
      case REWRITE -> rewriteOldFragments(txn.getRewrite()).forEach(f -> ids.add(f.getId()));
      case DATA_REPLACEMENT -> txn.getDataReplacement().getReplacementsList().forEach(r -> ids.add(r.getFragmentId()));
      case MERGE -> txn.getMerge().getFragmentsList().forEach(f -> ids.add(f.getId()));
      case DATA_OVERLAY -> txn.getDataOverlay().getGroupsList().forEach(g -> ids.add(g.getFragmentId()));
      default -> { }
    }
    return ids;
  }

  /**
   * The fragments a committed transaction touched, as the overlap test of §5 sees them: Delete/Update -> updated
   * and removed ids; Rewrite -> its groups' old fragment ids; DataReplacement -> replaced fragment ids; others -> none.
   */
  static SortedSet<Long> touchedFragmentIds(Transaction committed) {
    return switch (committed.getOperationCase()) {
      case DELETE, UPDATE, REWRITE, DATA_REPLACEMENT -> modifiedFragmentIds(committed);
      default -> new TreeSet<>();
    };
  }

  /** The old fragments of every rewrite group; the deprecated single group is read only when groups is empty. */
  static List<DataFragment> rewriteOldFragments(Transaction.Rewrite rewrite) {
    if (rewrite.getGroupsCount() == 0) {
      return rewrite.getOldFragmentsList();
    }
    List<DataFragment> old = new ArrayList<>();
    rewrite.getGroupsList().forEach(g -> old.addAll(g.getOldFragmentsList()));
    return old;
  }

  static SortedSet<Long> rewriteOldFragmentIds(Transaction.Rewrite rewrite) {
    TreeSet<Long> ids = new TreeSet<>();
    rewriteOldFragments(rewrite).forEach(f -> ids.add(f.getId()));
    return ids;
  }

  static SortedSet<Long> intersection(SortedSet<Long> a, SortedSet<Long> b) {
    TreeSet<Long> both = new TreeSet<>(a);
    both.retainAll(b);
    return both;
  }

  /** o1: R when the committed transaction touched a fragment ours modifies, else C. */
  static Verdict o1(Transaction ours, Transaction theirs, RebaseInputs context) {
    SortedSet<Long> both = intersection(modifiedFragmentIds(ours), touchedFragmentIds(theirs));
    return both.isEmpty()
        ? Verdict.compatible("no fragment is touched by both")
        : Verdict.retryable("both touch fragments " + both);
  }

  /**
   * r1 (Rewrite vs Rewrite): R when the two rewrites share an old fragment. Lance also answers R when both carry a
   * fragment-reuse index, but that index travels only in memory (it is not in the protobuf), so it is never seen
   * here.
   */
  static Verdict r1(Transaction ours, Transaction theirs, RebaseInputs context) {
    SortedSet<Long> both = intersection(
        rewriteOldFragmentIds(ours.getRewrite()), rewriteOldFragmentIds(theirs.getRewrite()));
    return both.isEmpty()
        ? Verdict.compatible("the rewrites share no old fragment")
        : Verdict.retryable("both rewrite fragments " + both);
  }
}
