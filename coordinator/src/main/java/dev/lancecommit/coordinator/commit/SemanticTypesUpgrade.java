package dev.lancecommit.coordinator.commit;

import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.coordinator.table.TableVersions;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.SemanticTypes;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The upgrade commit of the semantic-type contract, built by the coordinator: it reads the latest version's schema,
 * writes every legacy alias as its canonical type with the output encoding that keeps its read type
 * ({@link SemanticTypes#upgradeTransaction}) and commits that Project through the commit service like any
 * CommitTable call, with {@code rebase=false}: a commit that lands in between makes it a retryable conflict.
 */
public final class SemanticTypesUpgrade {
  private final CommitService commits;
  private final Function<String, StorageLocation> stores;

  /**
   * @param stores resolves a table location to its store
   */
  public SemanticTypesUpgrade(CommitService commits, Function<String, StorageLocation> stores) {
    this.commits = Objects.requireNonNull(commits, "commits");
    this.stores = Objects.requireNonNull(stores, "stores");
  }

  /**
   * Builds the upgrade on the latest version and submits it. Blocking (reads the latest version); the future
   * completes with the commit's answer.
   *
   * @throws InvalidCommitRequestException when the table has no version yet
   * @throws VersionConflictException when the latest version vanished while it was read
   */
  public CompletableFuture<CommitResult> upgrade(TableRef table, String actor) {
    TableOperations ops = TableOperations.of(stores.apply(table.location()));
    TableVersions listing = ops.versions();
    long latest = listing.latest().orElseThrow(() -> new InvalidCommitRequestException(
        "Table " + String.join(".", table.id()) + " has no version yet",
        "Create the table first; a new table can follow the contract from birth with an Overwrite carrying "
            + SemanticTypes.ENABLE_PROPERTY + "=" + SemanticTypes.ENABLE_VALUE));
    ManifestFile manifest = ops.readManifest(latest, listing.scheme().orElseThrow()).orElseThrow(() ->
        new VersionConflictException("Version " + latest + " disappeared",
            "The table changed while the upgrade was prepared; retry"));
    Transaction upgrade = SemanticTypes.upgradeTransaction(manifest.manifest(), UUID.randomUUID().toString());
    return commits.commit(table, new CommitRequest(upgrade.toByteArray(), Optional.empty(), false, actor).alone());
  }
}
