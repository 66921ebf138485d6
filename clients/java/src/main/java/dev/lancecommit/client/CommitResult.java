package dev.lancecommit.client;

import java.util.List;

/**
 * A committed transaction, as CommitTable answered it.
 *
 * @param version the version the transaction became
 * @param readVersion the read version of the transaction that was committed (after any rebuild by the client)
 * @param transactionUuid the transaction's uuid
 * @param manifestPath where the coordinator wrote the manifest of {@code version}
 * @param operation the operation's name, e.g. {@code Append}
 * @param groupSize how many writers' transactions {@code version} commits (more than 1: a group commit)
 * @param newFragmentIds the ids {@code version} gave the fragments the transaction added (Append, Overwrite: its
 *     fragments; Update: its new fragments), in the transaction's order, so a writer need not read the manifest back
 *     to learn them; empty for other operations
 */
public record CommitResult(long version, long readVersion, String transactionUuid, String manifestPath,
    String operation, int groupSize, List<Long> newFragmentIds) {

  public CommitResult {
    newFragmentIds = List.copyOf(newFragmentIds);
  }

  /** A result of a version of its own that names no fragment ids. */
  public CommitResult(long version, long readVersion, String transactionUuid, String manifestPath,
      String operation) {
    this(version, readVersion, transactionUuid, manifestPath, operation, 1, List.of());
  }
}
