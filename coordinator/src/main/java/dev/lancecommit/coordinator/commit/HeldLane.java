package dev.lancecommit.coordinator.commit;

import dev.lancecommit.coordinator.table.TableRef;

/**
 * A table's lane, held ({@link TableLanes#hold}): nothing else commits to the table until {@link #release}. The
 * calls block (storage reads and writes) and are made one at a time by the holder.
 */
public interface HeldLane {

  TableRef table();

  /** True when the lane is held on another instance (cluster mode: the table's owner), not in this process. */
  default boolean elsewhere() {
    return false;
  }

  /**
   * Checks {@code request} as the lane would commit it now (decoding, validation, feature flags, schema contract,
   * conflict rules against every version since its read version) and builds the version. Writes nothing but the
   * deletion files of a server-side rebase, which no version names until one is written.
   *
   * @throws RuntimeException the commit path's exceptions, as a single commit would get them
   */
  CheckedCommit check(CommitRequest request);

  /**
   * Writes a commit checked under this hold (the manifest's put-if-absent) and keeps its event, carrying
   * {@code batchId}, until {@link #release}. A commit already committed writes nothing and keeps its event again.
   *
   * @throws dev.lancecommit.rules.conflict.CommitConflictException when a writer that bypassed the coordinator took
   *     the version since the check
   * @throws dev.lancecommit.coordinator.table.CommitStateUnknownException when the write's outcome is unknown
   */
  CommitResult apply(CheckedCommit checked, String batchId);

  /**
   * Hands the kept events over (when {@code handOverEvents}) and lets the lane go on. Idempotent.
   */
  void release(boolean handOverEvents);
}
