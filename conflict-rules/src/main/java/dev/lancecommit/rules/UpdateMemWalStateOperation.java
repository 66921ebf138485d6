package dev.lancecommit.rules;

import dev.lancecommit.format.pb.MemWalIndexDetails;
import dev.lancecommit.format.pb.Transaction;
import java.util.List;

/**
 * UpdateMemWalState (Nov-2025 format): fragments are carried forward unchanged and only the MemWAL index changes.
 * Lance Nov-2025 forgets to carry the fragments (its manifest would list none); that bug is not reproduced.
 */
final class UpdateMemWalStateOperation {
  private UpdateMemWalStateOperation() {}

  static void apply(ManifestDraft draft, Transaction.UpdateMemWalState state) {
    if (!state.getUnknownFields().asMap().isEmpty()) {
      throw new UnsupportedOperationTypeException("UpdateMemWalState (2026 format)");
    }
    List<MemWalIndexDetails.MemWal> added =
        MemWalIndex.decode(state.getAddedOrCompactedSstablesList(), "UpdateMemWalState");
    List<MemWalIndexDetails.MemWal> updated = MemWalIndex.decode(state.getUpdatedList(), "UpdateMemWalState");
    draft.setIndices(MemWalIndex.update(draft.indices(), draft, added, updated, state.getRemovedList()));
  }
}
