package dev.lancecommit.coordinator.commit;

import java.util.Objects;
import java.util.Optional;

/**
 * One CommitTable call as the service sees it.
 *
 * @param transaction raw Lance {@code Transaction} protobuf bytes, exactly as a writer would put in a .txn file
 * @param affectedRows optional portable Roaring 64-bit map of row addresses the transaction touched
 * @param rebase false makes any intervening commit a retryable conflict instead of a rebase
 * @param actor the authenticated principal, recorded in the commit event
 * @param rebaseOverAppendsOnly with {@code rebase}, rebase only over intervening Appends: any other commit since the
 *     read version is a retryable conflict (managed versioning's landing of an Append on the latest version, see
 *     {@link CreateTableVersion})
 * @param groupable false when the transaction must get a version of its own (never share one in a group commit):
 *     what a writer that committed exactly on its read version, or a stock client that staged the manifest of its
 *     version, expects
 * @param landsAs the one version this transaction may become, 0 for any: a stock client's staged version
 *     (CreateTableVersion), which is created as exactly that version or refused as taken, whatever its read version
 * @param transactionFile what is known of the transaction's {@code _transactions/} file as the request arrives
 */
public record CommitRequest(byte[] transaction, Optional<byte[]> affectedRows, boolean rebase, String actor,
    boolean rebaseOverAppendsOnly, boolean groupable, long landsAs, TransactionFile transactionFile) {

  /**
   * What is known of the {@code _transactions/{read_version}-{uuid}.txn} file of a request's transaction. When the
   * transaction gets a version of its own and is recorded as sent, the lane needs that file to hold it; the outcome is
   * the same whichever is said, only the store requests differ.
   */
  public enum TransactionFile {
    /** Nothing is known of it: the lane creates it. */
    NOT_WRITTEN,
    /**
     * The writer wrote it (a stock client's staged manifest names it: Lance writes it before staging): the lane reads
     * it and creates it only if it is missing, one store request instead of a create that fails and the same read.
     */
    WRITTEN,
    /**
     * Read before the request was made: {@link #transaction} was decoded from it (a staged manifest's transaction
     * without an inline copy), under the name it gives. The lane makes no store request for it when it records the
     * transaction as sent.
     */
    READ_AS_SENT
  }

  public CommitRequest {
    if (landsAs < 0) {
      throw new IllegalArgumentException("landsAs must be a version or 0: " + landsAs);
    }
    Objects.requireNonNull(transactionFile, "transactionFile");
  }

  /** A request whose writer did not write the transaction's file. */
  public CommitRequest(byte[] transaction, Optional<byte[]> affectedRows, boolean rebase, String actor,
      boolean rebaseOverAppendsOnly, boolean groupable, long landsAs) {
    this(transaction, affectedRows, rebase, actor, rebaseOverAppendsOnly, groupable, landsAs,
        TransactionFile.NOT_WRITTEN);
  }

  /** A request that may become any version. */
  public CommitRequest(byte[] transaction, Optional<byte[]> affectedRows, boolean rebase, String actor,
      boolean rebaseOverAppendsOnly, boolean groupable) {
    this(transaction, affectedRows, rebase, actor, rebaseOverAppendsOnly, groupable, 0);
  }

  /** A request that may share a version when it allows rebasing. */
  public CommitRequest(byte[] transaction, Optional<byte[]> affectedRows, boolean rebase, String actor) {
    this(transaction, affectedRows, rebase, actor, false, rebase);
  }

  /** The same request with other transaction bytes. */
  public CommitRequest withTransaction(byte[] otherTransaction) {
    return new CommitRequest(otherTransaction, affectedRows, rebase, actor, rebaseOverAppendsOnly, groupable, landsAs,
        TransactionFile.NOT_WRITTEN);
  }

  /** The same request, committed in a version of its own. */
  public CommitRequest alone() {
    return new CommitRequest(transaction, affectedRows, rebase, actor, rebaseOverAppendsOnly, false, landsAs,
        transactionFile);
  }
}
