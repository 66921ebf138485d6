package dev.lancecommit.rules;

import dev.lancecommit.format.FormatFeatures;
import dev.lancecommit.format.pb.Manifest;
import java.time.Instant;
import java.util.Objects;

/**
 * What the commit path knows about the version being written, beyond the transaction itself.
 *
 * @param version the version number the new manifest gets (latest + 1; 1 when creating a table)
 * @param timestamp commit time, written to {@code Manifest.timestamp}
 * @param transactionFileName the {@code .txn} name under {@code _transactions/}, written to
 *     {@code Manifest.transaction_file}
 * @param writerVersion the library/version stamped into {@code Manifest.writer_version}
 * @param newTableUsesStableRowIds only read when a transaction creates a table: whether that table assigns stable
 *     row ids (an existing table keeps the setting it was created with)
 * @param defaultStorageVersion data storage version of a created table whose transaction carries no data files,
 *     e.g. "2.1"
 * @param features the optional format features this coordinator understands (the semantic-types flag)
 */
public record CommitContext(
    long version,
    Instant timestamp,
    String transactionFileName,
    Manifest.WriterVersion writerVersion,
    boolean newTableUsesStableRowIds,
    String defaultStorageVersion,
    FormatFeatures features) {

  public static final String DEFAULT_STORAGE_VERSION = "2.1";

  /** A context with no optional format feature. */
  public CommitContext(long version, Instant timestamp, String transactionFileName,
      Manifest.WriterVersion writerVersion, boolean newTableUsesStableRowIds, String defaultStorageVersion) {
    this(version, timestamp, transactionFileName, writerVersion, newTableUsesStableRowIds, defaultStorageVersion,
        FormatFeatures.standard());
  }

  public CommitContext {
    if (version <= 0) {
      throw new IllegalArgumentException("version must be positive, got " + version);
    }
    Objects.requireNonNull(timestamp, "timestamp");
    Objects.requireNonNull(transactionFileName, "transactionFileName");
    Objects.requireNonNull(writerVersion, "writerVersion");
    Objects.requireNonNull(defaultStorageVersion, "defaultStorageVersion");
    Objects.requireNonNull(features, "features");
    if (transactionFileName.isEmpty()) {
      throw new IllegalArgumentException("transactionFileName must not be empty");
    }
  }

  /** A context for an existing table, where the stable-row-id choice is the table's own. */
  public static CommitContext of(
      long version, Instant timestamp, String transactionFileName, Manifest.WriterVersion writerVersion) {
    return new CommitContext(
        version, timestamp, transactionFileName, writerVersion, false, DEFAULT_STORAGE_VERSION);
  }

  public CommitContext withFeatures(FormatFeatures newFeatures) {
    return new CommitContext(version, timestamp, transactionFileName, writerVersion, newTableUsesStableRowIds,
        defaultStorageVersion, newFeatures);
  }
}
