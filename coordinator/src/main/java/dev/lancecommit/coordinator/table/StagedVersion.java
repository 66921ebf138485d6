package dev.lancecommit.coordinator.table;

import dev.lancecommit.coordinator.storage.ObjectStore;
import dev.lancecommit.coordinator.storage.StagedPut;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * A version whose files are written except the manifest: its {@code .txn} (unless it is written beside the manifest)
 * and the deletion files it names are in place, and {@link TableOperations#commit(StagedVersion)} makes it the
 * table's version with the one put-if-absent.
 * Staging does not need the base to have landed, so the next version is staged while the one before it is being
 * written; if that write is taken or its outcome unknown, a version staged on top of it is built again (its files
 * are left as orphans, as Lance leaves those of a lost attempt).
 */
public final class StagedVersion {
  private final TableSnapshot base;
  private final NextVersion next;
  private final TableSnapshot after;
  private final ManifestStaging manifest;
  private final Executor transactionBeside;

  StagedVersion(TableSnapshot base, NextVersion next, ManifestStaging manifest) {
    this(base, next, manifest, null);
  }

  StagedVersion(TableSnapshot base, NextVersion next, ManifestStaging manifest, Executor transactionBeside) {
    this.base = Objects.requireNonNull(base, "base");
    this.next = Objects.requireNonNull(next, "next");
    this.manifest = Objects.requireNonNull(manifest, "manifest");
    this.transactionBeside = transactionBeside;
    this.after = base.speculate(next.state(), next.transaction());
  }

  /** The table the version was built on; it may still be being written itself. */
  public TableSnapshot base() {
    return base;
  }

  public NextVersion next() {
    return next;
  }

  /** The table once this version has landed: what the next version is built on, speculatively until then. */
  public TableSnapshot after() {
    return after;
  }

  public long version() {
    return next.version();
  }

  /**
   * The manifest's put-if-absent, prepared as far as the store allows ({@link ObjectStore#stagePutIfAbsent}); waits
   * for a staging under way.
   */
  StagedPut manifest() {
    return manifest.get();
  }

  /**
   * Where the {@code .txn} is written beside the manifest's create
   * ({@link TableOperations#stagedWithTransactionBeside}); null when it was written before.
   */
  Executor transactionBeside() {
    return transactionBeside;
  }

  /**
   * Drops a version that will not be written (its base was taken or is in doubt): what staging its manifest wrote is
   * removed. Its {@code .txn} and deletion files stay, named by no manifest, as those of a lost Lance commit.
   */
  public void discard() {
    manifest.discard();
  }
}
