package dev.lancecommit.coordinator.verify;

import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Manifest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Checks the files of table versions against the store, in parallel on an object store ({@code parallelism}
 * requests at a time per check; on a local disk one after the other), and reports every problem in the order the
 * version names the files. Blocking; call it from worker threads. See {@link FileInspector} for what each check reads.
 *
 * <p>Presence checks of many files in one directory (a clone, a version being verified) list the directory once
 * instead of asking for each file.
 */
public final class FileVerifier {
  /** From this many files in one directory on, a presence check lists the directory. */
  static final int LIST_THRESHOLD = 16;

  private final Function<String, StorageLocation> stores;
  private final Executor executor;
  private final int parallelism;

  /**
   * @param stores resolves a base path URI to a location (the coordinator's {@code ObjectStores::resolve})
   * @param executor lends helper threads; never waited on (see {@link BoundedParallel})
   * @param parallelism requests in flight at most, per check
   */
  public FileVerifier(Function<String, StorageLocation> stores, Executor executor, int parallelism) {
    if (parallelism < 1) {
      throw new IllegalArgumentException("parallelism must be at least 1: " + parallelism);
    }
    this.stores = stores;
    this.executor = executor;
    this.parallelism = parallelism;
  }

  /**
   * Every file {@code next} names that {@code previous} (null for a new table) did not name with the same
   * reference, checked for presence and content: the files a commit adds.
   */
  public List<FileProblem> checkAdded(StorageLocation table, TableState previous, TableState next) {
    return checkAdded(table, previous, next, FilesCheckedAhead.Found.NONE);
  }

  /**
   * {@link #checkAdded(StorageLocation, TableState, TableState)}, except the files {@code found} right already (a
   * commit's own files, checked while it waited in the lane: {@link FilesCheckedAhead}).
   */
  public List<FileProblem> checkAdded(StorageLocation table, TableState previous, TableState next,
      FilesCheckedAhead.Found found) {
    List<NamedFile> added = VersionFiles.added(previous, next, table, stores);
    if (!found.isEmpty()) {
      added = added.stream().filter(file -> !found.right(file)).toList();
    }
    return check(added, FileInspector.Depth.CONTENT);
  }

  /**
   * The files of {@code fragments} (those a transaction names) that are right, checked as a version adding them
   * would check them. A file reached through a base path is left out (where it is depends on the version's base
   * paths), and so is every file the store could not be asked about: the version's own check decides those.
   */
  FilesCheckedAhead.Found checkFragments(StorageLocation table, List<DataFragment> fragments) {
    if (fragments.isEmpty()) {
      return FilesCheckedAhead.Found.NONE;
    }
    TableState named = new TableState(Manifest.newBuilder().addAllFragments(fragments).build(), List.of());
    List<NamedFile> files = VersionFiles.of(named, table, stores).stream()
        .filter(file -> !(file instanceof NamedFile.Unreachable))
        .toList();
    Map<Integer, FileProblem> problems = problems(files, FileInspector.Depth.CONTENT);
    java.util.Set<Object> right = new java.util.HashSet<>();
    for (int i = 0; i < files.size(); i++) {
      if (!problems.containsKey(i)) {
        right.add(files.get(i).identity());
      }
    }
    return new FilesCheckedAhead.Found(right);
  }

  /**
   * Every file of a clone's first version, for presence: the clone republishes a version whose files another commit
   * already stated. For a deep clone, an index that lists no files must hold the files the source's index directory
   * holds ({@code sourceIndexDirectory}).
   */
  public List<FileProblem> checkClone(StorageLocation table, TableState clone,
      Function<IndexMetadata, Optional<StorageLocation>> sourceIndexDirectory) {
    return check(VersionFiles.of(clone, table, stores, sourceIndexDirectory), FileInspector.Depth.PRESENCE);
  }

  /** Every file {@code version} names, for presence (and content when {@code content}). */
  public Report checkVersion(StorageLocation table, TableState version, boolean content) {
    List<NamedFile> files = VersionFiles.of(version, table, stores);
    return new Report(files.size(), check(files, content ? FileInspector.Depth.CONTENT : FileInspector.Depth.PRESENCE));
  }

  /** What checking a version found: how many files it names and what is wrong with them, in order. */
  public record Report(int filesChecked, List<FileProblem> problems) {
    public boolean ok() {
      return problems.isEmpty();
    }
  }

  private List<FileProblem> check(List<NamedFile> files, FileInspector.Depth depth) {
    return List.copyOf(problems(files, depth).values());
  }

  /** The problems of {@code files}, by their index in it. */
  private Map<Integer, FileProblem> problems(List<NamedFile> files, FileInspector.Depth depth) {
    if (files.isEmpty()) {
      return Map.of();
    }
    List<Supplier<Map<Integer, FileProblem>>> tasks = new ArrayList<>();
    Map<Directory, List<Integer>> listable = new LinkedHashMap<>();
    for (int i = 0; i < files.size(); i++) {
      NamedFile file = files.get(i);
      if (depth == FileInspector.Depth.PRESENCE && listable(file)) {
        listable.computeIfAbsent(Directory.of(file), d -> new ArrayList<>()).add(i);
      } else {
        tasks.add(single(i, file, depth));
      }
    }
    for (Map.Entry<Directory, List<Integer>> group : listable.entrySet()) {
      if (group.getValue().size() >= LIST_THRESHOLD && !group.getKey().path().isEmpty()) {
        tasks.add(listed(group.getKey(), group.getValue(), files));
      } else {
        group.getValue().forEach(i -> tasks.add(single(i, files.get(i), depth)));
      }
    }
    // On a local disk a read costs less than handing it to another thread: the checking thread does them all.
    boolean roundTrips = files.stream().anyMatch(f -> f.root().store().requestsAreRoundTrips());
    Map<Integer, FileProblem> problems = new java.util.TreeMap<>();
    for (Map<Integer, FileProblem> found : BoundedParallel.run(tasks, executor, roundTrips ? parallelism : 1)) {
      problems.putAll(found);
    }
    return problems;
  }

  private static Supplier<Map<Integer, FileProblem>> single(int index, NamedFile file, FileInspector.Depth depth) {
    return () -> FileInspector.inspect(file, depth).map(p -> Map.of(index, p)).orElse(Map.of());
  }

  private static Supplier<Map<Integer, FileProblem>> listed(Directory dir, List<Integer> indices,
      List<NamedFile> files) {
    return () -> {
      Map<String, Long> present;
      try {
        present = FileInspector.list(dir.root(), dir.path());
      } catch (IllegalArgumentException e) {
        // not a listable prefix: fall back to one request per file, which reports the bad paths
        Map<Integer, FileProblem> out = new java.util.HashMap<>();
        for (int i : indices) {
          FileInspector.inspect(files.get(i), FileInspector.Depth.PRESENCE).ifPresent(p -> out.put(i, p));
        }
        return out;
      }
      Map<Integer, FileProblem> out = new java.util.HashMap<>();
      for (int i : indices) {
        FileInspector.presenceListed(files.get(i), present).ifPresent(p -> out.put(i, p));
      }
      return out;
    };
  }

  private static boolean listable(NamedFile file) {
    return file instanceof NamedFile.Data || file instanceof NamedFile.Deletion || file instanceof NamedFile.Sequence
        || file instanceof NamedFile.IndexFile;
  }

  /** The directory a file is in: its root's store and the path up to the last '/'. */
  private record Directory(StorageLocation root, String path) {
    static Directory of(NamedFile file) {
      int slash = file.path().lastIndexOf('/');
      return new Directory(file.root(), slash < 0 ? "" : file.path().substring(0, slash));
    }

    // StorageLocation compares stores by identity, which is what a directory listing needs.
    @Override
    public boolean equals(Object o) {
      return o instanceof Directory d && d.root.store() == root.store() && d.root.rootKey().equals(root.rootKey())
          && d.path.equals(path);
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(root.store()) * 31 + root.rootKey().hashCode() * 17 + path.hashCode();
    }
  }
}
