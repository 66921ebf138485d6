package dev.lancecommit.rules.conflict;

import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.conflict.ConfigKeys.ConfigView;
import dev.lancecommit.rules.conflict.ConflictCondition.Verdict;

/** [2026] Schema pre-checks Lance runs before the per-operation rules: nullability (n1) and Merge metadata (s1). */
final class SchemaChanges {
  private SchemaChanges() {}

  /** A Project or Merge that does not promise {@code preserves_nullability}. */
  static boolean mayAlterNullability(Transaction txn) {
    return (txn.hasProject() && !txn.getProject().getPreservesNullability())
        || (txn.hasMerge() && !txn.getMerge().getPreservesNullability());
  }

  /** Operations that write values and could falsify a nullability change: Append, Update, DataReplacement, DataOverlay. */
  static boolean suppliesValues(Transaction txn) {
    return txn.hasAppend() || txn.hasUpdate() || txn.hasDataReplacement() || txn.hasDataOverlay();
  }

  /** n1: R when one side may change nullability and the other writes values, in either order; else C. */
  static Verdict n1(Transaction ours, Transaction theirs, RebaseInputs context) {
    if (mayAlterNullability(ours) && suppliesValues(theirs)) {
      return Verdict.retryable("ours may change column nullability (preserves_nullability is false) and the"
          + " committed transaction wrote values it did not see");
    }
    if (suppliesValues(ours) && mayAlterNullability(theirs)) {
      return Verdict.retryable("the committed schema change may have changed column nullability"
          + " (preserves_nullability is false) and ours writes values checked against the old schema");
    }
    return Verdict.compatible("the schema change preserves nullability");
  }

  /** An UpdateConfig that actually changes schema-level or per-field metadata. */
  static boolean updatesSchemaOrFieldMetadata(Transaction txn) {
    if (!txn.hasUpdateConfig()) {
      return false;
    }
    ConfigView view = ConfigView.of(txn.getUpdateConfig());
    return view.schemaMetadata().changesSomething()
        || view.fields().values().stream().anyMatch(ConfigKeys.MapChange::changesSomething);
  }

  /**
   * s1: R when a Merge meets an UpdateConfig that changes schema or field metadata, in either order (a Merge carries
   * the whole schema of its read version, so one side's metadata would be lost); else C.
   */
  static Verdict s1(Transaction ours, Transaction theirs, RebaseInputs context) {
    if ((ours.hasMerge() && updatesSchemaOrFieldMetadata(theirs))
        || (updatesSchemaOrFieldMetadata(ours) && theirs.hasMerge())) {
      return Verdict.retryable("a Merge carries the whole schema of its read version and the UpdateConfig changes"
          + " schema or field metadata; one side's metadata would be lost");
    }
    return Verdict.compatible("the UpdateConfig changes neither schema nor field metadata");
  }

  /**
   * p1 [2026]: ours is an Update carrying primary-key {@code inserted_rows} (a key-existence filter). Lance answers R
   * against an Append, against an Update without a filter, and against an Update whose filter may intersect ours.
   * The filter is opaque bytes here, so any committed Update or Append makes it R. C when ours has no filter.
   */
  static Verdict p1(Transaction ours, Transaction theirs, RebaseInputs context) {
    if (!ours.getUpdate().hasInsertedRows()) {
      return Verdict.compatible("ours carries no primary-key filter");
    }
    if (theirs.hasAppend()) {
      return Verdict.retryable("ours inserts primary keys and the committed Append may have inserted the same keys");
    }
    if (theirs.hasUpdate() && !theirs.getUpdate().hasInsertedRows()) {
      return Verdict.retryable("ours inserts primary keys and the committed Update has no key filter to compare");
    }
    return Verdict.retryable("ours inserts primary keys and this build cannot intersect key-existence filters;"
        + " retry to be safe");
  }
}
