package dev.lancecommit.coordinator.retention;

import dev.lancecommit.coordinator.refs.BranchNotFoundException;
import dev.lancecommit.coordinator.refs.RefInUseException;
import dev.lancecommit.coordinator.refs.RefLocks;
import dev.lancecommit.coordinator.refs.RefStore;
import dev.lancecommit.coordinator.refs.TagContents;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.coordinator.table.TableVersions;
import dev.lancecommit.format.ManifestNaming;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * BatchDeleteTableVersions: deletes the records (manifests) of versions in ranges, as the spec says "not the actual
 * table data" — the files only the deleted versions named are the retention cleanup's to remove, once no version
 * names them ({@link TableCleanup}). Never the latest version, never a tagged one: a request naming either is refused
 * whole (400/13 naming them) and deletes nothing. Versions a range names that do not exist are skipped; the answer
 * counts what was deleted. Stock Lance and the version listing stop showing a deleted version at once.
 */
public final class VersionRecords {
  private final Function<String, StorageLocation> stores;
  private final RefLocks locks;
  private final RemovalLog removals;

  public VersionRecords(Function<String, StorageLocation> stores, RefLocks locks, RemovalLog removals) {
    this.stores = Objects.requireNonNull(stores, "stores");
    this.locks = Objects.requireNonNull(locks, "locks");
    this.removals = Objects.requireNonNull(removals, "removals");
  }

  /**
   * Deletes the version records of {@code table} (its branch) in {@code ranges}. Blocking.
   *
   * @return how many version records were deleted
   * @throws RefInUseException when a range covers the latest version or a tagged one
   * @throws BranchNotFoundException when the branch does not exist
   */
  public long delete(TableRef table, List<VersionRange> ranges) {
    return locks.with(table.tableUuid(), () -> {
      RefStore refs = new RefStore(stores.apply(table.location()), table.joinedId());
      if (!table.isMain() && refs.branch(table.branch()).isEmpty()) {
        throw new BranchNotFoundException(table.joinedId(), table.branch());
      }
      TableOperations ops = TableOperations.of(stores.apply(table.branchRoot()));
      TableVersions listing = ops.versions();
      if (listing.isEmpty()) {
        return 0L;
      }
      long latest = listing.latest().getAsLong();
      List<Long> doomed = listing.versions().stream()
          .filter(v -> ranges.stream().anyMatch(r -> r.contains(v))).toList();
      if (doomed.contains(latest)) {
        throw new RefInUseException("Version " + latest + " is the latest version of " + table.displayName()
            + " and cannot be deleted; ranges " + ranges + " include it (end_version -1 runs through the latest)");
      }
      Map<String, Long> tagged = refs.tags().entrySet().stream()
          .filter(e -> onBranch(e.getValue(), table))
          .filter(e -> doomed.contains(e.getValue().version()))
          .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().version()));
      if (!tagged.isEmpty()) {
        throw new RefInUseException("Versions " + tagged.values().stream().sorted().distinct().toList() + " of "
            + table.displayName() + " are tagged (" + tagged.keySet().stream().sorted().toList()
            + "); delete or move the tags first");
      }
      ManifestNaming.Scheme scheme = listing.scheme().orElseThrow();
      for (long version : doomed) {
        ops.deleteVersion(version, scheme);
      }
      if (!doomed.isEmpty()) {
        removals.removed(table.streamKey());
      }
      return (long) doomed.size();
    });
  }

  static boolean onBranch(TagContents tag, TableRef table) {
    return tag.branch().map(b -> b.equals(table.branch())).orElse(table.isMain());
  }
}
