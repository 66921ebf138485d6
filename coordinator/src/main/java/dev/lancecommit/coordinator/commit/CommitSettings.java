package dev.lancecommit.coordinator.commit;

import dev.lancecommit.format.FormatFeatures;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.pb.Manifest;

/**
 * Tuning of the commit path; the keys and their documentation are in {@code CoordinatorConfig}.
 *
 * @param maxQueuedPerTable commits waiting in one table's lane before new ones get 429
 * @param maxRebuildAttempts times a commit may find its version taken by a writer outside the lane before it gives up
 *     with a retryable conflict
 * @param ambiguousWriteAttempts create attempts (and read-backs) for a manifest write whose outcome is unknown
 * @param recentTransactions transactions of recent versions each lane keeps for conflict checks
 * @param writerVersion written into every manifest
 * @param defaultStorageVersion data storage version of tables created without data files that name one
 * @param newTableScheme manifest naming scheme for tables the coordinator creates
 * @param formatFeatures optional table-format features understood (the semantic-types flag bit)
 * @param verifyFiles check, before a version is written, every file it adds ({@code commit.verify-files})
 * @param verifyFilesParallelism store requests in flight at most while one commit's files are checked
 * @param groupMaxTransactions most writers' transactions one version may commit (group commit); 1 turns grouping off
 * @param groupMaxBytes most bytes of transactions one group may hold (the first always fits)
 * @param verifyFilesAheadThreads threads that check each commit's files while it waits in its lane; 0: every file is
 *     checked when its version is prepared
 * @param transactionBesideManifest on an object store, write a group's {@code .txn} beside its manifest's
 *     put-if-absent rather than before it ({@code commit.transaction-file.beside-manifest})
 */
public record CommitSettings(
    int maxQueuedPerTable,
    int maxRebuildAttempts,
    int ambiguousWriteAttempts,
    int recentTransactions,
    Manifest.WriterVersion writerVersion,
    String defaultStorageVersion,
    ManifestNaming.Scheme newTableScheme,
    FormatFeatures formatFeatures,
    boolean verifyFiles,
    int verifyFilesParallelism,
    int groupMaxTransactions,
    long groupMaxBytes,
    int verifyFilesAheadThreads,
    boolean transactionBesideManifest) {

  /** Default of {@link #groupMaxTransactions}. */
  public static final int DEFAULT_GROUP_MAX_TRANSACTIONS = 128;
  /** Default of {@link #groupMaxBytes}. */
  public static final long DEFAULT_GROUP_MAX_BYTES = 8L << 20;

  /** The default of {@code commit.verify-files.parallelism}. */
  public static final int DEFAULT_VERIFY_PARALLELISM = 32;

  /** The default of {@code commit.verify-files.ahead-threads}. */
  public static final int DEFAULT_VERIFY_AHEAD_THREADS = 32;

  public CommitSettings {
    if (verifyFilesParallelism < 1) {
      throw new IllegalArgumentException("verifyFilesParallelism must be at least 1: " + verifyFilesParallelism);
    }
    if (verifyFilesAheadThreads < 0) {
      throw new IllegalArgumentException("verifyFilesAheadThreads must be at least 0: " + verifyFilesAheadThreads);
    }
    if (groupMaxTransactions < 1 || groupMaxBytes < 1) {
      throw new IllegalArgumentException("Group commit limits must be at least 1, got " + groupMaxTransactions
          + " transactions and " + groupMaxBytes + " bytes");
    }
  }

  /** Settings with a group's {@code .txn} written beside its manifest on an object store (the default). */
  public CommitSettings(int maxQueuedPerTable, int maxRebuildAttempts, int ambiguousWriteAttempts,
      int recentTransactions, Manifest.WriterVersion writerVersion, String defaultStorageVersion,
      ManifestNaming.Scheme newTableScheme, FormatFeatures formatFeatures, boolean verifyFiles,
      int verifyFilesParallelism, int groupMaxTransactions, long groupMaxBytes, int verifyFilesAheadThreads) {
    this(maxQueuedPerTable, maxRebuildAttempts, ambiguousWriteAttempts, recentTransactions, writerVersion,
        defaultStorageVersion, newTableScheme, formatFeatures, verifyFiles, verifyFilesParallelism,
        groupMaxTransactions, groupMaxBytes, verifyFilesAheadThreads, true);
  }

  /** Settings with the default number of threads checking files ahead. */
  public CommitSettings(int maxQueuedPerTable, int maxRebuildAttempts, int ambiguousWriteAttempts,
      int recentTransactions, Manifest.WriterVersion writerVersion, String defaultStorageVersion,
      ManifestNaming.Scheme newTableScheme, FormatFeatures formatFeatures, boolean verifyFiles,
      int verifyFilesParallelism, int groupMaxTransactions, long groupMaxBytes) {
    this(maxQueuedPerTable, maxRebuildAttempts, ambiguousWriteAttempts, recentTransactions, writerVersion,
        defaultStorageVersion, newTableScheme, formatFeatures, verifyFiles, verifyFilesParallelism,
        groupMaxTransactions, groupMaxBytes, DEFAULT_VERIFY_AHEAD_THREADS);
  }

  /** Settings with file checks on and the default group limits. */
  public CommitSettings(int maxQueuedPerTable, int maxRebuildAttempts, int ambiguousWriteAttempts,
      int recentTransactions, Manifest.WriterVersion writerVersion, String defaultStorageVersion,
      ManifestNaming.Scheme newTableScheme, FormatFeatures formatFeatures) {
    this(maxQueuedPerTable, maxRebuildAttempts, ambiguousWriteAttempts, recentTransactions, writerVersion,
        defaultStorageVersion, newTableScheme, formatFeatures, true, DEFAULT_VERIFY_PARALLELISM,
        DEFAULT_GROUP_MAX_TRANSACTIONS, DEFAULT_GROUP_MAX_BYTES);
  }

  /** Settings without optional format features, file checks on. */
  public CommitSettings(int maxQueuedPerTable, int maxRebuildAttempts, int ambiguousWriteAttempts,
      int recentTransactions, Manifest.WriterVersion writerVersion, String defaultStorageVersion,
      ManifestNaming.Scheme newTableScheme) {
    this(maxQueuedPerTable, maxRebuildAttempts, ambiguousWriteAttempts, recentTransactions, writerVersion,
        defaultStorageVersion, newTableScheme, FormatFeatures.standard());
  }

  public CommitSettings withFormatFeatures(FormatFeatures features) {
    return new CommitSettings(maxQueuedPerTable, maxRebuildAttempts, ambiguousWriteAttempts, recentTransactions,
        writerVersion, defaultStorageVersion, newTableScheme, features, verifyFiles, verifyFilesParallelism,
        groupMaxTransactions, groupMaxBytes, verifyFilesAheadThreads, transactionBesideManifest);
  }

  /** These settings with file checks on or off. */
  public CommitSettings withVerifyFiles(boolean verify) {
    return new CommitSettings(maxQueuedPerTable, maxRebuildAttempts, ambiguousWriteAttempts, recentTransactions,
        writerVersion, defaultStorageVersion, newTableScheme, formatFeatures, verify, verifyFilesParallelism,
        groupMaxTransactions, groupMaxBytes, verifyFilesAheadThreads, transactionBesideManifest);
  }

  /** These settings with other group limits ({@code 1} transaction: no grouping). */
  public CommitSettings withGroupLimits(int maxTransactions, long maxBytes) {
    return new CommitSettings(maxQueuedPerTable, maxRebuildAttempts, ambiguousWriteAttempts, recentTransactions,
        writerVersion, defaultStorageVersion, newTableScheme, formatFeatures, verifyFiles, verifyFilesParallelism,
        maxTransactions, maxBytes, verifyFilesAheadThreads, transactionBesideManifest);
  }

  /** These settings with another number of threads checking files ahead ({@code 0}: none). */
  public CommitSettings withVerifyFilesAheadThreads(int threads) {
    return new CommitSettings(maxQueuedPerTable, maxRebuildAttempts, ambiguousWriteAttempts, recentTransactions,
        writerVersion, defaultStorageVersion, newTableScheme, formatFeatures, verifyFiles, verifyFilesParallelism,
        groupMaxTransactions, groupMaxBytes, threads, transactionBesideManifest);
  }

  /** These settings with a group's {@code .txn} written beside its manifest, or before it. */
  public CommitSettings withTransactionBesideManifest(boolean beside) {
    return new CommitSettings(maxQueuedPerTable, maxRebuildAttempts, ambiguousWriteAttempts, recentTransactions,
        writerVersion, defaultStorageVersion, newTableScheme, formatFeatures, verifyFiles, verifyFilesParallelism,
        groupMaxTransactions, groupMaxBytes, verifyFilesAheadThreads, beside);
  }
}
