package dev.lancecommit.rules;

import dev.lancecommit.format.FragmentEdits;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Transaction;
import java.util.ArrayList;
import java.util.List;

/** Append: the previous fragments plus the new ones (ids assigned, stable row ids stamped). Indices unchanged. */
final class AppendOperation {
  private AppendOperation() {}

  static void apply(ManifestDraft draft, Transaction.Append append) {
    List<DataFragment> added = draft.admitNewFragments(append.getFragmentsList());
    FragmentEdits edits = draft.fragmentsSortedById() ? FragmentEdits.appendedAfter(draft.fragments().size()) : null;
    ArrayList<DataFragment> fragments = ManifestDraft.copyWithRoom(draft.fragments(), added.size());
    fragments.addAll(added);
    draft.adoptFragments(fragments, edits);
  }
}
