package dev.lancecommit.coordinator.namespace;

import dev.lancecommit.format.ManifestNaming;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.coordinator.storage.LocalObjectStore;
import dev.lancecommit.coordinator.storage.ObjectStore;
import dev.lancecommit.coordinator.storage.ObjectStores;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.testing.S3ProxyFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two Catalog instances (two coordinators) on one warehouse. The deterministic tests put the other instance's
 * update exactly between one instance's read and its write; the free-running ones race threads of both instances,
 * on the local store and on s3proxy, and check that every success is one revision and the end state is consistent.
 */
class CatalogRaceTest {
  @RegisterExtension static final S3ProxyFixture S3 = new S3ProxyFixture();

  @TempDir Path root;
  private InterleavingStore storeA;
  private LocalObjectStore storeB;
  private Catalog a;
  private Catalog b;
  private ExecutorService pool;

  @BeforeEach
  void setUp() {
    storeA = new InterleavingStore(new LocalObjectStore(root));
    storeB = new LocalObjectStore(root);
    a = catalogOn(storeA);
    b = catalogOn(storeB);
    a.createNamespace(List.of("ns"), CreateMode.CREATE, Map.of());
    pool = Executors.newFixedThreadPool(8);
  }

  @AfterEach
  void tearDown() throws InterruptedException {
    pool.shutdownNow();
    pool.awaitTermination(10, TimeUnit.SECONDS);
    storeA.close();
    storeB.close();
  }

  private static Catalog catalogOn(ObjectStore store) {
    return new Catalog(new StorageLocation(store, ""), Duration.ZERO, Clock.systemUTC());
  }

  // ------------------------------------------------------------ forced interleavings

  @Test
  void aDeregisterThatLosesTheRaceToARegisterOverwriteIsAppliedAfterItNotInsteadOfIt() throws IOException {
    Path data = dataset("ns/t.lance");
    TableEntry original = a.registerTable(List.of("ns", "t"), data.toString(), RegisterMode.CREATE, Map.of("v", "1"));
    storeA.beforeNextCreate(k -> k.contains("/_tables/t/"), () ->
        b.registerTable(List.of("ns", "t"), data.toString(), RegisterMode.OVERWRITE, Map.of("v", "2")));

    TableEntry deregistered = a.deregisterTable(List.of("ns", "t"));

    assertThat(storeA.hookPending()).isFalse();
    // A saw B's update (re-read after losing revision 2) and deregistered that state as revision 3
    assertThat(deregistered.properties()).containsEntry("v", "2");
    assertThat(deregistered.tableUuid()).isEqualTo(original.tableUuid());
    assertThat(revisions("ns/_tables/t")).containsExactly("registered/v=1", "registered/v=2", "deregistered/v=2");
    assertThat(b.loadTable(List.of("ns", "t"))).isEmpty();
  }

  @Test
  void aRenameThatLosesTheRaceToAnotherRenameFindsTheTableGone() {
    TableEntry t = a.declareTable(List.of("ns", "t"), Optional.empty(), Map.of());
    storeA.beforeNextCreate(k -> k.contains("/_tables/t/"), () -> b.renameTable(List.of("ns", "t"), List.of("ns", "v")));

    assertThatThrownBy(() -> a.renameTable(List.of("ns", "t"), List.of("ns", "u")))
        .isInstanceOf(TableNotFoundException.class);

    assertThat(a.loadTable(List.of("ns", "u"))).isEmpty();
    assertThat(a.loadTable(List.of("ns", "t"))).isEmpty();
    assertThat(a.loadTable(List.of("ns", "v"))).hasValueSatisfying(v -> {
      assertThat(v.tableUuid()).isEqualTo(t.tableUuid());
      assertThat(v.location()).isEqualTo(t.location());
    });
    assertThat(revisions("ns/_tables/t")).containsExactly("declared/", "renamed/");
    assertThat(Files.exists(root.resolve("_catalog/tree/ns/_tables/u"))).isFalse();
  }

  @Test
  void aRenameWhoseTargetIsTakenMeanwhilePutsTheTableBack() {
    TableEntry t = a.declareTable(List.of("ns", "t"), Optional.empty(), Map.of("k", "v"));
    storeA.beforeNextCreate(k -> k.contains("/_tables/u/"), () ->
        b.declareTable(List.of("ns", "u"), Optional.of(root.resolve("elsewhere").toString()), Map.of()));

    assertThatThrownBy(() -> a.renameTable(List.of("ns", "t"), List.of("ns", "u")))
        .isInstanceOf(TableAlreadyExistsException.class);

    assertThat(a.loadTable(List.of("ns", "t"))).hasValueSatisfying(back -> {
      assertThat(back.tableUuid()).isEqualTo(t.tableUuid());
      assertThat(back.properties()).containsEntry("k", "v");
    });
    assertThat(a.loadTable(List.of("ns", "u")).orElseThrow().tableUuid()).isNotEqualTo(t.tableUuid());
    assertThat(revisions("ns/_tables/t")).containsExactly("declared/k=v", "renamed/k=v", "declared/k=v");
  }

  @Test
  void twoDeclaresOfOneNewLocationNeverBothKeepIt() {
    String shared = root.resolve("shared/t.lance").toString();
    // B declares u at the same location after A claimed it and before A writes t's entry: B waits for A's claim,
    // then fences it (writes revision 1 of t itself) and takes the location
    storeA.beforeNextCreate(k -> k.contains("/_tables/t/"), () ->
        b.declareTable(List.of("ns", "u"), Optional.of(shared), Map.of()));

    assertThatThrownBy(() -> a.declareTable(List.of("ns", "t"), Optional.of(shared), Map.of()))
        .isInstanceOf(TableAlreadyExistsException.class)
        .hasMessageContaining("ns$u");

    assertThat(storeA.hookPending()).isFalse();
    assertThat(b.loadTable(List.of("ns", "t"))).isEmpty();
    assertThat(b.loadTable(List.of("ns", "u")).orElseThrow().location()).isEqualTo(shared);
    // t's only revision is B's fence; A's write of it lost, and A's retry found the location held
    assertThat(revisions("ns/_tables/t")).containsExactly("dropped/");
    assertThatThrownBy(() -> a.declareTable(List.of("ns", "t"), Optional.of(shared), Map.of()))
        .isInstanceOf(TableAlreadyExistsException.class);
  }

  @Test
  void aNamespaceDroppedWhileATableIsDeclaredInItNeverKeepsTheTable() {
    // B drops the (still empty) namespace between A's namespace check and A's table write
    storeA.beforeNextCreate(k -> k.contains("/_tables/t/"), () ->
        b.dropNamespace(List.of("ns"), DropMode.FAIL, DropBehavior.RESTRICT));

    assertThatThrownBy(() -> a.declareTable(List.of("ns", "t"), Optional.empty(), Map.of()))
        .isInstanceOf(NamespaceNotFoundException.class);

    assertThat(b.namespaceExists(List.of("ns"))).isFalse();
    assertThat(b.loadTable(List.of("ns", "t"))).isEmpty();
    assertThat(revisions("ns/_tables/t")).containsExactly("declared/", "deregistered/");
  }

  @Test
  void aRestrictDropThatFindsANewTableAfterItsWriteGivesTheNamespaceBack() {
    // B declares a table between A's emptiness check and A's tombstone
    Catalog other = b;
    storeA.beforeNextCreate(k -> k.contains("/_namespaces/ns/"), () ->
        other.declareTable(List.of("ns", "t"), Optional.empty(), Map.of()));

    assertThatThrownBy(() -> a.dropNamespace(List.of("ns"), DropMode.FAIL, DropBehavior.RESTRICT))
        .isInstanceOf(NamespaceNotEmptyException.class);

    assertThat(b.namespaceExists(List.of("ns"))).isTrue();
    assertThat(b.loadTable(List.of("ns", "t"))).isPresent();
  }

  @Test
  void aRenameCutShortBetweenItsTwoWritesIsRecoveredByRegisteringTheOldName() throws IOException {
    Path data = dataset("ns/t.lance");
    TableEntry t = a.registerTable(List.of("ns", "t"), data.toString(), RegisterMode.CREATE, Map.of());
    // the process "dies" just before writing the new entry: an Error, which no catalog code catches
    storeA.beforeNextCreate(k -> k.contains("/_tables/u/"), () -> {
      throw new AssertionError("process died");
    });
    assertThatThrownBy(() -> a.renameTable(List.of("ns", "t"), List.of("ns", "u"))).isInstanceOf(AssertionError.class);
    assertThat(b.loadTable(List.of("ns", "t"))).isEmpty();
    assertThat(b.loadTable(List.of("ns", "u"))).isEmpty();

    TableEntry back = b.registerTable(List.of("ns", "t"), data.toString(), RegisterMode.CREATE, Map.of());
    assertThat(back.tableUuid()).isEqualTo(t.tableUuid());
  }

  // ------------------------------------------------------------ free-running races

  @Test
  void racingRenamesOfOneTableHaveExactlyOneWinner() throws Exception {
    raceRenames(a, b, 5);
  }

  @Test
  void racingRenamesOnS3HaveExactlyOneWinner() throws Exception {
    String prefix = "race-" + UUID.randomUUID();
    try (ObjectStores one = new ObjectStores(S3.s3Config()); ObjectStores two = new ObjectStores(S3.s3Config())) {
      Catalog s3a = new Catalog(one.resolve(S3.uri(prefix)), Duration.ZERO, Clock.systemUTC());
      Catalog s3b = new Catalog(two.resolve(S3.uri(prefix)), Duration.ZERO, Clock.systemUTC());
      s3a.createNamespace(List.of("ns"), CreateMode.CREATE, Map.of());
      raceRenames(s3a, s3b, 2);
    }
  }

  private void raceRenames(Catalog first, Catalog second, int rounds) throws Exception {
    int racers = 6;
    for (int round = 0; round < rounds; round++) {
      List<String> source = List.of("ns", "src" + round);
      TableEntry table = first.declareTable(source, Optional.empty(), Map.of());
      CountDownLatch start = new CountDownLatch(1);
      List<Future<TableEntry>> results = new ArrayList<>();
      for (int i = 0; i < racers; i++) {
        Catalog c = i % 2 == 0 ? first : second;
        List<String> target = List.of("ns", "r" + round + "x" + i);
        Callable<TableEntry> rename = () -> {
          start.await();
          return c.renameTable(source, target);
        };
        results.add(pool.submit(rename));
      }
      start.countDown();
      List<TableEntry> winners = new ArrayList<>();
      for (Future<TableEntry> result : results) {
        try {
          winners.add(result.get(60, TimeUnit.SECONDS));
        } catch (ExecutionException e) {
          assertThat(e.getCause()).isInstanceOfAny(TableNotFoundException.class,
              CatalogConcurrentUpdateException.class);
        }
      }
      assertThat(winners).hasSize(1);
      TableEntry winner = winners.get(0);
      assertThat(winner.tableUuid()).isEqualTo(table.tableUuid());
      assertThat(second.loadTable(source)).isEmpty();
      String prefix = "r" + round + "x";
      List<List<String>> live = first.listAllTables(Optional.empty(), 1000, true, t -> true).items().stream()
          .filter(id -> id.get(1).startsWith(prefix)).toList();
      assertThat(live).containsExactly(winner.id());
    }
  }

  @Test
  void racingDeclaresOfOneAndOfNestedLocationsNeverOverlap() throws Exception {
    raceLocations(a, b, root.toString(), 3);
  }

  @Test
  void racingDeclaresOfNestedLocationsOnS3NeverOverlap() throws Exception {
    String prefix = "race-" + UUID.randomUUID();
    try (ObjectStores one = new ObjectStores(S3.s3Config()); ObjectStores two = new ObjectStores(S3.s3Config())) {
      Catalog s3a = new Catalog(one.resolve(S3.uri(prefix)), Duration.ZERO, Clock.systemUTC());
      Catalog s3b = new Catalog(two.resolve(S3.uri(prefix)), Duration.ZERO, Clock.systemUTC());
      s3a.createNamespace(List.of("ns"), CreateMode.CREATE, Map.of());
      raceLocations(s3a, s3b, S3.uri(prefix), 1);
    }
  }

  /**
   * Six tables declared at once, from two coordinators, at one location and at locations inside it: the tables that
   * succeed never share or nest locations, every refusal is a clean one, and afterwards every location the race left
   * unused can be declared (no claim was left behind that blocks it).
   */
  private void raceLocations(Catalog first, Catalog second, String base, int rounds) throws Exception {
    for (int round = 0; round < rounds; round++) {
      String x = base + "/r" + round + "/x";
      List<String> locations = List.of(x, x, x + "/y", x + "/y/z", x, x + "/y");
      CountDownLatch start = new CountDownLatch(1);
      List<Future<TableEntry>> results = new ArrayList<>();
      for (int i = 0; i < locations.size(); i++) {
        Catalog c = i % 2 == 0 ? first : second;
        List<String> id = List.of("ns", "r" + round + "t" + i);
        String location = locations.get(i);
        Callable<TableEntry> declare = () -> {
          start.await();
          return c.declareTable(id, Optional.of(location), Map.of());
        };
        results.add(pool.submit(declare));
      }
      start.countDown();
      List<TableEntry> winners = new ArrayList<>();
      for (Future<TableEntry> result : results) {
        try {
          winners.add(result.get(60, TimeUnit.SECONDS));
        } catch (ExecutionException e) {
          assertThat(e.getCause()).isInstanceOfAny(TableAlreadyExistsException.class,
              CatalogConcurrentUpdateException.class);
        }
      }
      for (TableEntry one : winners) {
        for (TableEntry other : winners) {
          if (one != other) {
            assertThat(nested(one.location(), other.location()))
                .as("%s at %s and %s at %s", one.id(), one.location(), other.id(), other.location()).isFalse();
          }
        }
      }
      String prefix = "r" + round + "t";
      List<List<String>> live = second.listAllTables(Optional.empty(), 1000, true, t -> true).items().stream()
          .filter(id -> id.get(1).startsWith(prefix)).toList();
      assertThat(live).containsExactlyInAnyOrderElementsOf(winners.stream().map(TableEntry::id).toList());
      // nothing the race left behind blocks a location once its winners are gone
      for (TableEntry winner : winners) {
        first.deregisterTable(winner.id());
      }
      for (String location : List.of(x, x + "/y", x + "/y/z")) {
        List<String> late = List.of("ns", prefix + "late" + location.length());
        assertThat(second.declareTable(late, Optional.of(location), Map.of()).location()).isEqualTo(location);
        first.deregisterTable(late);
      }
    }
  }

  private static boolean nested(String one, String other) {
    return one.equals(other) || one.startsWith(other + "/") || other.startsWith(one + "/");
  }

  @Test
  void noConcurrentUpdateIsLost() throws Exception {
    Path data = dataset("ns/busy.lance");
    List<String> id = List.of("ns", "busy");
    a.registerTable(id, data.toString(), RegisterMode.CREATE, Map.of("writer", "initial"));
    int writers = 8;
    int updatesEach = 4;
    CountDownLatch start = new CountDownLatch(1);
    List<String> succeeded = new java.util.concurrent.CopyOnWriteArrayList<>();
    List<Future<?>> results = new ArrayList<>();
    for (int w = 0; w < writers; w++) {
      Catalog c = w % 2 == 0 ? a : b;
      String name = "w" + w;
      results.add(pool.submit(() -> {
        start.await();
        for (int u = 0; u < updatesEach; u++) {
          String label = name + "-" + u;
          try {
            c.registerTable(id, data.toString(), RegisterMode.OVERWRITE, Map.of("writer", label));
            succeeded.add("registered/writer=" + label);
          } catch (CatalogConcurrentUpdateException tooBusy) {
            // refused as a whole: must leave no trace
          }
        }
        return null;
      }));
    }
    start.countDown();
    for (Future<?> result : results) {
      result.get(60, TimeUnit.SECONDS);
    }
    List<String> history = revisions("ns/_tables/busy");
    // every call that succeeded is exactly one revision, and nothing else was written
    assertThat(history.get(0)).isEqualTo("registered/writer=initial");
    assertThat(history.subList(1, history.size())).containsExactlyInAnyOrderElementsOf(succeeded);
    assertThat(succeeded).isNotEmpty();
    String last = history.get(history.size() - 1);
    assertThat(b.loadTable(id).orElseThrow().properties().get("writer"))
        .isEqualTo(last.substring(last.indexOf('=') + 1));
  }

  // ------------------------------------------------------------ helpers

  private Path dataset(String relative) throws IOException {
    Path dir = root.resolve(relative);
    Files.createDirectories(dir.resolve("_versions"));
    Files.write(dir.resolve("_versions").resolve(ManifestNaming.fileName(ManifestNaming.Scheme.V2, 1)), new byte[] {1});
    return dir;
  }

  /** The revisions of one entry, oldest first, as {@code state/key=value,...}. */
  private List<String> revisions(String entryDir) {
    Path dir = root.resolve("_catalog/tree").resolve(entryDir);
    try (var files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).sorted().map(name -> {
        TableRecord record = CatalogFiles.readTable(name, readBytes(dir.resolve(name)));
        StringBuilder out = new StringBuilder(record.status().wireName()).append('/');
        new java.util.TreeMap<>(record.properties()).forEach((k, v) -> out.append(k).append('=').append(v));
        return out.toString();
      }).toList();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static byte[] readBytes(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
