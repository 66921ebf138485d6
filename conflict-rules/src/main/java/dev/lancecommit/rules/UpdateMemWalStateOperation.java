package dev.lancecommit.rules;

import dev.lancecommit.format.pb.MemWalIndexDetails;
import dev.lancecommit.format.pb.Transaction;
import java.util.List;

/**
 * UpdateMemWalState, in either MemWAL generation ({@link MemWalFormat} decides; {@link MemWalIndex#generationOf}
 * breaks ties with the table's MemWAL index). Fragments are always carried forward unchanged and only the MemWAL
 * index changes: Nov-2025 adds/updates/removes MemWALs, 2026 advances per-shard compacted SSTable generations.
 * (Lance Nov-2025, and 2026 before lance#8438, forgot to carry the fragments; that bug is not reproduced.)
 */
final class UpdateMemWalStateOperation {
  private UpdateMemWalStateOperation() {}

  static void apply(ManifestDraft draft, Transaction.UpdateMemWalState state) {
    MemWalFormat.Reading reading = MemWalFormat.state(state);
    switch (MemWalIndex.generationOf(reading, draft.indices(), "UpdateMemWalState")) {
      case NOV_2025 -> applyNov2025(draft, state);
      case LANCE_2026 -> apply2026(draft, MemWalFormat.as2026(state));
    }
  }

  private static void applyNov2025(ManifestDraft draft, Transaction.UpdateMemWalState state) {
    List<MemWalIndexDetails.MemWal> added =
        MemWalIndex.decode(state.getAddedOrCompactedSstablesList(), "UpdateMemWalState");
    List<MemWalIndexDetails.MemWal> updated = MemWalIndex.decode(state.getUpdatedList(), "UpdateMemWalState");
    draft.setIndices(MemWalIndex.update(draft.indices(), draft, added, updated, state.getRemovedList()));
  }

  /**
   * Field 2 (require_index_catchup) lived only in the v11 betas: true switched on reader/writer flag 128 as the
   * MemWAL index-catch-up flag, a bit final Lance gave to covering indices, so it is refused; an explicit false was
   * refused by Lance itself.
   */
  private static void apply2026(ManifestDraft draft, Transaction.UpdateMemWalState2026 state) {
    if (state.hasRequireIndexCatchup()) {
      if (state.getRequireIndexCatchup()) {
        throw new UnsupportedOperationTypeException("UpdateMemWalState with require_index_catchup (the v11-beta"
            + " MemWAL index catch-up protocol; its feature flag 128 was retired)");
      }
      throw new InvalidTransactionException("UpdateMemWalState with require_index_catchup=false: the catch-up"
          + " migration is one-way, and Lance refuses an explicit false");
    }
    draft.setIndices(MemWalIndex.recordCompacted(draft.indices(), draft, state.getCompactedSstablesList()));
  }
}
