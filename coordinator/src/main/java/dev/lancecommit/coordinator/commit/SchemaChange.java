package dev.lancecommit.coordinator.commit;

import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.storage.StoreException;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.coordinator.table.TableVersions;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * A metadata-only schema change built by the coordinator (UpdateTableSchemaMetadata, UpdateFieldMetadata,
 * AlterTableAlterColumns, AlterTableDropColumns: {@code dev.lancecommit.rules.evolution.SchemaEvolution}): the
 * transaction is built on the latest version's manifest and committed through the commit service like any
 * CommitTable call, with {@code rebase=false} (a commit that lands in between makes it a conflict the caller
 * retries: 409/14, or 409/19 when the conflict rules say the two cannot both apply). The schema contract applies
 * at the commit point as for every commit. The answer carries the manifest of the version that landed.
 */
public final class SchemaChange {
  private final CommitService commits;
  private final Function<String, StorageLocation> stores;

  /** @param stores resolves a table location to its store */
  public SchemaChange(CommitService commits, Function<String, StorageLocation> stores) {
    this.commits = Objects.requireNonNull(commits, "commits");
    this.stores = Objects.requireNonNull(stores, "stores");
  }

  /** The version the change made and its manifest. */
  public record Applied(CommitResult result, Manifest manifest) {}

  /**
   * Builds the change on the latest version and commits it. Blocking until submitted (reads the latest version);
   * the future completes once the version landed and was read back.
   *
   * @throws InvalidCommitRequestException when the table has no version yet
   */
  public CompletableFuture<Applied> apply(TableRef table, String actor, Function<Manifest, Transaction> change) {
    TableOperations ops = TableOperations.of(stores.apply(table.location()));
    TableVersions listing = ops.versions();
    long latest = listing.latest().orElseThrow(() -> new InvalidCommitRequestException(
        "Table " + table.joinedId() + " has no version yet", "Commit a first version before changing its schema"));
    Manifest manifest = ops.readManifest(latest, listing.scheme().orElseThrow()).map(ManifestFile::manifest)
        .orElseThrow(() -> new VersionConflictException("Version " + latest + " disappeared",
            "The table changed while the change was prepared; retry"));
    Transaction txn = change.apply(manifest);
    return commits.commit(table, new CommitRequest(txn.toByteArray(), Optional.empty(), false, actor))
        .thenApply(result -> new Applied(result, ops.readVersion(result.version()).map(ManifestFile::manifest)
            .orElseThrow(() -> new StoreException("Version " + result.version() + " of " + table.joinedId()
                + " was committed but cannot be read back"))));
  }
}
