package dev.lancecommit.rules;

import dev.lancecommit.format.pb.Transaction;

/**
 * ReserveFragments: nothing but max_fragment_id moves up by num_fragments; the caller then owns the ids
 * {@code (new_max - n + 1) ..= new_max} and may put them on Rewrite's new fragments.
 */
final class ReserveFragmentsOperation {
  private ReserveFragmentsOperation() {}

  static void apply(ManifestDraft draft, Transaction.ReserveFragments reserve) {
    draft.reserveFragments(Integer.toUnsignedLong(reserve.getNumFragments()));
  }
}
