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
 */
public record CommitSettings(
    int maxQueuedPerTable,
    int maxRebuildAttempts,
    int ambiguousWriteAttempts,
    int recentTransactions,
    Manifest.WriterVersion writerVersion,
    String defaultStorageVersion,
    ManifestNaming.Scheme newTableScheme,
    FormatFeatures formatFeatures) {

  /** Settings without optional format features. */
  public CommitSettings(int maxQueuedPerTable, int maxRebuildAttempts, int ambiguousWriteAttempts,
      int recentTransactions, Manifest.WriterVersion writerVersion, String defaultStorageVersion,
      ManifestNaming.Scheme newTableScheme) {
    this(maxQueuedPerTable, maxRebuildAttempts, ambiguousWriteAttempts, recentTransactions, writerVersion,
        defaultStorageVersion, newTableScheme, FormatFeatures.standard());
  }

  public CommitSettings withFormatFeatures(FormatFeatures features) {
    return new CommitSettings(maxQueuedPerTable, maxRebuildAttempts, ambiguousWriteAttempts, recentTransactions,
        writerVersion, defaultStorageVersion, newTableScheme, features);
  }
}
