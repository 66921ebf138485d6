package dev.lancecommit.coordinator.table;

import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.Transaction;
import java.util.Optional;

/**
 * A version built and encoded, ready for {@link TableOperations#commit}: nothing of it is written yet. Building it
 * (the conflict check, the next manifest, the encoding) is CPU only; committing it is the one put-if-absent.
 */
public final class NextVersion {
  private final long version;
  private final ManifestNaming.Scheme scheme;
  private final TableState state;
  private final Transaction transaction;
  private final byte[] manifestFile;

  private NextVersion(long version, ManifestNaming.Scheme scheme, TableState state, Transaction transaction,
      byte[] manifestFile) {
    this.version = version;
    this.scheme = scheme;
    this.state = state;
    this.transaction = transaction;
    this.manifestFile = manifestFile;
  }

  /**
   * Encodes the manifest file of {@code state} with {@code transaction} inline (index section, transaction,
   * manifest, footer); the same transaction goes to {@code _transactions/} when it is committed.
   */
  public static NextVersion of(long version, ManifestNaming.Scheme scheme, TableState state,
      Transaction transaction) {
    return of(version, scheme, state, transaction, null);
  }

  /**
   * {@link #of(long, ManifestNaming.Scheme, TableState, Transaction)} for a state built on {@code previous} (null:
   * none): the fragments it carries over as the same messages are copied from the bytes {@code previous}'s manifest
   * file was encoded with, so encoding a version costs what it changes plus one copy, not an encoding of every
   * fragment of the table.
   */
  public static NextVersion of(long version, ManifestNaming.Scheme scheme, TableState state,
      Transaction transaction, TableState previous) {
    byte[] file = new ManifestFile(state.manifest(), state.indices(), Optional.of(transaction))
        .encode(state.encodeFragments(previous));
    return new NextVersion(version, scheme, state, transaction, file);
  }

  public long version() {
    return version;
  }

  public ManifestNaming.Scheme scheme() {
    return scheme;
  }

  /** The table as this version makes it. */
  public TableState state() {
    return state;
  }

  /** The transaction recorded with the version, inline and as its {@code .txn} file. */
  public Transaction transaction() {
    return transaction;
  }

  /** The size of the manifest file, as written. */
  public long manifestSize() {
    return manifestFile.length;
  }

  byte[] manifestFile() {
    return manifestFile;
  }
}
