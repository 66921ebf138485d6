package dev.lancecommit.coordinator.verify;

import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.format.FragmentNamesakes;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.deletion.DeletionVectors;
import dev.lancecommit.format.pb.BasePath;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Manifest;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

/**
 * Every file a table version names, resolved to where it is (lance-format.md 1.3): data files under
 * {@code data/}, deletion files under {@code _deletions/}, index files under {@code _indices/{uuid}/}, each relative
 * to the table root or, with a {@code base_id}, to that base path ({@code is_dataset_root}: with the same
 * sub-directories; else directly below it); external row id and row version sequences relative to the table root.
 *
 * <p>Not files, so not listed: inline row id and version sequences (they are in the manifest), system indices
 * (names starting {@code __lance_}: the MemWAL index and an inline fragment-reuse index keep their content in the
 * manifest).
 */
final class VersionFiles {
  static final String DATA = "data";
  static final String INDICES = "_indices";
  private static final String SYSTEM_INDEX_PREFIX = "__lance_";

  private VersionFiles() {}

  /** The files {@code state} names; base paths are reached through {@code stores}. */
  static List<NamedFile> of(TableState state, StorageLocation table, Function<String, StorageLocation> stores) {
    return of(state, table, stores, index -> Optional.empty());
  }

  /**
   * The files {@code state} names; an index that lists no files is expected to hold the same files as the
   * directory {@code sourceDirectory} gives for it (a deep clone), else at least one.
   */
  static List<NamedFile> of(TableState state, StorageLocation table, Function<String, StorageLocation> stores,
      Function<IndexMetadata, Optional<StorageLocation>> sourceDirectory) {
    Bases bases = new Bases(state.manifest(), table, stores);
    List<NamedFile> files = new ArrayList<>();
    for (DataFragment fragment : state.manifest().getFragmentsList()) {
      long id = fragment.getId();
      for (DataFile file : fragment.getFilesList()) {
        Optional<Integer> base = file.hasBaseId() ? Optional.of(file.getBaseId()) : Optional.empty();
        files.add(bases.place(base, DATA, file.getPath(), "data file " + file.getPath() + " of fragment "
                + Long.toUnsignedString(id),
            (root, path) -> new NamedFile.Data(root, path, id, file, fragment.getPhysicalRows())));
      }
      if (fragment.hasDeletionFile()) {
        files.add(deletion(fragment, bases, table));
      }
      if (fragment.hasExternalRowIds()) {
        files.add(new NamedFile.Sequence(table, fragment.getExternalRowIds().getPath(), id,
            NamedFile.SequenceKind.ROW_IDS, fragment.getExternalRowIds(), fragment.getPhysicalRows()));
      }
      if (fragment.hasExternalCreatedAtVersions()) {
        files.add(new NamedFile.Sequence(table, fragment.getExternalCreatedAtVersions().getPath(), id,
            NamedFile.SequenceKind.CREATED_AT, fragment.getExternalCreatedAtVersions(), fragment.getPhysicalRows()));
      }
      if (fragment.hasExternalLastUpdatedAtVersions()) {
        files.add(new NamedFile.Sequence(table, fragment.getExternalLastUpdatedAtVersions().getPath(), id,
            NamedFile.SequenceKind.LAST_UPDATED_AT, fragment.getExternalLastUpdatedAtVersions(),
            fragment.getPhysicalRows()));
      }
    }
    for (IndexMetadata index : state.indices()) {
      files.addAll(indexFiles(index, bases, table, sourceDirectory));
    }
    return files;
  }

  /**
   * The files {@code next} names that {@code previous} (null for a new table) did not name with the same reference:
   * what a commit adds. Only fragments and indices that differ from their namesakes in {@code previous} are looked
   * at (the builder carries the others over as they are), so the cost follows what the commit changes, not the size
   * of the table; a change of base paths compares every file.
   */
  static List<NamedFile> added(TableState previous, TableState next, StorageLocation table,
      Function<String, StorageLocation> stores) {
    if (previous == null) {
      return added(List.of(), of(next, table, stores));
    }
    if (!previous.manifest().getBasePathsList().equals(next.manifest().getBasePathsList())) {
      return added(of(previous, table, stores), of(next, table, stores));
    }
    List<DataFragment> changed = new ArrayList<>();
    List<DataFragment> replaced = new ArrayList<>();
    if (previous.fragmentsSortedById() && next.fragmentsSortedById()) {
      changedFragmentsOfSorted(previous.manifest().getFragmentsList(), next, changed, replaced);
    } else {
      Map<Long, DataFragment> fragmentsBefore = new HashMap<>();
      previous.manifest().getFragmentsList().forEach(f -> fragmentsBefore.put(f.getId(), f));
      for (DataFragment fragment : next.manifest().getFragmentsList()) {
        DataFragment before = fragmentsBefore.get(fragment.getId());
        if (!fragment.equals(before)) {
          changed.add(fragment);
          if (before != null) {
            replaced.add(before);
          }
        }
      }
    }
    Map<com.google.protobuf.ByteString, IndexMetadata> indicesBefore = new HashMap<>();
    previous.indices().forEach(i -> indicesBefore.put(i.getUuid().getUuid(), i));
    List<IndexMetadata> newIndices = new ArrayList<>();
    List<IndexMetadata> oldIndices = new ArrayList<>();
    for (IndexMetadata index : next.indices()) {
      IndexMetadata before = indicesBefore.get(index.getUuid().getUuid());
      if (!index.equals(before)) {
        newIndices.add(index);
        if (before != null) {
          oldIndices.add(before);
        }
      }
    }
    TableState nextPart = new TableState(next.manifest().toBuilder().clearFragments().addAllFragments(changed)
        .build(), newIndices);
    TableState previousPart = new TableState(previous.manifest().toBuilder().clearFragments()
        .addAllFragments(replaced).build(), oldIndices);
    return added(of(previousPart, table, stores), of(nextPart, table, stores));
  }

  /**
   * {@link #added(TableState, TableState, StorageLocation, Function)} on two id-sorted fragment lists: the fragments
   * {@link FragmentNamesakes} finds changed (from the builder's edits, or one walk where a fragment carried over as
   * the same message is passed by a reference comparison), without a map of every fragment per version.
   */
  private static void changedFragmentsOfSorted(List<DataFragment> before, TableState after,
      List<DataFragment> changed, List<DataFragment> replaced) {
    FragmentNamesakes namesakes = FragmentNamesakes.of(before, after);
    for (int i : namesakes.changed()) {
      DataFragment fragment = namesakes.next(i);
      DataFragment namesake = namesakes.namesakeOf(i);
      if (!fragment.equals(namesake)) {
        changed.add(fragment);
        if (namesake != null) {
          replaced.add(namesake);
        }
      }
    }
  }

  /**
   * The files of {@code next} that {@code previous} does not name with the same reference. Duplicates (one file named
   * twice the same way) are listed once.
   */
  static List<NamedFile> added(List<NamedFile> previous, List<NamedFile> next) {
    Set<Object> known = new HashSet<>();
    previous.forEach(file -> known.add(file.identity()));
    Map<Object, NamedFile> added = new LinkedHashMap<>();
    for (NamedFile file : next) {
      if (!known.contains(file.identity())) {
        added.putIfAbsent(file.identity(), file);
      }
    }
    return List.copyOf(added.values());
  }

  private static NamedFile deletion(DataFragment fragment, Bases bases, StorageLocation table) {
    String relative;
    try {
      relative = DeletionVectors.relativePath(fragment.getId(), fragment.getDeletionFile());
    } catch (IllegalArgumentException e) {
      return new NamedFile.Unreachable(table, DeletionVectors.DELETIONS_DIR, "deletion file of fragment "
          + Long.toUnsignedString(fragment.getId()), "has deletion file type "
          + fragment.getDeletionFile().getFileTypeValue() + ", which Lance does not know");
    }
    Optional<Integer> base = fragment.getDeletionFile().hasBaseId()
        ? Optional.of(fragment.getDeletionFile().getBaseId()) : Optional.empty();
    String name = relative.substring(DeletionVectors.DELETIONS_DIR.length() + 1);
    return bases.place(base, DeletionVectors.DELETIONS_DIR, name, "deletion file of fragment "
        + Long.toUnsignedString(fragment.getId()), (root, path) -> new NamedFile.Deletion(root, path, fragment));
  }

  private static List<NamedFile> indexFiles(IndexMetadata index, Bases bases, StorageLocation table,
      Function<IndexMetadata, Optional<StorageLocation>> sourceDirectory) {
    String name = index.getName();
    ByteBuffer raw = index.getUuid().getUuid().asReadOnlyByteBuffer();
    if (raw.remaining() != 16) {
      return List.of(new NamedFile.Unreachable(table, INDICES, "index '" + name + "'",
          "cannot be found: its uuid has " + raw.remaining() + " bytes, not 16"));
    }
    String uuid = new UUID(raw.getLong(), raw.getLong()).toString();
    Optional<Integer> base = index.hasBaseId() ? Optional.of(index.getBaseId()) : Optional.empty();
    List<NamedFile> files = new ArrayList<>();
    if (index.getFilesCount() > 0) {
      for (dev.lancecommit.format.pb.IndexFile file : index.getFilesList()) {
        files.add(bases.place(base, INDICES, uuid + "/" + file.getPath(), "file " + file.getPath() + " of index '"
            + name + "'", (root, path) -> new NamedFile.IndexFile(root, path, name, uuid, file.getSizeBytes())));
      }
    } else if (!name.startsWith(SYSTEM_INDEX_PREFIX)) {
      files.add(bases.place(base, INDICES, uuid, "directory of index '" + name + "'",
          (root, path) -> new NamedFile.IndexDirectory(root, path, name, uuid, sourceDirectory.apply(index))));
    }
    return files;
  }

  /** The roots a version's files are relative to: the table and its base paths. */
  private static final class Bases {
    private final StorageLocation table;
    private final Function<String, StorageLocation> stores;
    private final Map<Integer, BasePath> byId = new HashMap<>();
    private final Map<Integer, StorageLocation> resolved = new HashMap<>();

    Bases(Manifest manifest, StorageLocation table, Function<String, StorageLocation> stores) {
      this.table = table;
      this.stores = stores;
      manifest.getBasePathsList().forEach(base -> byId.put(base.getId(), base));
    }

    /**
     * The file {@code path} of kind directory {@code dir}: {@code table/dir/path} without a base,
     * {@code base/dir/path} under a dataset-root base, {@code base/path} under another base.
     */
    NamedFile place(Optional<Integer> baseId, String dir, String path, String what,
        java.util.function.BiFunction<StorageLocation, String, NamedFile> make) {
      if (baseId.isEmpty()) {
        return make.apply(table, dir + "/" + path);
      }
      int id = baseId.get();
      BasePath base = byId.get(id);
      if (base == null) {
        return new NamedFile.Unreachable(table, path, what, "cannot be found: it names base path "
            + Integer.toUnsignedString(id) + ", which the version does not have");
      }
      StorageLocation root = resolved.get(id);
      if (root == null) {
        try {
          root = stores.apply(base.getPath());
        } catch (RuntimeException e) {
          return new NamedFile.Unreachable(table, path, what, "cannot be reached: its base path '" + base.getPath()
              + "' is not a location this coordinator can read (" + e.getMessage() + ")");
        }
        resolved.put(id, root);
      }
      return make.apply(root, base.getIsDatasetRoot() ? dir + "/" + path : path);
    }
  }
}
