package dev.lancecommit.coordinator.commit;

import dev.lancecommit.coordinator.table.NextVersion;
import dev.lancecommit.coordinator.table.StagedVersion;
import dev.lancecommit.coordinator.table.TableSnapshot;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.OperationKind;

/** What the lane found a commit to be when it checked it: already committed, or a version built, not written. */
sealed interface Built {

  /** The transaction already made {@code version} (an idempotent resubmit). */
  record AlreadyCommitted(long version, TableSnapshot current) implements Built {}

  /**
   * The next version, built on {@code base} and staged (its deletion files written, not its manifest; its
   * {@code .txn} too, except under a hold, where {@link CommitLane#write} writes it). {@code transaction} is the one
   * the writer sent (the version records it as rebased, when it was).
   */
  record Ready(TableSnapshot base, StagedVersion staged, Transaction transaction, OperationKind kind)
      implements Built {
    long version() {
      return staged.next().version();
    }

    NextVersion next() {
      return staged.next();
    }
  }
}
