package dev.lancecommit.coordinator.verify;

import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.BasePath;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.InvalidTransactionException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The commit path's file check: called once the next version is built and before anything of it (its {@code .txn},
 * its manifest) is written, it refuses a version naming a file that is missing or is not what the version says it
 * is, with 400/13 naming the first such file and why. Nothing is written, so the same transaction commits once the
 * file is right.
 *
 * <p>Only what the commit adds is checked: a file the previous version named with the same reference (same path,
 * same stated size, rows and columns) was checked when it was added, or was there before the coordinator governed the
 * table, and is trusted. Turned off ({@code commit.verify-files=false}) a commit costs no store request for its
 * files, and a writer that names a file it never wrote makes every later version of the table unreadable; deep
 * clones are checked either way (a deep clone without its copies is certain to be unreadable).
 */
public final class CommitFileCheck {
  private final FileVerifier verifier;
  private final boolean enabled;

  public CommitFileCheck(FileVerifier verifier, boolean enabled) {
    this.verifier = verifier;
    this.enabled = enabled;
  }

  public boolean enabled() {
    return enabled;
  }

  /**
   * Before {@code next} is written on top of {@code previous} (null when it creates the table).
   *
   * @throws InvalidTransactionException naming the first file that is missing or wrong, and the reason
   */
  public void requireAdded(StorageLocation table, TableState previous, TableState next) {
    requireAdded(table, previous, next, FilesCheckedAhead.Found.NONE);
  }

  /**
   * {@link #requireAdded(StorageLocation, TableState, TableState)}, except the files {@code found} right while the
   * commits waited ({@link #ahead}).
   */
  public void requireAdded(StorageLocation table, TableState previous, TableState next,
      FilesCheckedAhead.Found found) {
    if (!enabled) {
      return;
    }
    List<FileProblem> problems = verifier.checkAdded(table, previous, next, found);
    if (!problems.isEmpty()) {
      throw new InvalidTransactionException("The transaction names a file that is not right: "
          + describe(problems) + ". Write the file (or fix the transaction) and commit the same transaction again; "
          + "nothing was written");
    }
  }

  /**
   * Starts checking the files {@code transaction} brings (decoded on {@code executor}) while its commit waits in the
   * lane; {@link FilesCheckedAhead#NONE} when file checks are off.
   */
  public FilesCheckedAhead ahead(StorageLocation table, Supplier<Transaction> transaction, Executor executor) {
    return enabled ? FilesCheckedAhead.start(verifier, table, transaction, executor) : FilesCheckedAhead.NONE;
  }

  /**
   * Before a clone's first version is written. A shallow clone's files are the source's, reached through a base path
   * (checked when file checks are on); a deep clone's writer copied them into the table, as Lance's
   * {@code deep_clone} does, and an index that lists no files must have every file of the source's index directory.
   *
   * @param source the source version, whose index directories say which index files a deep clone expects
   * @param sourceRoot the source table root ({@code ref_path})
   * @param stores resolves the source's base paths
   */
  public void requireClone(StorageLocation table, TableState clone, boolean deep, TableState source,
      StorageLocation sourceRoot, Function<String, StorageLocation> stores) {
    if (!deep && !enabled) {
      return;
    }
    Function<IndexMetadata, Optional<StorageLocation>> sourceDirs = deep
        ? sourceIndexDirectories(source, sourceRoot, stores)
        : index -> Optional.empty();
    List<FileProblem> problems = verifier.checkClone(table, clone, sourceDirs);
    if (problems.isEmpty()) {
      return;
    }
    if (deep) {
      throw new InvalidTransactionException("Deep clone: " + describe(problems) + ". A deep clone's writer copies "
          + "every data, deletion and index file of the source version into the table before it commits the Clone "
          + "(Lance's deep_clone does); copy them, or commit a shallow clone");
    }
    throw new InvalidTransactionException("Shallow clone: the source version names a file that is not right: "
        + describe(problems) + "; clone a version whose files are all there");
  }

  private static String describe(List<FileProblem> problems) {
    String first = problems.get(0).message();
    return problems.size() == 1 ? first : first + " (and " + (problems.size() - 1) + " more)";
  }

  /** Where the source keeps each index's files: under its root, or under the base path the index names. */
  private static Function<IndexMetadata, Optional<StorageLocation>> sourceIndexDirectories(TableState source,
      StorageLocation sourceRoot, Function<String, StorageLocation> stores) {
    Map<String, IndexMetadata> byUuid = new HashMap<>();
    source.indices().forEach(index -> uuid(index).ifPresent(uuid -> byUuid.put(uuid, index)));
    return cloned -> uuid(cloned).map(uuid -> {
      IndexMetadata index = byUuid.get(uuid);
      if (index == null || !index.hasBaseId()) {
        return sourceRoot.resolve(VersionFiles.INDICES + "/" + uuid);
      }
      BasePath base = source.manifest().getBasePathsList().stream()
          .filter(b -> b.getId() == index.getBaseId())
          .findFirst()
          .orElseThrow(() -> new InvalidTransactionException("Index " + uuid + " of the clone source names base "
              + Integer.toUnsignedString(index.getBaseId()) + ", which the source manifest does not have"));
      StorageLocation root;
      try {
        root = stores.apply(base.getPath());
      } catch (IllegalArgumentException e) {
        throw new InvalidTransactionException("Cannot read the base path '" + base.getPath() + "' of index " + uuid
            + " of the clone source: " + e.getMessage(), e);
      }
      return root.resolve(base.getIsDatasetRoot() ? VersionFiles.INDICES + "/" + uuid : uuid);
    });
  }

  private static Optional<String> uuid(IndexMetadata index) {
    ByteBuffer bytes = index.getUuid().getUuid().asReadOnlyByteBuffer();
    return bytes.remaining() == 16 ? Optional.of(new UUID(bytes.getLong(), bytes.getLong()).toString())
        : Optional.empty();
  }
}
