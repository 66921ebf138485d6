package dev.lancecommit.coordinator.retention;

import dev.lancecommit.coordinator.refs.BranchContents;
import dev.lancecommit.coordinator.refs.RefLocks;
import dev.lancecommit.coordinator.refs.RefStore;
import dev.lancecommit.coordinator.refs.TagContents;
import dev.lancecommit.coordinator.storage.ObjectInfo;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.storage.StoreException;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.coordinator.table.TableVersions;
import dev.lancecommit.coordinator.table.VersionFile;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.TransactionFiles;
import dev.lancecommit.format.deletion.DeletionVectors;
import dev.lancecommit.format.pb.BasePath;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.IndexMetadata;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The retention cleanup of one table, its main branch and every Lance branch, following the rules of Lance's
 * {@code cleanup_old_versions} ({@code rust/lance/src/dataset/cleanup.rs}) in two steps per dataset root:
 *
 * <ol>
 *   <li><b>Expire versions</b> ({@link #expireVersions}): the records (manifests) of versions the {@link
 *       RetentionPolicy} does not keep are deleted, oldest first. Kept: the latest, the newest {@code minVersions},
 *       those younger than {@code minAge} (by their manifest's write time), tagged ones (a tag on this branch) and
 *       those a branch was made from (as Lance keeps them).
 *       Runs under the table's {@link RefLocks} permit, so no tag is made on, and no branch is made from, a version
 *       being deleted.
 *   <li><b>Collect files</b> ({@link #collectFiles}): every data file ({@code data/*.lance}), deletion file
 *       ({@code _deletions/}), index ({@code _indices/{uuid}/}) and transaction file ({@code _transactions/*.txn}) of
 *       the root that no version present names is deleted, when it is older than {@code minAge}. "Names" covers the
 *       root's own versions and every version of every other root of the table whose files reach this root through
 *       a base path (a branch reads its parent's files in place, a branch of a branch its grandparent's), as Lance's
 *       {@code retain_branch_lineage_files} does. A manifest that cannot be read stops the step for that root: it
 *       never deletes on partial knowledge.
 * </ol>
 *
 * <p>Concurrent commits: the age of a file protects the files of commits in flight (their data, deletion, index and
 * transaction files are written before their manifest), as in Lance, where unreferenced files younger than the
 * policy are kept; a writer must therefore commit within {@code minAge} of writing its files. Files of a version
 * whose record was just deleted are only collected once {@code commitGrace} has passed since the deletion
 * ({@link RemovalLog}), so a Restore or branch Clone that read that version's manifest has landed and names them.
 * Files the latest version or any kept version name are never candidates. Other tables' shallow clones of this
 * table are not seen (as in Lance): clone from a tag to keep the source version.
 */
public final class TableCleanup {
  private static final Logger LOG = LoggerFactory.getLogger(TableCleanup.class);

  private final Function<String, StorageLocation> stores;
  private final RefLocks locks;
  private final RemovalLog removals;
  private final Clock clock;
  private final Duration commitGrace;

  public TableCleanup(Function<String, StorageLocation> stores, RefLocks locks, RemovalLog removals, Clock clock,
      Duration commitGrace) {
    this.stores = Objects.requireNonNull(stores, "stores");
    this.locks = Objects.requireNonNull(locks, "locks");
    this.removals = Objects.requireNonNull(removals, "removals");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.commitGrace = Objects.requireNonNull(commitGrace, "commitGrace");
  }

  /** What a run removed. {@code rootsDeferred}: roots whose files wait for the commit grace. */
  public record Result(long versionsRemoved, long dataFilesRemoved, long deletionFilesRemoved,
      long indexFilesRemoved, long transactionFilesRemoved, long bytesRemoved, int rootsDeferred) {
    public static final Result NONE = new Result(0, 0, 0, 0, 0, 0, 0);

    public Result plus(Result o) {
      return new Result(versionsRemoved + o.versionsRemoved, dataFilesRemoved + o.dataFilesRemoved,
          deletionFilesRemoved + o.deletionFilesRemoved, indexFilesRemoved + o.indexFilesRemoved,
          transactionFilesRemoved + o.transactionFilesRemoved, bytesRemoved + o.bytesRemoved,
          rootsDeferred + o.rootsDeferred);
    }

    public long filesRemoved() {
      return dataFilesRemoved + deletionFilesRemoved + indexFilesRemoved + transactionFilesRemoved;
    }
  }

  /** Both steps for the table's main branch and every branch. Blocking. */
  public Result clean(TableRef table, RetentionPolicy policy) {
    TableRef main = table.onBranch(null);
    Result total = Result.NONE;
    for (TableRef root : roots(main)) {
      total = total.plus(expireVersions(root, policy));
    }
    for (TableRef root : roots(main)) {
      if (removals.quietFor(root.streamKey(), commitGrace)) {
        total = total.plus(collectFiles(root, policy));
      } else {
        total = total.plus(new Result(0, 0, 0, 0, 0, 0, 1));
      }
    }
    if (total.versionsRemoved() > 0 || total.filesRemoved() > 0) {
      LOG.info("Retention cleanup of {}: {}", table.joinedId(), total);
    }
    return total;
  }

  /** Step 1 for one root: deletes the records of the versions {@code policy} does not keep. Blocking. */
  public Result expireVersions(TableRef root, RetentionPolicy policy) {
    return locks.with(root.tableUuid(), () -> {
      TableOperations ops = TableOperations.of(stores.apply(root.branchRoot()));
      List<VersionFile> versions = ops.versionFiles();
      if (versions.size() <= policy.minVersions()) {
        return Result.NONE;
      }
      // Tagged versions, and versions a branch was made from: Lance keeps both (the latter in
      // retain_branch_lineage_files, which keeps the parent version's manifest with the files the branch reads).
      Set<Long> tagged = new HashSet<>();
      RefStore refs = refs(root);
      for (TagContents tag : refs.tags().values()) {
        if (VersionRecords.onBranch(tag, root)) {
          tagged.add(tag.version());
        }
      }
      for (BranchContents branch : refs.branches().values()) {
        if (Objects.equals(branch.parentBranch().orElse(null), root.branch())) {
          tagged.add(branch.parentVersion());
        }
      }
      Instant youngest = clock.instant().minus(policy.minAge());
      List<Long> expired = new ArrayList<>();
      for (VersionFile version : versions.subList(0, versions.size() - policy.minVersions())) {
        if (!tagged.contains(version.version()) && version.lastModified().isBefore(youngest)) {
          expired.add(version.version());
        }
      }
      if (expired.isEmpty()) {
        return Result.NONE;
      }
      ManifestNaming.Scheme scheme = ops.versions().scheme().orElseThrow();
      for (long version : expired) {
        ops.deleteVersion(version, scheme);
      }
      removals.removed(root.streamKey());
      return new Result(expired.size(), 0, 0, 0, 0, 0, 0);
    });
  }

  /** Step 2 for one root: deletes its files no present version names and older than the policy's age. Blocking. */
  public Result collectFiles(TableRef root, RetentionPolicy policy) {
    StorageLocation location = stores.apply(root.branchRoot());
    List<TableRef> all = roots(root.onBranch(null));
    Referenced referenced = new Referenced();
    String target = normalize(root.branchRoot());
    for (TableRef other : all) {
      boolean own = other.streamKey().equals(root.streamKey());
      TableOperations ops = TableOperations.of(stores.apply(other.branchRoot()));
      TableVersions listing = ops.versions();
      if (listing.isEmpty()) {
        continue;
      }
      ManifestNaming.Scheme scheme = listing.scheme().orElseThrow();
      for (long version : listing.versions()) {
        Optional<ManifestFile> manifest = ops.readManifest(version, scheme);
        // Gone since the listing: deleted by version/delete or another cleanup; it names nothing any more.
        manifest.ifPresent(file -> referenced.add(file, own, target));
      }
    }

    Instant youngest = clock.instant().minus(policy.minAge());
    List<String> nested = nestedBranchPrefixes(root, all);
    long[] removed = new long[5]; // data, deletion, index, transaction, bytes
    String prefix = location.key("") + "/";
    for (String dir : List.of("data", DeletionVectors.DELETIONS_DIR, "_indices", TransactionFiles.TRANSACTIONS_DIR)) {
      for (ObjectInfo info : location.store().list(location.key(dir))) {
        String relative = info.key().substring(prefix.length());
        if (nested.stream().anyMatch(relative::startsWith) || !info.lastModified().isBefore(youngest)) {
          continue;
        }
        int kind = kindOf(relative);
        if (kind < 0 || referenced.names(relative)) {
          continue;
        }
        location.store().delete(info.key());
        removed[kind]++;
        removed[4] += info.size();
      }
    }
    return new Result(0, removed[0], removed[1], removed[2], removed[3], removed[4], 0);
  }

  /** 0 data file, 1 deletion file, 2 index file, 3 transaction file; -1 for anything cleanup leaves alone. */
  private static int kindOf(String relative) {
    String[] parts = relative.split("/");
    if (parts.length == 2 && parts[0].equals("data") && parts[1].endsWith(".lance")) {
      return 0;
    }
    if (parts.length == 2 && parts[0].equals(DeletionVectors.DELETIONS_DIR)
        && (parts[1].endsWith(".arrow") || parts[1].endsWith(".bin"))) {
      return 1;
    }
    if (parts.length >= 3 && parts[0].equals("_indices")) {
      return 2;
    }
    if (parts.length == 2 && parts[0].equals(TransactionFiles.TRANSACTIONS_DIR) && parts[1].endsWith(".txn")) {
      return 3;
    }
    return -1;
  }

  /** Paths, relative to {@code root}, of branches nested below its name ({@code b/x} lives in {@code tree/b/x/}). */
  private static List<String> nestedBranchPrefixes(TableRef root, List<TableRef> all) {
    List<String> nested = new ArrayList<>();
    if (root.isMain()) {
      return nested; // branches live under tree/, which the cleanup of main does not list
    }
    for (TableRef other : all) {
      if (!other.isMain() && other.branch().startsWith(root.branch() + "/")) {
        nested.add(other.branch().substring(root.branch().length() + 1) + "/");
      }
    }
    return nested;
  }

  /** The main branch and every branch with a ref file. */
  private List<TableRef> roots(TableRef main) {
    List<TableRef> roots = new ArrayList<>();
    roots.add(main);
    for (String branch : refs(main).branches().keySet()) {
      roots.add(main.onBranch(branch));
    }
    return roots;
  }

  private RefStore refs(TableRef table) {
    return new RefStore(stores.apply(table.location()), table.joinedId());
  }

  static String normalize(String uri) {
    String u = uri.startsWith("file://") ? uri.substring("file://".length()) : uri;
    while (u.endsWith("/")) {
      u = u.substring(0, u.length() - 1);
    }
    return u;
  }

  /** The files of one root that versions name, as keys relative to the root, and the index uuids. */
  private static final class Referenced {
    private final Set<String> keys = new HashSet<>();
    private final Set<String> indexUuids = new HashSet<>();

    boolean names(String relative) {
      if (relative.startsWith("_indices/")) {
        return indexUuids.contains(relative.split("/")[1]);
      }
      return keys.contains(relative);
    }

    /**
     * What {@code file} names in the root {@code target}: its own files when it is a version of that root
     * ({@code own}), and files reached through a base path that is {@code target}.
     */
    void add(ManifestFile file, boolean own, String target) {
      Map<Integer, BasePath> bases = new HashMap<>();
      for (BasePath base : file.manifest().getBasePathsList()) {
        bases.put(base.getId(), base);
      }
      for (DataFragment fragment : file.manifest().getFragmentsList()) {
        for (DataFile data : fragment.getFilesList()) {
          resolve(own, data.hasBaseId() ? bases.get(data.getBaseId()) : null, data.hasBaseId(), target, "data",
              data.getPath()).ifPresent(keys::add);
        }
        if (fragment.hasDeletionFile()) {
          String path = DeletionVectors.relativePath(fragment.getId(), fragment.getDeletionFile());
          boolean based = fragment.getDeletionFile().hasBaseId();
          resolve(own, based ? bases.get(fragment.getDeletionFile().getBaseId()) : null, based, target, null, path)
              .ifPresent(keys::add);
        }
        if (own && fragment.hasExternalRowIds()) {
          keys.add(fragment.getExternalRowIds().getPath());
        }
      }
      for (IndexMetadata index : file.indices()) {
        resolve(own, index.hasBaseId() ? bases.get(index.getBaseId()) : null, index.hasBaseId(), target, "_indices",
            uuid(index)).ifPresent(key -> indexUuids.add(key.substring(key.lastIndexOf('/') + 1)));
      }
      if (own && !file.manifest().getTransactionFile().isEmpty()) {
        keys.add(TransactionFiles.TRANSACTIONS_DIR + "/" + file.manifest().getTransactionFile());
      }
    }

    /**
     * The key, relative to {@code target}, of a file named {@code name} in directory {@code dir} of its dataset
     * root (null: {@code name} already includes its directory), or empty when it does not live in {@code target}.
     */
    private static Optional<String> resolve(boolean own, BasePath base, boolean based, String target, String dir,
        String name) {
      String inRoot = dir == null ? name : dir + "/" + name;
      if (!based) {
        return own ? Optional.of(inRoot) : Optional.empty();
      }
      if (base == null) {
        throw new StoreException("A manifest names a base path id that it does not define; not collecting files");
      }
      String basePath = normalize(base.getPath());
      if (base.getIsDatasetRoot()) {
        return basePath.equals(target) ? Optional.of(inRoot) : Optional.empty();
      }
      // A base path that is a directory of files itself: the file is {base}/{name}
      String absolute = basePath + "/" + name;
      return absolute.startsWith(target + "/") ? Optional.of(absolute.substring(target.length() + 1))
          : Optional.empty();
    }

    private static String uuid(IndexMetadata index) {
      ByteBuffer bytes = ByteBuffer.wrap(index.getUuid().getUuid().toByteArray());
      return new UUID(bytes.getLong(), bytes.getLong()).toString();
    }
  }
}
