package dev.lancecommit.rules;

import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Transaction;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Delete: fragments named in deleted_fragment_ids disappear, fragments in updated_fragments are replaced wholesale
 * (new deletion file), then indices that no longer cover anything are retained per Lance's rules.
 */
final class DeleteOperation {
  private DeleteOperation() {}

  static void apply(ManifestDraft draft, Transaction.Delete delete) {
    Set<Long> deleted = new HashSet<>(delete.getDeletedFragmentIdsList());
    Map<Long, DataFragment> updated = new HashMap<>();
    for (DataFragment fragment : delete.getUpdatedFragmentsList()) {
      updated.put(fragment.getId(), fragment);
    }
    FragmentSplice.Spliced spliced = FragmentSplice.apply(draft.fragments(), draft.fragmentsSortedById(), updated,
        deleted, 0);
    draft.adoptFragments(spliced.fragments(), spliced.edits());
    draft.setIndices(IndexRetention.retainRelevant(draft.indices(), draft.schemaFieldIds(), draft::fragmentIds));
  }
}
