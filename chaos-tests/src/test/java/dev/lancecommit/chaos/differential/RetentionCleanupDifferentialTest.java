package dev.lancecommit.chaos.differential;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.coordinator.refs.RefLocks;
import dev.lancecommit.coordinator.retention.RemovalLog;
import dev.lancecommit.coordinator.retention.RetentionPolicy;
import dev.lancecommit.coordinator.retention.TableCleanup;
import dev.lancecommit.coordinator.storage.ObjectStores;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.e2e.CommitApi;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.deletion.DeletionVectors;
import dev.lancecommit.format.pb.BasePath;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.testing.lance.LanceTables;
import dev.lancecommit.client.lance.TransactionFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.Ref;
import org.lance.cleanup.CleanupPolicy;
import org.lance.compaction.Compaction;
import org.lance.compaction.CompactionOptions;
import org.lance.compaction.CompactionPlan;
import org.lance.compaction.CompactionTask;
import org.lance.compaction.RewriteResult;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.ScalarIndexParams;
import org.lance.operation.Rewrite;
import org.lance.operation.RewriteGroup;

/**
 * The retention cleanup against Lance's own {@code cleanup_old_versions} on one history: appends, deletions (deletion
 * files), a BTREE index replaced twice, a compaction, a restore, and a data file no version names (a write never
 * committed); in the second case also a tag on an old version and a branch made from an old version with a commit of its
 * own (both versions are kept, as Lance keeps them). Stock Lance ({@code Dataset.cleanupWithPolicy}: versions before
 * V, unverified files included) and the coordinator's cleanup (the newest N versions, no minimum age) run on the same
 * table at the same path (restored from a copy in between, so a branch's base path still names the table). Stock
 * Lance opens every kept version afterwards with the rows it had and uses the kept index, and every file a kept
 * version names is there, after either.
 *
 * <p>Without refs on old versions both leave exactly the same files. With them, lance-core 7.0.0 keeps more: it only
 * lists files older than the oldest kept manifest, so a tag or branch on an old version keeps every newer unnamed
 * file for ever (the leak later Lance fixes, lance-format/lance#8705, by dropping the cutoff when a deleted manifest
 * is newer than a kept one). The coordinator follows the fixed rule: what it leaves is what Lance leaves minus files
 * no kept version names, all newer than that oldest kept manifest.
 */
class RetentionCleanupDifferentialTest {
  @TempDir
  static Path work;

  private static RunningCoordinator coordinator;

  @BeforeAll
  static void start() {
    coordinator = RunningCoordinator.start(work.resolve("warehouse"));
  }

  @AfterAll
  static void stop() {
    if (coordinator != null) {
      coordinator.close();
    }
  }

  @Test
  void withoutRefsOnOldVersionsTheCoordinatorLeavesExactlyWhatLanceLeaves() throws Exception {
    History history = History.write(coordinator, "linear", false);
    Outcome outcome = cleanBothWays(history, List.of(10L, 11L, 12L));
    assertThat(outcome.result.versionsRemoved()).isEqualTo(9);
    assertThat(outcome.removedByCoordinator).anyMatch(p -> p.startsWith("data/"))
        .anyMatch(p -> p.startsWith("_deletions/")).anyMatch(p -> p.startsWith("_indices/"))
        .anyMatch(p -> p.startsWith("_transactions/")).anyMatch(p -> p.startsWith("_versions/"));
    assertThat(outcome.leftByCoordinator).as("files left: the coordinator vs stock Lance")
        .isEqualTo(outcome.leftByLance);
  }

  @Test
  void withATagAndABranchOnOldVersionsTheCoordinatorKeepsWhatLanceKeepsButItsLeak() throws Exception {
    History history = History.write(coordinator, "refs", true);
    // 2 is tagged, 4 is the version branch dev was made from
    Outcome outcome = cleanBothWays(history, List.of(2L, 4L, 10L, 11L, 12L));
    assertThat(outcome.result.versionsRemoved()).isEqualTo(7);
    assertThat(outcome.leftByLance).containsAll(outcome.leftByCoordinator);
    Set<String> leaked = new TreeSet<>(outcome.leftByLance);
    leaked.removeAll(outcome.leftByCoordinator);
    Set<Path> named = new java.util.HashSet<>();
    for (Path root : List.of(history.table, history.table.resolve("tree/dev"))) {
      named.addAll(namedByVersions(root));
    }
    assertThat(leaked).isNotEmpty();
    java.time.Instant oldestKept = outcome.backupTimes.get("_versions/"
        + dev.lancecommit.format.ManifestNaming.fileName(dev.lancecommit.format.ManifestNaming.Scheme.V2, 2));
    for (String file : leaked) {
      Path path = history.table.resolve(file);
      assertThat(named).as("%s, kept only by Lance, is named by no kept version", file)
          .noneMatch(path::startsWith); // (an index is named by its directory)
      assertThat(outcome.backupTimes.get(file)).as("%s, kept only by Lance, is newer than the oldest kept version",
          file).isAfter(oldestKept);
    }
  }

  /** A history written through the coordinator and stock Lance, with each version's rows. */
  private record History(List<String> id, Path table, long latest, Map<Long, List<Long>> rows, boolean withRefs) {
    static History write(RunningCoordinator coordinator, String name, boolean withRefs) {
      List<String> id = List.of("chaos", name);
      Path table = Path.of(coordinator.api().declareTable(id));
      CommitApi api = coordinator.api();
      String path = "/v1/table/chaos$" + name;
      try (LanceTables lance = LanceTables.local(table)) {
        commit(api, id, TransactionFactory.create(LanceProtos.schema(LanceTables.ROW_SCHEMA),
            LanceProtos.fragments(lance.writeRows(0, 40))));                                         // v1
        commit(api, id, TransactionFactory.append(1, LanceProtos.fragments(lance.writeRows(40, 10)))); // v2
        commit(api, id, TransactionFactory.append(2, LanceProtos.fragments(lance.writeRows(50, 10)))); // v3
        try (Dataset ds = lance.open()) {
          ds.delete("id < 5");                                                                       // v4
        }
        createIndex(lance);                                                                          // v5
        compact(lance);                                                                              // v6
        try (Dataset ds = lance.open()) {
          ds.delete("id >= 55");                                                                     // v7
        }
        commit(api, id, TransactionFactory.append(7, LanceProtos.fragments(lance.writeRows(60, 10)))); // v8
        // written, never committed: older than the kept versions (lance-core 7.0.0 lists nothing newer)
        lance.writeRows(900, 3);
        createIndex(lance);                                                                          // v9
        ok(api.postJson(path + "/restore", "{\"version\":3}"));                                     // v10
        commit(api, id, TransactionFactory.append(10, LanceProtos.fragments(lance.writeRows(70, 5)))); // v11
        createIndex(lance);                                                                          // v12
        if (withRefs) {
          ok(api.postJson(path + "/tags/create", "{\"tag\":\"keep\",\"version\":2}"));
          ok(api.postJson(path + "/branches/create", "{\"name\":\"dev\",\"from_version\":4}"));
          try (LanceTables dev = LanceTables.local(table.resolve("tree/dev"))) {
            ok(api.post(path + "/commit?branch=dev", TransactionFactory.append(4,
                LanceProtos.fragments(dev.writeRows(100, 3))).toByteArray(), CommitApi.PROTOBUF));
          }
        }
        long latest = lance.latestVersion();
        Map<Long, List<Long>> rows = new TreeMap<>();
        for (long v = 1; v <= latest; v++) {
          rows.put(v, lance.readIds(v));
        }
        return new History(id, table, latest, rows, withRefs);
      }
    }
  }

  private record Outcome(TableCleanup.Result result, Set<String> leftByLance, Set<String> leftByCoordinator,
      Set<String> removedByCoordinator, Map<String, java.time.Instant> backupTimes) {}

  private static Outcome cleanBothWays(History history, List<Long> kept) throws IOException {
    Path table = history.table;
    assertThat(history.latest).isEqualTo(12);
    Path backup = work.resolve("backup-" + history.id.get(1));
    TableFiles.copyTree(table, backup);
    Set<String> before = files(table);
    Map<String, java.time.Instant> times = new TreeMap<>();
    for (String file : before) {
      times.put(file, Files.getLastModifiedTime(table.resolve(file)).toInstant());
    }

    // stock Lance: versions before 10, unverified files too (no write is in flight), tagged old versions kept
    try (LanceTables lance = LanceTables.local(table); Dataset ds = lance.open()) {
      ds.cleanupWithPolicy(CleanupPolicy.builder().withBeforeVersion(history.latest - 2).withDeleteUnverified(true)
          .withErrorIfTaggedOldVersions(false).build());
    }
    Set<String> leftByLance = files(table);
    checkKeptVersions(history, kept, "Lance's cleanup");

    TableFiles.deleteTree(table);
    TableFiles.copyTree(backup, table);
    assertThat(files(table)).isEqualTo(before);

    // the coordinator: the newest 3 versions, no minimum age, no commit grace
    TableCleanup.Result result;
    try (ObjectStores stores = new ObjectStores(null)) {
      TableCleanup cleanup = new TableCleanup(stores::resolve, new RefLocks(), new RemovalLog(Clock.systemUTC()),
          Clock.systemUTC(), Duration.ZERO);
      result = cleanup.clean(new TableRef(history.id, table.toString(), UUID.randomUUID().toString()),
          new RetentionPolicy(3, Duration.ZERO));
    }
    Set<String> leftByCoordinator = files(table);
    checkKeptVersions(history, kept, "the coordinator's cleanup");

    Set<String> removed = new TreeSet<>(before);
    removed.removeAll(leftByCoordinator);
    assertThat(result.filesRemoved() + result.versionsRemoved()).isEqualTo(removed.size());
    return new Outcome(result, leftByLance, leftByCoordinator, removed, times);
  }

  /** Every kept version opens with its rows; the kept index answers; every file a kept version names exists. */
  private static void checkKeptVersions(History history, List<Long> kept, String after) throws IOException {
    Path table = history.table;
    try (LanceTables lance = LanceTables.local(table)) {
      assertThat(lance.versions()).as("versions after %s", after).containsExactlyElementsOf(kept);
      for (long v : kept) {
        assertThat(lance.readIds(v)).as("version %s after %s", v, after).isEqualTo(history.rows.get(v));
      }
      try (Dataset ds = lance.open()) {
        assertThat(ds.countRows("id = 42")).isEqualTo(1); // through the BTREE index of version 12
        if (history.withRefs) {
          assertThat(ds.tags().getVersion("keep")).isEqualTo(2);
          try (Dataset dev = ds.checkout(Ref.ofBranch("dev"))) {
            assertThat(LanceTables.readColumn(dev, "id")).as("branch dev after %s", after)
                .hasSize(history.rows.get(4L).size() + 3);
          }
          try (Dataset devAtParent = ds.checkout(Ref.ofBranch("dev", 4))) {
            assertThat(LanceTables.readColumn(devAtParent, "id")).hasSize(history.rows.get(4L).size());
          }
        }
      }
    }
    List<Path> roots = history.withRefs ? List.of(table, table.resolve("tree/dev")) : List.of(table);
    for (Path root : roots) {
      for (Path named : namedByVersions(root)) {
        assertThat(named).as("named by a version of %s, after %s", root, after).exists();
      }
    }
  }

  /** Every file a version present under {@code root} names. */
  private static List<Path> namedByVersions(Path root) throws IOException {
    List<Path> named = new ArrayList<>();
    try (Stream<Path> manifests = Files.list(root.resolve("_versions"))) {
      for (Path manifest : manifests.filter(p -> p.toString().endsWith(".manifest")).toList()) {
        named.addAll(namedFiles(ManifestFile.decode(Files.readAllBytes(manifest)), root));
      }
    }
    return named;
  }

  /** Every file {@code file} names, resolved through its base paths. */
  private static List<Path> namedFiles(ManifestFile file, Path root) {
    Map<Integer, Path> bases = new TreeMap<>();
    for (BasePath base : file.manifest().getBasePathsList()) {
      bases.put(base.getId(), Path.of(base.getPath()));
    }
    List<Path> named = new ArrayList<>();
    for (DataFragment fragment : file.manifest().getFragmentsList()) {
      for (DataFile data : fragment.getFilesList()) {
        named.add((data.hasBaseId() ? bases.get(data.getBaseId()) : root).resolve("data").resolve(data.getPath()));
      }
      if (fragment.hasDeletionFile()) {
        Path base = fragment.getDeletionFile().hasBaseId() ? bases.get(fragment.getDeletionFile().getBaseId()) : root;
        named.add(base.resolve(DeletionVectors.relativePath(fragment.getId(), fragment.getDeletionFile())));
      }
    }
    for (IndexMetadata index : file.indices()) {
      ByteBuffer uuid = ByteBuffer.wrap(index.getUuid().getUuid().toByteArray());
      named.add((index.hasBaseId() ? bases.get(index.getBaseId()) : root).resolve("_indices")
          .resolve(new UUID(uuid.getLong(), uuid.getLong()).toString()));
    }
    if (!file.manifest().getTransactionFile().isEmpty()) {
      named.add(root.resolve("_transactions").resolve(file.manifest().getTransactionFile()));
    }
    return named;
  }

  private static Set<String> files(Path root) {
    try (Stream<Path> walk = Files.walk(root)) {
      Set<String> out = new TreeSet<>();
      walk.filter(Files::isRegularFile).forEach(p -> out.add(root.relativize(p).toString()));
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void commit(CommitApi api, List<String> id, dev.lancecommit.format.pb.Transaction txn) {
    ok(api.commit(id, txn));
  }

  private static void ok(CommitApi.Response response) {
    assertThat(response.status()).as(response.toString()).isEqualTo(200);
  }

  private static void createIndex(LanceTables lance) {
    try (Dataset ds = lance.open()) {
      ds.createIndex(List.of("id"), IndexType.BTREE, Optional.of("id_idx"),
          IndexParams.builder().setScalarIndexParams(ScalarIndexParams.create("btree")).build(), true);
    }
  }

  private static void compact(LanceTables lance) {
    List<RewriteGroup> groups = new ArrayList<>();
    long version;
    try (Dataset ds = lance.open()) {
      version = ds.version();
      CompactionPlan plan = Compaction.planCompaction(ds,
          CompactionOptions.builder().withTargetRowsPerFragment(100).build());
      for (CompactionTask task : plan.getCompactionTasks()) {
        RewriteResult result = task.execute(ds);
        groups.add(RewriteGroup.builder().oldFragments(result.getOriginalFragments())
            .newFragments(result.getNewFragments()).build());
      }
    }
    assertThat(groups).isNotEmpty();
    lance.commitWithLance(version, Rewrite.builder().groups(groups).build());
  }
}
