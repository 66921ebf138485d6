package dev.lancecommit.rules.conflict;

import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.format.pb.Transaction.DataReplacementGroup;
import dev.lancecommit.format.pb.Transaction.UpdateMode;
import dev.lancecommit.rules.conflict.ConflictCondition.Verdict;
import java.util.SortedSet;
import java.util.TreeSet;

/** Field-level overlap of DataReplacement with indices, other replacements and schema changes: i2, d1, d2. */
final class FieldOverlap {
  private FieldOverlap() {}

  static SortedSet<Integer> indexedFields(Transaction.CreateIndex createIndex) {
    TreeSet<Integer> fields = new TreeSet<>();
    createIndex.getNewIndicesList().forEach(i -> fields.addAll(i.getFieldsList()));
    return fields;
  }

  static SortedSet<Integer> replacedFields(Transaction.DataReplacement replacement) {
    TreeSet<Integer> fields = new TreeSet<>();
    replacement.getReplacementsList().forEach(r -> fields.addAll(r.getNewFile().getFieldsList()));
    return fields;
  }

  /** i2 (CreateIndex with DataReplacement, either order): R when a replaced field is one the new indices cover. */
  static Verdict i2(Transaction ours, Transaction theirs, RebaseInputs context) {
    Transaction createIndex = ours.hasCreateIndex() ? ours : theirs;
    Transaction replacement = ours.hasCreateIndex() ? theirs : ours;
    TreeSet<Integer> both = new TreeSet<>(indexedFields(createIndex.getCreateIndex()));
    both.retainAll(replacedFields(replacement.getDataReplacement()));
    return both.isEmpty()
        ? Verdict.compatible("the replaced columns are not indexed by the new indices")
        : Verdict.retryable("the replaced columns include fields " + both + " covered by the new indices");
  }

  /** d1 (DataReplacement vs DataReplacement): R when both replace a common field of the same fragment. */
  static Verdict d1(Transaction ours, Transaction theirs, RebaseInputs context) {
    for (DataReplacementGroup mine : ours.getDataReplacement().getReplacementsList()) {
      for (DataReplacementGroup committed : theirs.getDataReplacement().getReplacementsList()) {
        if (mine.getFragmentId() != committed.getFragmentId()) {
          continue;
        }
        TreeSet<Integer> fields = new TreeSet<>(mine.getNewFile().getFieldsList());
        fields.retainAll(committed.getNewFile().getFieldsList());
        if (!fields.isEmpty()) {
          return Verdict.retryable("both replace fields " + fields + " of fragment " + mine.getFragmentId());
        }
      }
    }
    return Verdict.compatible("the replacements touch different fragments or fields");
  }

  /**
   * d2 [2026] (DataReplacement vs Delete / Update / Project): X when a Delete or Update removed a target fragment
   * outright, or a Project dropped a replaced field; R when an Update that touched a target fragment moved rows out
   * of it (REWRITE_ROWS with new fragments) or rewrote a replaced field in place; else C.
   */
  static Verdict d2(Transaction ours, Transaction theirs, RebaseInputs context) {
    Transaction.DataReplacement replacement = ours.getDataReplacement();
    switch (theirs.getOperationCase()) {
      case DELETE -> {
        for (DataReplacementGroup group : replacement.getReplacementsList()) {
          if (theirs.getDelete().getDeletedFragmentIdsList().contains(group.getFragmentId())) {
            return Verdict.incompatible("target fragment " + group.getFragmentId() + " was deleted");
          }
        }
        return Verdict.compatible("the delete only tombstoned rows of the target fragments");
      }
      case UPDATE -> {
        Transaction.Update update = theirs.getUpdate();
        for (DataReplacementGroup group : replacement.getReplacementsList()) {
          long fragment = group.getFragmentId();
          if (update.getRemovedFragmentIdsList().contains(fragment)) {
            return Verdict.incompatible("target fragment " + fragment + " was removed");
          }
          if (update.getUpdatedFragmentsList().stream().noneMatch(f -> f.getId() == fragment)) {
            continue;
          }
          boolean movedRows = update.getNewFragmentsCount() > 0 && update.getUpdateMode() != UpdateMode.REWRITE_COLUMNS;
          TreeSet<Integer> rewritten = new TreeSet<>();
          for (int field : group.getNewFile().getFieldsList()) {
            if (field >= 0 && update.getFieldsModifiedList().contains(field)) {
              rewritten.add(field);
            }
          }
          if (movedRows) {
            return Verdict.retryable("the committed Update moved rows out of target fragment " + fragment);
          }
          if (!rewritten.isEmpty()) {
            return Verdict.retryable("the committed Update rewrote fields " + rewritten + " of target fragment "
                + fragment);
          }
        }
        return Verdict.compatible("the committed Update left the replaced columns of the target fragments aligned");
      }
      case PROJECT -> {
        TreeSet<Integer> kept = new TreeSet<>();
        for (Field field : theirs.getProject().getSchemaList()) {
          kept.add(field.getId());
        }
        for (DataReplacementGroup group : replacement.getReplacementsList()) {
          for (int field : group.getNewFile().getFieldsList()) {
            if (field >= 0 && !kept.contains(field)) {
              return Verdict.incompatible("target field " + field + " of fragment " + group.getFragmentId()
                  + " was dropped");
            }
          }
        }
        return Verdict.compatible("the projection kept every replaced field");
      }
      default -> {
        return Verdict.compatible("d2 only concerns Delete, Update and Project");
      }
    }
  }
}
