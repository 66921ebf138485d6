package dev.lancecommit.coordinator.verify;

import com.google.protobuf.ByteString;
import dev.lancecommit.coordinator.storage.ObjectInfo;
import dev.lancecommit.coordinator.storage.ObjectTail;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.storage.StoreException;
import dev.lancecommit.format.DataFileFooter;
import dev.lancecommit.format.RowIds;
import dev.lancecommit.format.deletion.DeletionVectors;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.ExternalFile;
import dev.lancecommit.format.RulesException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.roaringbitmap.RoaringBitmap;

/**
 * Checks one file a version names against the store. Blocking; store failures ({@link StoreException}) propagate,
 * because "the store did not answer" is not "the file is wrong".
 *
 * <p>What is checked, by {@link Depth}:
 * <ul>
 *   <li>{@link Depth#PRESENCE}: the file exists; its size equals the size the version states (data files'
 *       {@code file_size_bytes}, index files' {@code size_bytes}; 0 means not stated); an external sequence file is
 *       at least {@code offset + size} bytes long; an index directory of an index that lists no files holds some (or,
 *       for a deep clone, every file of the source's directory with the same size).</li>
 *   <li>{@link Depth#CONTENT}, in addition:
 *     <ul>
 *       <li>data files (format 2.0 and later): one ranged read of the tail (64 KiB, a second read only when the file
 *           descriptor lies before it), parsed as Lance's reader parses it ({@link DataFileFooter}): the magic, a
 *           known file version equal to the one the DataFile records, footer offsets that fit the file, the row count
 *           equal to the fragment's {@code physical_rows} (when stated), every column index below the file's column
 *           count, every field id with a column stored in the file's schema, and, when that schema is flat (no
 *           nested fields, so field i is column i), in the column the version gives it (never -1, which only a
 *           structural field may have);</li>
 *       <li>deletion files: read whole (they are small) and decoded as Lance decodes them; the number of rows equal to
 *           the fragment's {@code num_deleted_rows} (when stated) and every row offset below {@code physical_rows};</li>
 *       <li>external row id and row version sequences: the slice read and decoded; it covers exactly
 *           {@code physical_rows} rows.</li>
 *     </ul></li>
 * </ul>
 * Not checked, and why: legacy (0.1) data files get presence and size only (their footer and metadata are another
 * format, and no writer this coordinator serves produces them); the data pages themselves are not read (that is a
 * scan, as expensive as the write); the types of the file's columns are not compared with the table schema (the
 * schema rules at the commit point govern types, and the file's schema names the same field ids); for nested
 * schemas the column of each field is not derived (2.1 files give columns to leaves only, with packed structs and
 * blobs as exceptions), only bounded by the column count; index files are
 * not opened (their formats are per index type and Lance opens them lazily on query).
 */
final class FileInspector {

  /** How deep a check goes. */
  enum Depth {
    /** The file exists with the stated size. */
    PRESENCE,
    /** Presence, and what the file says about itself agrees with what the version says about it. */
    CONTENT
  }

  private FileInspector() {}

  static Optional<FileProblem> inspect(NamedFile file, Depth depth) {
    try {
      if (file instanceof NamedFile.Unreachable unreachable) {
        return problem(file, unreachable.reason());
      }
      if (file instanceof NamedFile.IndexDirectory dir) {
        return directory(dir);
      }
      if (depth == Depth.CONTENT) {
        if (file instanceof NamedFile.Data data && !legacy(data.file())) {
          return dataContent(data);
        }
        if (file instanceof NamedFile.Deletion deletion) {
          return deletionContent(deletion);
        }
        if (file instanceof NamedFile.Sequence sequence) {
          return sequenceContent(sequence);
        }
      }
      return presence(file, head(file));
    } catch (InvalidKey e) {
      return problem(file, "is not a path an object can have (" + e.getMessage() + ")");
    }
  }

  /**
   * Presence of {@code file} judged from a listing of its directory ({@code listed}: path below the file's root to
   * size), for many files in one directory: one LIST instead of one request per file.
   */
  static Optional<FileProblem> presenceListed(NamedFile file, Map<String, Long> listed) {
    Long size = listed.get(file.path());
    return presence(file, size == null ? Optional.empty() : Optional.of(size));
  }

  /** The sizes of every object below {@code dir} of {@code root}, keyed by path relative to {@code root}. */
  static Map<String, Long> list(StorageLocation root, String dir) {
    Map<String, Long> sizes = new HashMap<>();
    String prefix = root.rootKey().isEmpty() ? "" : root.rootKey() + "/";
    for (ObjectInfo info : root.store().list(key(root, dir))) {
      if (info.key().startsWith(prefix)) {
        sizes.put(info.key().substring(prefix.length()), info.size());
      }
    }
    return sizes;
  }

  private static Optional<FileProblem> presence(NamedFile file, Optional<Long> actual) {
    if (actual.isEmpty()) {
      return problem(file, "is not there");
    }
    long size = actual.get();
    Optional<Long> stated = file.statedSize();
    if (stated.isPresent() && stated.get() != size) {
      return problem(file, "has " + size + " bytes, but the version states " + Long.toUnsignedString(stated.get()));
    }
    if (file instanceof NamedFile.Sequence sequence) {
      ExternalFile ext = sequence.file();
      if (Long.compareUnsigned(ext.getOffset(), size) > 0
          || Long.compareUnsigned(ext.getSize(), size - ext.getOffset()) > 0) {
        return problem(file, "has " + size + " bytes, fewer than the slice at " + Long.toUnsignedString(ext.getOffset())
            + "+" + Long.toUnsignedString(ext.getSize()) + " the fragment names");
      }
    }
    return Optional.empty();
  }

  private static Optional<FileProblem> dataContent(NamedFile.Data ref) {
    StorageLocation root = ref.root();
    String key = key(root, ref.path());
    Optional<ObjectTail> read = root.store().getTail(key, DataFileFooter.TAIL_BYTES);
    if (read.isEmpty()) {
      return problem(ref, "is not there");
    }
    ObjectTail tail = read.get();
    Optional<FileProblem> size = presence(ref, Optional.of(tail.size()));
    if (size.isPresent()) {
      return size;
    }
    DataFile file = ref.file();
    DataFileFooter.Summary summary;
    try {
      summary = DataFileFooter.read(tail.bytes(), tail.size(), (offset, length) ->
          root.store().getRange(key, offset, length).orElse(new byte[0]));
    } catch (DataFileFooter.CorruptDataFileException e) {
      return problem(ref, "is not a Lance data file a reader can open: it " + e.getMessage());
    }
    String stated = version(file.getFileMajorVersion(), file.getFileMinorVersion());
    String actual = version(summary.majorVersion(), summary.minorVersion());
    if (!stated.equals(actual)) {
      return problem(ref, "is a Lance " + actual + " file, but the version says " + stated);
    }
    if (ref.physicalRows() != 0 && summary.numRows() != ref.physicalRows()) {
      return problem(ref, "holds " + summary.numRows() + " rows, but the fragment's physical_rows is "
          + Long.toUnsignedString(ref.physicalRows()));
    }
    for (int i = 0; i < file.getFieldsCount(); i++) {
      int field = file.getFields(i);
      int column = i < file.getColumnIndicesCount() ? file.getColumnIndices(i) : -1;
      if (field == -2) {
        continue; // tombstoned
      }
      if (column < 0) {
        if (summary.flat() && summary.fieldIds().contains(field)) {
          // only a structural (parent) field has no column of its own, and a flat schema has none
          return problem(ref, "stores field id " + field + " in column " + summary.fieldIds().indexOf(field)
              + ", but the version gives it no column (-1)");
        }
        continue;
      }
      if (column >= summary.numColumns()) {
        return problem(ref, "has " + summary.numColumns() + " columns, but the version gives field id " + field
            + " column index " + column);
      }
      if (!summary.fieldIds().contains(field)) {
        return problem(ref, "was written without field id " + field + " (its schema has field ids "
            + summary.fieldIds() + "), but the version says it stores it");
      }
      if (summary.flat() && summary.fieldIds().indexOf(field) != column) {
        return problem(ref, "stores field id " + field + " in column " + summary.fieldIds().indexOf(field)
            + ", but the version says column " + column);
      }
    }
    return Optional.empty();
  }

  private static Optional<FileProblem> deletionContent(NamedFile.Deletion ref) {
    Optional<byte[]> bytes = ref.root().store().get(key(ref.root(), ref.path()));
    if (bytes.isEmpty()) {
      return problem(ref, "is not there");
    }
    RoaringBitmap rows;
    try {
      rows = DeletionVectors.read(ref.file(), bytes.get());
    } catch (RulesException | IllegalArgumentException | IllegalStateException e) {
      return problem(ref, "cannot be read as a deletion vector: " + e.getMessage());
    }
    long stated = ref.file().getNumDeletedRows();
    if (stated != 0 && rows.getLongCardinality() != stated) {
      return problem(ref, "holds " + rows.getLongCardinality() + " deleted rows, but the fragment's num_deleted_rows "
          + "is " + Long.toUnsignedString(stated));
    }
    long physical = ref.fragment().getPhysicalRows();
    if (physical != 0 && !rows.isEmpty() && Integer.toUnsignedLong(rows.last()) >= physical) {
      return problem(ref, "deletes row offset " + Integer.toUnsignedString(rows.last()) + ", but the fragment has "
          + Long.toUnsignedString(physical) + " rows");
    }
    return Optional.empty();
  }

  private static Optional<FileProblem> sequenceContent(NamedFile.Sequence ref) {
    ExternalFile ext = ref.file();
    if (ext.getSize() < 0 || ext.getSize() > Integer.MAX_VALUE || ext.getOffset() < 0) {
      return problem(ref, "is named with a slice " + Long.toUnsignedString(ext.getOffset()) + "+"
          + Long.toUnsignedString(ext.getSize()) + " no sequence file has");
    }
    Optional<byte[]> slice = ref.root().store().getRange(key(ref.root(), ref.path()), ext.getOffset(),
        (int) ext.getSize());
    if (slice.isEmpty()) {
      return problem(ref, "is not there");
    }
    if (slice.get().length != ext.getSize()) {
      return problem(ref, "ends before the slice " + ext.getOffset() + "+" + ext.getSize() + " the fragment names");
    }
    long count;
    try {
      ByteString bytes = ByteString.copyFrom(slice.get());
      count = ref.kind() == NamedFile.SequenceKind.ROW_IDS
          ? RowIds.rowCount(RowIds.parse(bytes))
          : RowIds.rowCount(RowIds.parseVersions(bytes));
    } catch (RulesException | IllegalArgumentException e) {
      return problem(ref, "cannot be read as a " + ref.kind().label() + " sequence: " + e.getMessage());
    }
    if (ref.physicalRows() != 0 && count != ref.physicalRows()) {
      return problem(ref, "covers " + count + " rows, but the fragment's physical_rows is "
          + Long.toUnsignedString(ref.physicalRows()));
    }
    return Optional.empty();
  }

  private static Optional<FileProblem> directory(NamedFile.IndexDirectory dir) {
    Map<String, Long> present = list(dir.root(), dir.path());
    if (dir.sameAs().isEmpty()) {
      return present.isEmpty() ? problem(dir, "holds no files (the index lists none, so its directory must have "
          + "them)") : Optional.empty();
    }
    StorageLocation source = dir.sameAs().get();
    Map<String, Long> expected = list(source, "");
    for (Map.Entry<String, Long> file : new java.util.TreeMap<>(expected).entrySet()) {
      String path = dir.path() + "/" + file.getKey();
      Long size = present.get(path);
      String uri = dir.root().uri(path);
      if (size == null) {
        return Optional.of(new FileProblem(dir.what(), uri, "is not there"));
      }
      if (!size.equals(file.getValue())) {
        return Optional.of(new FileProblem(dir.what(), uri, "has " + size + " bytes, but the source's file has "
            + file.getValue()));
      }
    }
    return Optional.empty();
  }

  private static Optional<Long> head(NamedFile file) {
    return file.root().store().head(key(file.root(), file.path())).map(ObjectInfo::size);
  }

  private static boolean legacy(DataFile file) {
    return DataFileFooter.isLegacy(file.getFileMajorVersion(), file.getFileMinorVersion());
  }

  /** "2.0" for (0,3) and (2,0), as Lance reads them; otherwise "major.minor". */
  private static String version(int major, int minor) {
    return (major == 0 && minor == 3) ? "2.0" : major + "." + minor;
  }

  private static String key(StorageLocation root, String path) {
    try {
      return root.key(path);
    } catch (IllegalArgumentException e) {
      throw new InvalidKey(e.getMessage());
    }
  }

  private static Optional<FileProblem> problem(NamedFile file, String reason) {
    return Optional.of(new FileProblem(file.what(), file.uri(), reason));
  }

  /** A path that is no object key; reported as the file's problem. */
  private static final class InvalidKey extends RuntimeException {
    InvalidKey(String message) {
      super(message, null, false, false);
    }
  }
}
