package dev.lancecommit.coordinator.commit;

import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.storage.StoreException;
import dev.lancecommit.coordinator.storage.StoreOutcomeUnknownException;
import dev.lancecommit.coordinator.storage.StoreUnavailableException;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.format.CorruptManifestException;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.InvalidTransactionException;
import java.util.Optional;
import java.util.function.Function;

/**
 * Reads the source version a Clone names, as Lance's commit of a new dataset does: the manifest of
 * {@code ref_version} in the dataset rooted at {@code ref_path}. Lance puts the source branch's own root in
 * {@code ref_path} (for a branch, {@code {root}/tree/{branch}}) and resolves a tag to its branch and version before
 * building the transaction, so {@code ref_name} only names the source in the new base path. Blocking.
 */
final class CloneSource {
  private CloneSource() {}

  /**
   * @param stores resolves a location to a store the coordinator is configured for
   * @throws InvalidTransactionException when the location is not one the coordinator can read, or the version is
   *     not there; a store that is down stays a {@link StoreUnavailableException} (retrying may help)
   */
  static TableState read(Function<String, StorageLocation> stores, Transaction.Clone clone) {
    String refPath = clone.getRefPath();
    long refVersion = clone.getRefVersion();
    if (refVersion < 1) {
      throw new InvalidTransactionException("Clone names source version " + Long.toUnsignedString(refVersion)
          + " of " + refPath + ": only committed main-line versions (1 and up) can be cloned");
    }
    TableOperations source = TableOperations.of(root(stores, clone));
    Optional<ManifestFile> manifest;
    try {
      manifest = source.readVersion(refVersion);
    } catch (StoreUnavailableException | StoreOutcomeUnknownException e) {
      throw e;
    } catch (StoreException | CorruptManifestException e) {
      throw new InvalidTransactionException("Cannot read version " + refVersion + " of the clone source "
          + refPath + ": " + e.getMessage(), e);
    }
    ManifestFile file = manifest.orElseThrow(() -> new InvalidTransactionException("The clone source " + refPath
        + " has no version " + refVersion + (clone.hasRefName() ? " (ref_name " + clone.getRefName() + ")" : "")
        + ": no manifest under " + source.location().uri(ManifestNaming.VERSIONS_DIR + "/")));
    if (file.manifest().getVersion() != refVersion) {
      throw new InvalidTransactionException("The manifest of version " + refVersion + " of the clone source "
          + refPath + " says it is version " + file.manifest().getVersion());
    }
    return file.tableState();
  }

  /**
   * The source table root {@code ref_path} names.
   *
   * @throws InvalidTransactionException when it is not a location the coordinator can read
   */
  static StorageLocation root(Function<String, StorageLocation> stores, Transaction.Clone clone) {
    try {
      return stores.apply(clone.getRefPath());
    } catch (IllegalArgumentException e) {
      throw new InvalidTransactionException("Cannot read the clone source ref_path '" + clone.getRefPath() + "': "
          + e.getMessage(), e);
    }
  }
}
