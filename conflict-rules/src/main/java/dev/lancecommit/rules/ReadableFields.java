package dev.lancecommit.rules;

import com.google.protobuf.ByteString;
import dev.lancecommit.format.RowIds;
import dev.lancecommit.format.RulesException;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.DeletionFile;
import dev.lancecommit.format.pb.ExternalFile;
import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.IndexFile;
import dev.lancecommit.format.pb.IndexMetadata;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.roaringbitmap.RoaringBitmap;

/**
 * Field values that would make a version unreadable for stock Lance, refused at the commit point without I/O: the
 * fragments a transaction adds or changes and the indices it adds. (What needs the files themselves, such as a data
 * file's row count, is checked by the coordinator before it writes the version.)
 *
 * <p>Fragments: at least one data file storing a field (Lance refuses a fragment without data); an explicit id within
 * 32 bits (row addresses are {@code fragment_id << 32 | offset}); a {@code physical_rows} within 1..2^32 (0 means
 * unknown to Lance, which then counts by reading the files, but lance-core's Java API aborts on such a fragment; a
 * fragment that already lacked it may keep lacking it); a deletion file of a known type deleting no more
 * rows than the fragment has; inline row id and row version sequences that decode and cover no more rows than the
 * fragment has; external sequence slices with sane offsets. Data files: field ids are schema ids or -2 (a
 * tombstone), none twice in one file, none stored by two files of one fragment; a v2 file (2.0 and later) has exactly
 * one column index per field, each -1 (no column of its own) or a column no other field of the file uses; a stated
 * size that is not negative. New indices: a uuid (checked by the validator), fields of the schema, a fragment bitmap
 * that decodes and names only fragment ids the table has handed out (ids are never reused, so a higher one never
 * existed; an index may keep naming a fragment deleted since, as Lance's bitmaps do), built from a version the table
 * has, listed files with sane sizes.
 */
final class ReadableFields {
  static final long MAX_FRAGMENT_ID = ManifestDraft.MAX_FRAGMENT_ID;
  /** Row offsets are 32-bit: a fragment holds at most 2^32 rows. */
  static final long MAX_ROWS_PER_FRAGMENT = 1L << 32;
  private static final int TOMBSTONE = -2;

  private ReadableFields() {}

  /**
   * A fragment the transaction adds, or changes ({@code before} is the fragment with its id in the latest version,
   * null when there is none).
   */
  static void checkFragment(DataFragment fragment, DataFragment before, String operation) {
    String what = operation + " fragment " + Long.toUnsignedString(fragment.getId());
    if (Long.compareUnsigned(fragment.getId(), MAX_FRAGMENT_ID) > 0) {
      throw invalid(what + " has an id out of range: fragment ids are 32-bit");
    }
    if (fragment.getFilesList().stream().allMatch(ReadableFields::tombstoned)) {
      throw invalid(what + " has no data file that stores a field; stock Lance refuses to read such a fragment "
          + "(\"does not contain any data\")");
    }
    long rows = fragment.getPhysicalRows();
    if (rows == 0 && (before == null || before.getPhysicalRows() != 0)) {
      // 0 means "unknown": Lance's own commit fills it in by reading the files, and lance-core's Java API aborts the
      // JVM on a fragment without it (Dataset.getFragments, found by the fuzz suite). Writers always state it.
      throw invalid(what + " does not state physical_rows (0 means unknown); a fragment's row count is required");
    }
    if (Long.compareUnsigned(rows, MAX_ROWS_PER_FRAGMENT) > 0) {
      throw invalid(what + " has physical_rows " + Long.toUnsignedString(rows) + ": a fragment holds at most 2^32 "
          + "rows (row offsets are 32-bit)");
    }
    if (fragment.hasDeletionFile()) {
      checkDeletionFile(fragment.getDeletionFile(), rows, what);
    }
    if (fragment.hasInlineRowIds()) {
      long count = count(() -> RowIds.rowCount(RowIds.parse(fragment.getInlineRowIds())), what, "inline row ids");
      requireAtMost(count, rows, what, "inline row id sequence");
    }
    if (fragment.hasInlineCreatedAtVersions()) {
      requireAtMost(versionCount(fragment.getInlineCreatedAtVersions(), what), rows, what,
          "inline created-at version sequence");
    }
    if (fragment.hasInlineLastUpdatedAtVersions()) {
      requireAtMost(versionCount(fragment.getInlineLastUpdatedAtVersions(), what), rows, what,
          "inline last-updated-at version sequence");
    }
    for (ExternalFile external : new ExternalFile[] {
        fragment.hasExternalRowIds() ? fragment.getExternalRowIds() : null,
        fragment.hasExternalCreatedAtVersions() ? fragment.getExternalCreatedAtVersions() : null,
        fragment.hasExternalLastUpdatedAtVersions() ? fragment.getExternalLastUpdatedAtVersions() : null}) {
      if (external != null && (external.getOffset() < 0 || external.getSize() < 0)) {
        throw invalid(what + " names the sequence file " + external.getPath() + " at an offset or size out of range");
      }
    }
    checkDataFiles(fragment, before, what);
  }

  /**
   * Every top-level field the schema declares non-nullable must be stored by a data file of the fragment (the field
   * itself or one of its children): Lance reads a field no file stores as nulls, and a null in a non-nullable column
   * aborts the reader (found by the fuzz suite: a mutated {@code fields} list dropped {@code id}, and stock Lance's
   * scan panicked). A changed fragment that already lacked such a field is left as it was.
   */
  static void checkRequiredFieldsStored(DataFragment fragment, DataFragment before, List<Field> schema,
      String operation) {
    if (schema.isEmpty()) {
      return;
    }
    Map<Integer, List<Integer>> children = new HashMap<>();
    for (Field field : schema) {
      children.computeIfAbsent(field.getParentId(), k -> new ArrayList<>()).add(field.getId());
    }
    Set<Integer> stored = storedFields(fragment);
    Set<Integer> storedBefore = before == null ? null : storedFields(before);
    for (Field field : schema) {
      if (field.getParentId() != -1 || field.getNullable()) {
        continue;
      }
      Set<Integer> ids = withDescendants(field.getId(), children);
      if (disjoint(ids, stored) && (storedBefore == null || !disjoint(ids, storedBefore))) {
        throw invalid(operation + " fragment " + Long.toUnsignedString(fragment.getId()) + " stores no data for field '"
            + field.getName() + "' (id " + field.getId() + "), which the schema declares non-nullable; stock Lance "
            + "reads a field no data file stores as nulls and cannot read the fragment");
      }
    }
  }

  private static Set<Integer> storedFields(DataFragment fragment) {
    Set<Integer> stored = new HashSet<>();
    fragment.getFilesList().forEach(file -> stored.addAll(file.getFieldsList()));
    return stored;
  }

  private static Set<Integer> withDescendants(int id, Map<Integer, List<Integer>> children) {
    Set<Integer> ids = new HashSet<>();
    List<Integer> todo = new ArrayList<>(List.of(id));
    while (!todo.isEmpty()) {
      int next = todo.remove(todo.size() - 1);
      if (ids.add(next)) {
        todo.addAll(children.getOrDefault(next, List.of()));
      }
    }
    return ids;
  }

  private static boolean disjoint(Set<Integer> a, Set<Integer> b) {
    return a.stream().noneMatch(b::contains);
  }

  private static boolean tombstoned(DataFile file) {
    return file.getFieldsList().stream().allMatch(id -> id == TOMBSTONE);
  }

  private static void checkDeletionFile(DeletionFile deletion, long rows, String what) {
    if (deletion.getFileType() == DeletionFile.DeletionFileType.UNRECOGNIZED) {
      throw invalid(what + " has a deletion file of unknown type " + deletion.getFileTypeValue());
    }
    long deleted = deletion.getNumDeletedRows();
    if (rows != 0 && Long.compareUnsigned(deleted, rows) > 0) {
      throw invalid(what + " deletes " + Long.toUnsignedString(deleted) + " rows (num_deleted_rows) but has "
          + Long.toUnsignedString(rows) + " (physical_rows)");
    }
  }

  private static void checkDataFiles(DataFragment fragment, DataFragment before, String what) {
    Set<DataFile> kept = new HashSet<>(before == null ? List.of() : before.getFilesList());
    Map<Integer, DataFile> storedBy = new HashMap<>();
    for (DataFile file : fragment.getFilesList()) {
      boolean isNew = !kept.contains(file);
      if (isNew) {
        checkDataFile(file, what + " data file " + file.getPath());
      }
      for (int field : file.getFieldsList()) {
        if (field == TOMBSTONE) {
          continue;
        }
        DataFile other = storedBy.putIfAbsent(field, file);
        // Two files the table already had may share a field (Lance repairs such old fragments on read); a new one may not.
        if (other != null && (isNew || !kept.contains(other))) {
          throw invalid(what + " stores field id " + field + " in two data files, " + other.getPath() + " and "
              + file.getPath());
        }
      }
    }
  }

  private static void checkDataFile(DataFile file, String what) {
    if (file.getFileSizeBytes() < 0) {
      throw invalid(what + " states a size out of range (" + Long.toUnsignedString(file.getFileSizeBytes()) + ")");
    }
    Set<Integer> fields = new HashSet<>();
    for (int field : file.getFieldsList()) {
      if (field < 0 && field != TOMBSTONE) {
        throw invalid(what + " names field id " + field + ": the only negative field id a data file may name is -2 "
            + "(a tombstone)");
      }
      if (field != TOMBSTONE && !fields.add(field)) {
        throw invalid(what + " names field id " + field + " twice");
      }
    }
    boolean legacy = file.getFileMajorVersion() == 0 && file.getFileMinorVersion() <= 2;
    if (legacy) {
      return; // legacy files have no column indices: the reader maps fields through the file's own schema
    }
    if (file.getColumnIndicesCount() != file.getFieldsCount()) {
      throw invalid(what + " has " + file.getColumnIndicesCount() + " column indices for " + file.getFieldsCount()
          + " fields; a Lance v2 data file has one per field");
    }
    Set<Integer> columns = new HashSet<>();
    for (int i = 0; i < file.getColumnIndicesCount(); i++) {
      int column = file.getColumnIndices(i);
      if (column < -1) {
        throw invalid(what + " gives field id " + file.getFields(i) + " column index " + column
            + " (column indices are -1 or a column of the file)");
      }
      if (column >= 0 && file.getFields(i) != TOMBSTONE && !columns.add(column)) {
        throw invalid(what + " gives column index " + column + " to two fields");
      }
    }
  }

  /**
   * An index the transaction adds.
   *
   * @param schemaIds the field ids of the schema the index is added to
   * @param highWaterMark the highest fragment id the table has handed out, -1 when none
   * @param latestVersion the table's latest version
   */
  static void checkNewIndex(IndexMetadata index, Set<Integer> schemaIds, long highWaterMark, long latestVersion) {
    String what = "Index '" + index.getName() + "'";
    for (int field : index.getFieldsList()) {
      if (!schemaIds.contains(field)) {
        throw invalid(what + " covers field id " + field + ", which is not in the table schema");
      }
    }
    RoaringBitmap bitmap = FragmentBitmaps.decode(index.getFragmentBitmap());
    if (bitmap != null && !bitmap.isEmpty() && Integer.toUnsignedLong(bitmap.last()) > highWaterMark) {
      throw invalid(what + " covers fragment " + Integer.toUnsignedString(bitmap.last()) + ", which the table never "
          + "had (its fragment ids go up to " + highWaterMark + ")");
    }
    if (Long.compareUnsigned(index.getDatasetVersion(), latestVersion) > 0) {
      throw invalid(what + " was built from version " + Long.toUnsignedString(index.getDatasetVersion())
          + ", but the table's latest version is " + latestVersion);
    }
    for (IndexFile file : index.getFilesList()) {
      if (file.getSizeBytes() < 0) {
        throw invalid(what + " lists file " + file.getPath() + " with a size out of range");
      }
    }
  }

  private static long versionCount(ByteString inline, String what) {
    return count(() -> RowIds.rowCount(RowIds.parseVersions(inline)), what, "an inline version sequence");
  }

  private static long count(java.util.function.LongSupplier decode, String what, String sequence) {
    try {
      return decode.getAsLong();
    } catch (RulesException | IllegalArgumentException e) {
      throw new InvalidTransactionException(what + " has " + sequence + " that cannot be decoded: " + e.getMessage(),
          e);
    }
  }

  private static void requireAtMost(long count, long rows, String what, String sequence) {
    if (rows != 0 && Long.compareUnsigned(count, rows) > 0) {
      throw invalid(what + " has an " + sequence + " of " + count + " rows but " + Long.toUnsignedString(rows)
          + " physical rows");
    }
  }

  private static InvalidTransactionException invalid(String message) {
    return new InvalidTransactionException(message);
  }
}
