package dev.lancecommit.rules.conflict;

import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.conflict.ConflictCondition.Verdict;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The D/U-rebase rule (ours Delete or Update vs theirs Delete or Update), Lance's {@code check_delete_txn} /
 * {@code check_update_txn} against a Delete/Update plus the decision of {@code TransactionRebase::finish}.
 */
final class DeleteUpdateRebase {
  private DeleteUpdateRebase() {}

  static Verdict du(Transaction ours, Transaction theirs, RebaseInputs context) {
    SortedSet<Long> ourModified = FragmentOverlap.modifiedFragmentIds(ours);
    SortedSet<Long> both = FragmentOverlap.intersection(ourModified, FragmentOverlap.touchedFragmentIds(theirs));
    if (both.isEmpty()) {
      return Verdict.compatible("no fragment is touched by both");
    }
    if (updatedFragments(ours).isEmpty()) {
      // Lance drops affected rows for a transaction that only removes whole fragments: nothing to row-rebase.
      return Verdict.retryable("both touch fragments " + both + " and ours removes whole fragments, which cannot be"
          + " rebased row by row");
    }
    if (!context.hasAffectedRows()) {
      return Verdict.retryable("both touch fragments " + both + " and no affected rows were supplied, so the"
          + " deletion vectors cannot be merged");
    }
    Optional<Map<Long, DataFragment>> supplied = context.initialFragments();
    if (supplied.isEmpty()) {
      return Verdict.retryable("both touch fragments " + both + " and the fragments as of the read version were"
          + " not supplied, so the deletion vectors cannot be merged");
    }
    Map<Long, DataFragment> initial = supplied.get();
    SortedSet<Long> unknown = new TreeSet<>(both);
    unknown.removeAll(initial.keySet());
    if (!unknown.isEmpty()) {
      return Verdict.retryable("both touch fragments " + both + " and fragments " + unknown + " are missing from the"
          + " supplied fragments as of the read version");
    }
    TreeSet<Long> needsRewrite = new TreeSet<>();
    for (DataFragment updated : updatedFragments(theirs)) {
      DataFragment before = ourModified.contains(updated.getId()) ? initial.get(updated.getId()) : null;
      if (before == null) {
        continue;
      }
      if (!sameDataFiles(before.getFilesList(), updated.getFilesList())) {
        return Verdict.retryable("fragment " + updated.getId() + " had its data files rewritten");
      }
      if (!sameDeletionFile(before, updated)) {
        needsRewrite.add(updated.getId());
      }
    }
    for (long removed : removedFragmentIds(theirs)) {
      if (ourModified.contains(removed) && initial.containsKey(removed)) {
        return Verdict.retryable("fragment " + removed + " was removed");
      }
    }
    if (needsRewrite.isEmpty()) {
      return Verdict.compatible("both touch fragments " + both + " but no deletion vector changed underneath ours");
    }
    return Verdict.rebase("the deletion vectors of fragments " + needsRewrite + " changed underneath ours and must be"
        + " merged with our affected rows", needsRewrite);
  }

  private static List<DataFragment> updatedFragments(Transaction txn) {
    return switch (txn.getOperationCase()) {
      case DELETE -> txn.getDelete().getUpdatedFragmentsList();
      case UPDATE -> txn.getUpdate().getUpdatedFragmentsList();
      default -> List.of();
    };
  }

  private static List<Long> removedFragmentIds(Transaction txn) {
    return switch (txn.getOperationCase()) {
      case DELETE -> txn.getDelete().getDeletedFragmentIdsList();
      case UPDATE -> txn.getUpdate().getRemovedFragmentIdsList();
      default -> List.of();
    };
  }

  /**
   * Lance compares the data file lists exactly. One leniency: a file size of 0 means "unknown" and matches any
   * size, because the coordinator may have filled in sizes a writer left unknown; path, fields, column indices,
   * versions and base are compared exactly.
   */
  static boolean sameDataFiles(List<DataFile> a, List<DataFile> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      DataFile x = a.get(i);
      DataFile y = b.get(i);
      boolean sizesMatch = x.getFileSizeBytes() == y.getFileSizeBytes()
          || x.getFileSizeBytes() == 0 || y.getFileSizeBytes() == 0;
      if (!sizesMatch || !x.toBuilder().clearFileSizeBytes().build().equals(y.toBuilder().clearFileSizeBytes().build())) {
        return false;
      }
    }
    return true;
  }

  private static boolean sameDeletionFile(DataFragment a, DataFragment b) {
    if (a.hasDeletionFile() != b.hasDeletionFile()) {
      return false;
    }
    return !a.hasDeletionFile() || a.getDeletionFile().equals(b.getDeletionFile());
  }
}
