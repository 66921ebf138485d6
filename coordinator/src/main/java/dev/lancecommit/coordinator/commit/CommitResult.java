package dev.lancecommit.coordinator.commit;

/**
 * The answer to a commit. A resubmitted transaction whose uuid already committed gets the same answer.
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
 */
public record CommitResult(long version, long readVersion, String transactionUuid, String manifestPath,
    String operation, int groupSize, java.util.List<Long> newFragmentIds) {

  public CommitResult {
    newFragmentIds = java.util.List.copyOf(newFragmentIds);
  }

  /** An answer that names no fragment ids. */
  public CommitResult(long version, long readVersion, String transactionUuid, String manifestPath, String operation,
      int groupSize) {
    this(version, readVersion, transactionUuid, manifestPath, operation, groupSize, java.util.List.of());
  }

  /** The answer for a transaction committed in a version of its own. */
  public CommitResult(long version, long readVersion, String transactionUuid, String manifestPath, String operation) {
    this(version, readVersion, transactionUuid, manifestPath, operation, 1);
  }
}
