package dev.lancecommit.coordinator.table;

import dev.lancecommit.coordinator.storage.StoreException;
import dev.lancecommit.format.CorruptManifestException;
import dev.lancecommit.format.pb.Transaction;
import java.util.Optional;

/**
 * The transaction that made a version, found as Lance finds it: the manifest's inline copy, else the
 * {@code _transactions/} file its {@code transaction_file} names. When it is not found, {@link #source()} says why,
 * so each reader can answer in its own terms ({@link TableOperations#transactionOf} fails the way Lance writers do,
 * the reconciler publishes the version as an unknown operation, a staged manifest is refused as bad input).
 *
 * @param transaction null unless found
 * @param fileName the {@code transaction_file} the manifest names ("" when none)
 * @param failure why the file did not decode, for {@link Source#UNREADABLE_FILE}
 */
public record VersionTransaction(Source source, Transaction transaction, String fileName,
    CorruptManifestException failure) {

  public enum Source {
    /** In the manifest. */
    INLINE,
    /** Read from the {@code .txn} file the manifest names. */
    FILE,
    /** The manifest has no inline transaction and names no file. */
    NO_TRANSACTION,
    /** The name is not a {@code {read_version}-{uuid}.txn} name, so it is not read. */
    INVALID_FILE_NAME,
    /** The named file is not there. */
    MISSING_FILE,
    /** The named file is not a Lance transaction. */
    UNREADABLE_FILE
  }

  public Optional<Transaction> found() {
    return Optional.ofNullable(transaction);
  }

  /**
   * The transaction, or the failure a Lance writer would meet on this version.
   *
   * @throws StoreException when there is none, or its file is missing or misnamed
   * @throws CorruptManifestException when its file is unreadable
   */
  public Transaction require(long version, String tableUri) {
    return switch (source) {
      case INLINE, FILE -> transaction;
      case NO_TRANSACTION -> throw new StoreException("Version " + version + " of " + tableUri + " has no transaction");
      case INVALID_FILE_NAME -> throw new StoreException("Version " + version + " of " + tableUri
          + " names transaction file '" + fileName + "', which is not a {read_version}-{uuid}.txn name");
      case MISSING_FILE -> throw new StoreException(
          "Transaction file " + fileName + " of version " + version + " is missing");
      case UNREADABLE_FILE -> throw failure;
    };
  }
}
