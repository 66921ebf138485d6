package dev.lancecommit.coordinator.commit;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The answer to a commit. A resubmitted transaction whose uuid already committed gets the same answer
 * ({@link #answer()}: everything but {@code written}).
 *
 * @param version the committed version
 * @param readVersion the read_version the caller submitted
 * @param transactionUuid the transaction uuid
 * @param manifestPath the full URI of the manifest written for {@code version}
 * @param operation the Lance operation name, e.g. "Append"
 * @param groupSize how many writers' transactions the version commits: 1 for a version of its own, more when the
 *     transaction was committed in a group
 * @param newFragmentIds the ids the version gave the fragments the transaction added (Append and Overwrite: its
 *     fragments; Update: its new fragments), in the transaction's order; empty for other operations
 * @param written the manifest as this commit wrote it, when this commit wrote it (empty when the version landed
 *     before, e.g. for a resubmission): lets a caller describe the version without asking the store
 */
public record CommitResult(long version, long readVersion, String transactionUuid, String manifestPath,
    String operation, int groupSize, List<Long> newFragmentIds, Optional<WrittenManifest> written) {

  public CommitResult {
    newFragmentIds = List.copyOf(newFragmentIds);
  }

  /** An answer whose manifest was not written by this commit. */
  public CommitResult(long version, long readVersion, String transactionUuid, String manifestPath, String operation,
      int groupSize, List<Long> newFragmentIds) {
    this(version, readVersion, transactionUuid, manifestPath, operation, groupSize, newFragmentIds, Optional.empty());
  }

  /** An answer that names no fragment ids. */
  public CommitResult(long version, long readVersion, String transactionUuid, String manifestPath, String operation,
      int groupSize) {
    this(version, readVersion, transactionUuid, manifestPath, operation, groupSize, List.of());
  }

  /** The answer for a transaction committed in a version of its own. */
  public CommitResult(long version, long readVersion, String transactionUuid, String manifestPath, String operation) {
    this(version, readVersion, transactionUuid, manifestPath, operation, 1);
  }

  /** This result as the writer is told it: without {@code written}, so equal to what a resubmission is told. */
  public CommitResult answer() {
    return written.isEmpty() ? this : new CommitResult(version, readVersion, transactionUuid, manifestPath,
        operation, groupSize, newFragmentIds);
  }

  /**
   * A version's manifest as the commit that landed it wrote it.
   *
   * @param size its size in bytes
   * @param timestamp the version's timestamp, as the manifest records it
   */
  public record WrittenManifest(long size, Instant timestamp) {}
}
