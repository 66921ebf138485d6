package dev.lancecommit.format.deletion;

import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.DeletionFile;
import dev.lancecommit.format.pb.DeletionFile.DeletionFileType;
import java.util.Objects;
import org.roaringbitmap.RoaringBitmap;

/**
 * Deletion files, the tombstones of one fragment: the set of deleted row offsets (0-based positions within the
 * fragment, unsigned 32-bit), stored as {@code _deletions/{fragment_id}-{read_version}-{id}.arrow} (an Arrow IPC
 * file with one non-null UInt32 column {@code row_id}, ZSTD-compressed buffers) or {@code .bin} (a portable 32-bit
 * Roaring bitmap), as Lance's {@code lance-table/src/io/deletion.rs} reads and writes them. Pure: bytes in, bytes
 * out; the caller reads and writes the files.
 *
 * <p>A deletion vector is a {@link RoaringBitmap} whose values are read as unsigned offsets.
 */
public final class DeletionVectors {
  /** The directory under the table root (or under a dataset-root base path) holding deletion files. */
  public static final String DELETIONS_DIR = "_deletions";

  /**
   * Lance's {@code BITMAP_THRESDHOLD} ({@code lance-core/src/utils/deletion.rs}): a deletion vector built from
   * nothing is an array ({@code .arrow}) below this many rows and a bitmap ({@code .bin}) from it on; an array that
   * grows past it becomes a bitmap.
   */
  public static final int BITMAP_THRESHOLD = 5_000;

  private DeletionVectors() {}

  /**
   * Round-trips a small {@code .arrow} file, for a process to call at startup: Arrow Java needs the JVM flag
   * {@code --add-opens=java.base/java.nio=ALL-UNNAMED}, and without it every {@code .arrow} read or write fails.
   *
   * @throws IllegalStateException naming the missing flag when Arrow cannot work in this JVM
   */
  public static void checkArrowAvailable() {
    RoaringBitmap probe = RoaringBitmap.bitmapOf(0, 7, 0xFFFF_FFFF);
    if (!probe.equals(readArrow(writeArrow(probe)))) {
      throw new IllegalStateException("An Arrow deletion file did not round-trip in this JVM");
    }
  }

  /**
   * Decodes a deletion file according to {@code meta.file_type}.
   *
   * @throws CorruptDeletionFileException when the bytes are not a deletion file of that type as Lance accepts it
   */
  public static RoaringBitmap read(DeletionFile meta, byte[] bytes) {
    Objects.requireNonNull(meta, "meta");
    return read(meta, bytes, describe(meta));
  }

  /**
   * Decodes the deletion file of {@code fragment} (its {@code deletion_file} says the type); messages name the
   * file's path.
   *
   * @throws IllegalArgumentException when the fragment has no deletion file
   * @throws CorruptDeletionFileException when the bytes are not a deletion file of that type as Lance accepts it
   */
  public static RoaringBitmap read(DataFragment fragment, byte[] bytes) {
    Objects.requireNonNull(fragment, "fragment");
    if (!fragment.hasDeletionFile()) {
      throw new IllegalArgumentException("Fragment " + fragment.getId() + " has no deletion file");
    }
    DeletionFile meta = fragment.getDeletionFile();
    return read(meta, bytes, "deletion file " + relativePath(fragment.getId(), meta));
  }

  private static RoaringBitmap read(DeletionFile meta, byte[] bytes, String what) {
    Objects.requireNonNull(bytes, "bytes");
    return switch (meta.getFileType()) {
      case ARROW_ARRAY -> ArrowDeletionFiles.read(bytes, what);
      case BITMAP -> BitmapDeletionFiles.read(bytes, what);
      case UNRECOGNIZED -> throw new CorruptDeletionFileException(
          what + " has unknown file type " + meta.getFileTypeValue());
    };
  }

  /** Decodes an {@code .arrow} deletion file. */
  public static RoaringBitmap readArrow(byte[] bytes) {
    return ArrowDeletionFiles.read(Objects.requireNonNull(bytes, "bytes"), "Arrow deletion file");
  }

  /** Decodes a {@code .bin} deletion file. */
  public static RoaringBitmap readBitmap(byte[] bytes) {
    return BitmapDeletionFiles.read(Objects.requireNonNull(bytes, "bytes"), "bitmap deletion file");
  }

  /** Encodes {@code rows} as an {@code .arrow} deletion file (offsets ascending, ZSTD-compressed buffers). */
  public static byte[] writeArrow(RoaringBitmap rows) {
    return ArrowDeletionFiles.write(Objects.requireNonNull(rows, "rows"));
  }

  /** Encodes {@code rows} as a {@code .bin} deletion file (portable Roaring, no run containers). */
  public static byte[] writeBitmap(RoaringBitmap rows) {
    return BitmapDeletionFiles.write(Objects.requireNonNull(rows, "rows"));
  }

  /** Encodes {@code rows} in the given format. */
  public static byte[] write(DeletionFileType type, RoaringBitmap rows) {
    Objects.requireNonNull(type, "type");
    return switch (type) {
      case ARROW_ARRAY -> writeArrow(rows);
      case BITMAP -> writeBitmap(rows);
      case UNRECOGNIZED -> throw new IllegalArgumentException("Unknown deletion file type");
    };
  }

  /**
   * A new deletion file for {@code fragmentId} holding {@code rows}: metadata ({@code num_deleted_rows} = the
   * cardinality, no base id) and bytes.
   *
   * @param readVersion the table version the deletions were computed against (part of the file name)
   * @param id the random id that makes the file name unique
   * @throws IllegalArgumentException when {@code rows} is empty: a fragment without deletions carries no deletion
   *     file (Lance writes none)
   */
  public static NewDeletionFile encode(
      long fragmentId, long readVersion, long id, DeletionFileType type, RoaringBitmap rows) {
    Objects.requireNonNull(rows, "rows");
    if (rows.isEmpty()) {
      throw new IllegalArgumentException("Fragment " + Long.toUnsignedString(fragmentId)
          + " has no deleted rows, so it gets no deletion file");
    }
    DeletionFile meta = DeletionFile.newBuilder()
        .setFileType(type)
        .setReadVersion(readVersion)
        .setId(id)
        .setNumDeletedRows(rows.getLongCardinality())
        .build();
    return new NewDeletionFile(fragmentId, meta, write(type, rows));
  }

  /**
   * {@code _deletions/{fragment_id}-{read_version}-{id}.{arrow|bin}}, numbers as unsigned decimals (Lance's ids are
   * random u64). Relative to the table root, or, when {@code meta.base_id} is set, to that base path (its
   * dataset root).
   */
  public static String relativePath(long fragmentId, DeletionFile meta) {
    Objects.requireNonNull(meta, "meta");
    return DELETIONS_DIR + "/" + Long.toUnsignedString(fragmentId) + "-"
        + Long.toUnsignedString(meta.getReadVersion()) + "-" + Long.toUnsignedString(meta.getId()) + "."
        + suffix(meta.getFileType());
  }

  /** {@code arrow} for ARROW_ARRAY, {@code bin} for BITMAP. */
  public static String suffix(DeletionFileType type) {
    return switch (type) {
      case ARROW_ARRAY -> "arrow";
      case BITMAP -> "bin";
      case UNRECOGNIZED -> throw new IllegalArgumentException("Unknown deletion file type");
    };
  }

  /**
   * The format Lance gives a deletion vector it builds from nothing ({@code DeletionVector::extend} on
   * {@code NoDeletions} with an exactly sized iterator, as its delete and update paths do): ARROW_ARRAY below
   * {@link #BITMAP_THRESHOLD} rows, BITMAP from it on.
   */
  public static DeletionFileType typeForNewDeletions(long deletedRows) {
    if (deletedRows < 0) {
      throw new IllegalArgumentException("deletedRows must not be negative, got " + deletedRows);
    }
    return deletedRows < BITMAP_THRESHOLD ? DeletionFileType.ARROW_ARRAY : DeletionFileType.BITMAP;
  }

  /**
   * The format Lance gives a fragment's deletion vector after adding deletions ({@code Fragment::extend_deletions}):
   * none before -> {@link #typeForNewDeletions}; an array stays an array up to {@link #BITMAP_THRESHOLD} rows
   * (inclusive) and becomes a bitmap beyond; a bitmap stays a bitmap. Note that Lance's conflict rebase
   * ({@code TransactionRebase::finish}) does not follow this rule: it always writes a bitmap.
   *
   * @param before the fragment as it was, with or without a deletion file
   * @param deletedRowsAfter the number of deleted rows after the addition
   */
  public static DeletionFileType typeAfterExtending(DataFragment before, long deletedRowsAfter) {
    Objects.requireNonNull(before, "before");
    if (!before.hasDeletionFile()) {
      return typeForNewDeletions(deletedRowsAfter);
    }
    return switch (before.getDeletionFile().getFileType()) {
      case ARROW_ARRAY -> deletedRowsAfter > BITMAP_THRESHOLD ? DeletionFileType.BITMAP : DeletionFileType.ARROW_ARRAY;
      case BITMAP -> DeletionFileType.BITMAP;
      case UNRECOGNIZED -> throw new IllegalArgumentException(
          "Fragment " + before.getId() + " has a deletion file of unknown type");
    };
  }

  private static String describe(DeletionFile meta) {
    return "deletion file (" + meta.getFileType() + ", read_version " + Long.toUnsignedString(meta.getReadVersion())
        + ", id " + Long.toUnsignedString(meta.getId()) + ")";
  }
}
