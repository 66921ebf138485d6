package dev.lancecommit.rules;

import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Transaction;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Merge (add columns): the transaction's list replaces the fragments and its schema the schema; every original
 * fragment must still be there with the same row count. Indices are retained against the new schema.
 */
final class MergeOperation {
  private MergeOperation() {}

  static void apply(ManifestDraft draft, Transaction.Merge merge) {
    requirePreserved(draft.fragments(), merge.getFragmentsList());
    if (merge.getSchemaCount() == 0) {
      throw new InvalidTransactionException("Merge carries no schema");
    }
    draft.manifest().clearFields().addAllFields(merge.getSchemaList());
    if (merge.getSchemaMetadataCount() > 0) {
      draft.manifest().clearSchemaMetadata().putAllSchemaMetadata(merge.getSchemaMetadataMap());
    }
    draft.setFragments(merge.getFragmentsList());
    draft.setIndices(IndexRetention.retainRelevant(draft.indices(), draft.schemaFieldIds(), draft::fragmentIds));
  }

  /** Lance's merge_fragments_valid. */
  static void requirePreserved(List<DataFragment> original, List<DataFragment> merged) {
    if (merged.size() < original.size()) {
      throw new InvalidTransactionException("Merge operation reduced fragment count from " + original.size()
          + " to " + merged.size() + ". Merge operations should only add columns, not reduce fragments.");
    }
    Map<Long, DataFragment> byId = new HashMap<>();
    merged.forEach(f -> byId.put(f.getId(), f));
    List<Long> missing = new ArrayList<>();
    for (DataFragment old : original) {
      DataFragment now = byId.get(old.getId());
      if (now == null) {
        missing.add(old.getId());
      } else if (now.getPhysicalRows() != old.getPhysicalRows()) {
        throw new InvalidTransactionException("Merge operation changed row count for fragment " + old.getId()
            + ". Original: " + old.getPhysicalRows() + ", New: " + now.getPhysicalRows()
            + ". Merge operations should preserve fragment row counts and only add new columns.");
      }
    }
    if (!missing.isEmpty()) {
      throw new InvalidTransactionException("Merge operation is missing original fragments: " + missing
          + ". Merge operations should preserve all original fragments and only add new columns.");
    }
  }
}
