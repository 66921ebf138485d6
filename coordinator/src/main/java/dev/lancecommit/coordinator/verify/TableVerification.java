package dev.lancecommit.coordinator.verify;

import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.coordinator.table.TableVersions;
import dev.lancecommit.format.ManifestFile;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * Finds damage that is already there: every file one version of a table names, checked against the store (the
 * service behind {@code POST /v1/table/{id}/verify}). Blocking.
 */
public final class TableVerification {
  private final Function<String, StorageLocation> stores;
  private final FileVerifier verifier;

  /**
   * @param stores resolves the table location and its base paths
   * @param helpers lends helper threads (never waited on)
   * @param parallelism store requests in flight at most
   */
  public TableVerification(Function<String, StorageLocation> stores, Executor helpers, int parallelism) {
    this.stores = stores;
    this.verifier = new FileVerifier(stores, helpers, parallelism);
  }

  /** What checking one version found. */
  public record Result(long version, FileVerifier.Report report) {}

  /**
   * Checks {@code version} (the latest when empty) of the table at {@code location}: presence and stated sizes, and
   * with {@code content} what data, deletion and sequence files say about themselves.
   *
   * @return empty when the table has no such version (or none at all)
   */
  public Optional<Result> verify(String location, OptionalLong version, boolean content) {
    StorageLocation table = stores.apply(location);
    TableOperations ops = TableOperations.of(table);
    TableVersions versions = ops.versions();
    OptionalLong wanted = version.isPresent() ? version : versions.latest();
    if (wanted.isEmpty() || !versions.contains(wanted.getAsLong())) {
      return Optional.empty();
    }
    long v = wanted.getAsLong();
    Optional<ManifestFile> manifest = ops.readManifest(v, versions.scheme().orElseThrow());
    return manifest.map(file -> new Result(v, verifier.checkVersion(table, file.tableState(), content)));
  }
}
