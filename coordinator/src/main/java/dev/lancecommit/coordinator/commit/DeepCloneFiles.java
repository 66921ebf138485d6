package dev.lancecommit.coordinator.commit;

import dev.lancecommit.coordinator.storage.ObjectInfo;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.deletion.DeletionVectors;
import dev.lancecommit.format.pb.BasePath;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.ExternalFile;
import dev.lancecommit.format.pb.IndexFile;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.rules.InvalidTransactionException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;

/**
 * Checks, before a deep clone's first manifest is written, that every file it names is in the new table.
 *
 * <p>Lance's {@code deep_clone} copies the data, deletion and index files of the source version into the new table
 * (same paths relative to the table root, files the source reached through its own base paths included) and only
 * then commits the Clone, whose commit builds the manifest and copies nothing. A manifest naming a file that is not
 * there would publish a table nobody can read, so the commit is refused instead, naming the first file missing.
 * Index directories are checked file by file: the files the index lists, or else the files the source's index
 * directory holds (an index without files on disk, such as a system index, expects none). Blocking.
 */
final class DeepCloneFiles {
  private static final String DATA = "data";
  private static final String INDICES = "_indices";

  private DeepCloneFiles() {}

  /** A file the clone must hold; {@code size} is -1 when the manifest does not record it. */
  private record Expected(String relative, long size) {}

  /**
   * @param clone the clone's first manifest (no base paths: everything is under {@code target})
   * @param source the source version, whose index directories say which index files to expect
   * @param sourceRoot the source table root ({@code ref_path})
   * @throws InvalidTransactionException naming the first file that is missing or has another size
   */
  static void requirePresent(TableState clone, StorageLocation target, TableState source, StorageLocation sourceRoot,
      Function<String, StorageLocation> stores) {
    List<Expected> expected = new ArrayList<>();
    for (DataFragment fragment : clone.manifest().getFragmentsList()) {
      for (DataFile file : fragment.getFilesList()) {
        expected.add(new Expected(DATA + "/" + file.getPath(), file.getFileSizeBytes() > 0 ? file.getFileSizeBytes()
            : -1));
      }
      if (fragment.hasDeletionFile()) {
        expected.add(new Expected(DeletionVectors.relativePath(fragment.getId(), fragment.getDeletionFile()), -1));
      }
      externalFiles(fragment).forEach(f -> expected.add(new Expected(f.getPath(), -1)));
    }
    Map<String, IndexMetadata> sourceIndices = new HashMap<>();
    source.indices().forEach(index -> sourceIndices.put(uuid(index), index));
    for (IndexMetadata index : clone.indices()) {
      String dir = INDICES + "/" + uuid(index);
      if (index.getFilesCount() > 0) {
        for (IndexFile file : index.getFilesList()) {
          expected.add(new Expected(dir + "/" + file.getPath(), file.getSizeBytes() > 0 ? file.getSizeBytes() : -1));
        }
      } else {
        StorageLocation sourceDir = sourceIndexDir(sourceIndices.get(uuid(index)), source, sourceRoot, stores);
        for (ObjectInfo file : sourceDir.store().list(sourceDir.rootKey())) {
          expected.add(new Expected(dir + "/" + relativeTo(sourceDir, file.key()), file.size()));
        }
      }
    }

    Map<String, Long> present = new HashMap<>();
    for (String dir : List.of(DATA, DeletionVectors.DELETIONS_DIR, INDICES)) {
      for (ObjectInfo file : target.store().list(target.key(dir))) {
        present.put(relativeTo(target, file.key()), file.size());
      }
    }
    for (Expected file : expected) {
      Long size = present.get(file.relative());
      if (size == null) {
        size = head(target, file.relative()).map(ObjectInfo::size).orElse(null);
      }
      if (size == null) {
        throw new InvalidTransactionException("Deep clone: " + target.uri(file.relative()) + " is not in the "
            + "table. A deep clone's writer copies every data, deletion and index file of the source version into "
            + "the table before it commits the Clone (Lance's deep_clone does); copy them, or commit a shallow clone");
      }
      if (file.size() >= 0 && size != file.size()) {
        throw new InvalidTransactionException("Deep clone: " + target.uri(file.relative()) + " has " + size
            + " bytes, but the source version's file has " + file.size() + "; copy it again");
      }
    }
  }

  private static List<ExternalFile> externalFiles(DataFragment fragment) {
    List<ExternalFile> files = new ArrayList<>();
    if (fragment.hasExternalRowIds()) {
      files.add(fragment.getExternalRowIds());
    }
    if (fragment.hasExternalLastUpdatedAtVersions()) {
      files.add(fragment.getExternalLastUpdatedAtVersions());
    }
    if (fragment.hasExternalCreatedAtVersions()) {
      files.add(fragment.getExternalCreatedAtVersions());
    }
    return files;
  }

  /** Where the source keeps the index's files: under its root, or under the base path the index names. */
  private static StorageLocation sourceIndexDir(IndexMetadata index, TableState source, StorageLocation sourceRoot,
      Function<String, StorageLocation> stores) {
    String uuid = uuid(index);
    if (!index.hasBaseId()) {
      return sourceRoot.resolve(INDICES + "/" + uuid);
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
    return root.resolve(base.getIsDatasetRoot() ? INDICES + "/" + uuid : uuid);
  }

  private static Optional<ObjectInfo> head(StorageLocation target, String relative) {
    try {
      return target.store().head(target.key(relative));
    } catch (IllegalArgumentException e) {
      throw new InvalidTransactionException("Deep clone: the source names a file '" + relative
          + "' that cannot be a path inside the table: " + e.getMessage(), e);
    }
  }

  private static String relativeTo(StorageLocation location, String key) {
    String prefix = location.rootKey().isEmpty() ? "" : location.rootKey() + "/";
    return key.startsWith(prefix) ? key.substring(prefix.length()) : key;
  }

  private static String uuid(IndexMetadata index) {
    ByteBuffer bytes = index.getUuid().getUuid().asReadOnlyByteBuffer();
    if (bytes.remaining() != 16) {
      throw new InvalidTransactionException("Index '" + index.getName() + "' of the clone source has a "
          + bytes.remaining() + "-byte uuid");
    }
    return new UUID(bytes.getLong(), bytes.getLong()).toString();
  }
}
