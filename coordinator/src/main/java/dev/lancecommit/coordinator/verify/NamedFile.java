package dev.lancecommit.coordinator.verify;

import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.DeletionFile;
import dev.lancecommit.format.pb.ExternalFile;
import java.util.Optional;

/**
 * One file a table version names, where it is, and what the version says about it. Two references are the same
 * reference ({@link #identity()}) when they name the same file and say the same things about it: a file carried
 * from one version to the next with an identical reference was checked (or trusted) before and is not checked again.
 */
sealed interface NamedFile {

  /** Where the file is: the root it is relative to (the table or a base path) and its path below that root. */
  StorageLocation root();

  String path();

  /** What the version calls it, e.g. "data file data/x.lance of fragment 3". */
  String what();

  /** What makes two references the same: the file's URI and everything the version says about it. */
  Object identity();

  /** The file's full URI (spelled out even when the path is not a valid object key). */
  default String uri() {
    try {
      return root().uri(path());
    } catch (IllegalArgumentException e) {
      return root().uri() + "/" + path();
    }
  }

  /** The bytes the version states for the file, when it states them. */
  default Optional<Long> statedSize() {
    return Optional.empty();
  }

  /**
   * A column file of a fragment.
   *
   * @param physicalRows the fragment's row count (0 = not stated)
   */
  record Data(StorageLocation root, String path, long fragmentId, DataFile file, long physicalRows)
      implements NamedFile {
    @Override
    public String what() {
      return "data file " + file.getPath() + " of fragment " + Long.toUnsignedString(fragmentId);
    }

    @Override
    public Object identity() {
      return java.util.List.of(uri(), file, physicalRows);
    }

    @Override
    public Optional<Long> statedSize() {
      return file.getFileSizeBytes() == 0 ? Optional.empty() : Optional.of(file.getFileSizeBytes());
    }
  }

  /** The deletion vector of a fragment; the fragment says how many rows it deletes and how many it has. */
  record Deletion(StorageLocation root, String path, DataFragment fragment) implements NamedFile {
    DeletionFile file() {
      return fragment.getDeletionFile();
    }

    @Override
    public String what() {
      return "deletion file of fragment " + Long.toUnsignedString(fragment.getId());
    }

    @Override
    public Object identity() {
      return java.util.List.of(uri(), file(), fragment.getPhysicalRows());
    }
  }

  /** A row id or row version sequence a fragment keeps in a file (a slice of it: offset and size). */
  record Sequence(StorageLocation root, String path, long fragmentId, SequenceKind kind, ExternalFile file,
      long physicalRows) implements NamedFile {
    @Override
    public String what() {
      return kind.label() + " file " + file.getPath() + " of fragment " + Long.toUnsignedString(fragmentId);
    }

    @Override
    public Object identity() {
      return java.util.List.of(uri(), kind, file, physicalRows);
    }
  }

  /** The kinds of sequence a fragment may keep outside the manifest. */
  enum SequenceKind {
    ROW_IDS("row id"),
    CREATED_AT("created-at version"),
    LAST_UPDATED_AT("last-updated-at version");

    private final String label;

    SequenceKind(String label) {
      this.label = label;
    }

    String label() {
      return label;
    }
  }

  /** A file an index lists (IndexMetadata.files), with its size. */
  record IndexFile(StorageLocation root, String path, String indexName, String uuid, long size)
      implements NamedFile {
    @Override
    public String what() {
      int at = path.indexOf(uuid + "/");
      return "file " + (at < 0 ? path : path.substring(at + uuid.length() + 1)) + " of index '" + indexName + "'";
    }

    @Override
    public Object identity() {
      return java.util.List.of(uri(), size);
    }

    @Override
    public Optional<Long> statedSize() {
      return size > 0 ? Optional.of(size) : Optional.empty();
    }
  }

  /**
   * The directory of an index that does not list its files (Lance before IndexMetadata.files): it must hold some,
   * or, for a deep clone, the same files as the source's directory ({@code sameAs}).
   */
  record IndexDirectory(StorageLocation root, String path, String indexName, String uuid,
      Optional<StorageLocation> sameAs) implements NamedFile {
    @Override
    public String what() {
      return "directory of index '" + indexName + "'";
    }

    @Override
    public Object identity() {
      return java.util.List.of(uri(), "dir");
    }
  }

  /** A file the version names but that cannot even be looked for (an unknown base path, a broken uuid). */
  record Unreachable(StorageLocation root, String path, String what, String reason) implements NamedFile {
    @Override
    public Object identity() {
      return java.util.List.of(what, path, reason);
    }
  }
}
