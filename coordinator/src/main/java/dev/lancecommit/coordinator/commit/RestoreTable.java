package dev.lancecommit.coordinator.commit;

import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.coordinator.table.TableVersions;
import dev.lancecommit.coordinator.table.VersionNotFoundException;
import dev.lancecommit.format.pb.Transaction;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * RestoreTable: a Lance {@code Restore} transaction committed through the table's (or branch's) lane like any other,
 * so the restored content becomes a new latest version (the lane builds it from the restored version's manifest,
 * never moving a high-water mark back), with its event. Built as Lance's {@code Dataset::restore} builds it, on the
 * latest version; Lance's conflict rules let a Restore land over anything committed since but a Clone (a restore
 * means "make that content the latest", whatever came in between), so a commit that slips in between is kept in
 * the history and its content replaced like the rest, exactly as a stock Lance restore would do.
 */
public final class RestoreTable {
  private final CommitService commits;
  private final Function<String, StorageLocation> stores;

  public RestoreTable(CommitService commits, Function<String, StorageLocation> stores) {
    this.commits = Objects.requireNonNull(commits, "commits");
    this.stores = Objects.requireNonNull(stores, "stores");
  }

  /**
   * Checks the version exists (blocking) and submits the restore; the future completes as the commit does.
   *
   * @throws VersionNotFoundException when the table (branch) has no such version
   */
  public CompletableFuture<CommitResult> restore(TableRef table, long version, String actor) {
    TableVersions versions = TableOperations.of(stores.apply(table.branchRoot())).versions();
    if (!versions.contains(version)) {
      throw new VersionNotFoundException(table.displayName(), version);
    }
    Transaction restore = Transaction.newBuilder()
        .setReadVersion(versions.latest().getAsLong())
        .setUuid(UUID.randomUUID().toString())
        .setRestore(Transaction.Restore.newBuilder().setVersion(version))
        .build();
    return commits.commit(table, new CommitRequest(restore.toByteArray(), Optional.empty(), true, actor));
  }
}
