package dev.lancecommit.coordinator.http;

import static dev.lancecommit.coordinator.http.TagRoutesTest.range;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.coordinator.refs.RefLocks;
import dev.lancecommit.coordinator.retention.RemovalLog;
import dev.lancecommit.coordinator.retention.RetentionPolicy;
import dev.lancecommit.coordinator.retention.TableCleanup;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.testing.lance.LanceTables;
import dev.lancecommit.client.lance.TransactionFactory;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.lance.FragmentMetadata;

/**
 * The retention cleanup on a table the coordinator committed, with a clock the test moves: which versions and files
 * go, and what protects the files of commits in flight (their age) and of versions just deleted (the commit grace).
 */
class RetentionCleanupTest extends LaneServerFixture {
  private static final Duration MIN_AGE = Duration.ofMinutes(30);
  private final AtomicReference<Instant> now = new AtomicReference<>(Instant.now().plus(Duration.ofHours(1)));
  private final Clock clock = new Clock() {
    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now.get();
    }
  };
  private Path root;
  private LanceTables lance;
  private TableRef table;

  /** v1..v5 append 5 rows each, v6 overwrites everything, v7 appends: an hour old by the test's clock. */
  @BeforeEach
  void history() {
    post("/v1/namespace/ns/create", "{}").ok();
    root = Path.of(post("/v1/table/ns$t/declare", "{}").ok().getString("location"));
    lance = LanceTables.local(root);
    commit(TransactionFactory.create(LanceProtos.schema(LanceTables.ROW_SCHEMA),
        LanceProtos.fragments(lance.writeRows(0, 5))));
    for (long v = 1; v <= 4; v++) {
      commit(TransactionFactory.append(v, LanceProtos.fragments(lance.writeRows(5 * v, 5))));
    }
    commit(TransactionFactory.overwrite(5, LanceProtos.schema(LanceTables.ROW_SCHEMA),
        LanceProtos.fragments(lance.writeRows(100, 5))));
    commit(TransactionFactory.append(6, LanceProtos.fragments(lance.writeRows(105, 5))));
    table = catalog.loadTable(List.of("ns", "t")).orElseThrow().toRef();
  }

  @AfterEach
  void closeLance() {
    lance.close();
  }

  @Test
  void oldVersionsAndTheFilesOnlyTheyNamedGoWhileAFileOfACommitInFlightStays() throws Exception {
    List<FragmentMetadata> inFlight = lance.writeRows(200, 2); // written, not committed yet
    Path inFlightFile = newestDataFile();
    Files.setLastModifiedTime(inFlightFile, FileTime.from(now.get().minus(Duration.ofMinutes(1))));
    Set<String> before = files();

    TableCleanup.Result result = cleanup(Duration.ZERO).clean(table, new RetentionPolicy(2, MIN_AGE));

    assertThat(result.versionsRemoved()).isEqualTo(5);
    assertThat(lance.versions()).containsExactly(6L, 7L);
    assertThat(result.dataFilesRemoved()).isEqualTo(5); // the five appended before the overwrite
    assertThat(result.transactionFilesRemoved()).isEqualTo(5);
    assertThat(inFlightFile).exists();
    Set<String> removed = new TreeSet<>(before);
    removed.removeAll(files());
    assertThat(removed).hasSize(15).allMatch(p -> p.startsWith("data/") || p.startsWith("_transactions/")
        || p.startsWith("_versions/"));
    assertThat(lance.readIds(6)).containsExactlyInAnyOrderElementsOf(range(100, 105));
    assertThat(lance.readIds(7)).containsExactlyInAnyOrderElementsOf(range(100, 110));

    // the commit in flight lands and names its file
    commit(TransactionFactory.append(7, LanceProtos.fragments(inFlight)));
    assertThat(lance.readIds(8)).hasSize(12);
  }

  @Test
  void youngVersionsTaggedVersionsAndBranchParentsAreKept() {
    post("/v1/table/ns$t/tags/create", new JsonObject().put("tag", "keep").put("version", 2)).ok();
    post("/v1/table/ns$t/branches/create", new JsonObject().put("name", "dev").put("from_version", 4)).ok();
    TableCleanup cleanup = cleanup(Duration.ZERO);

    now.set(Instant.now()); // everything is younger than the minimum age
    assertThat(cleanup.clean(table, new RetentionPolicy(2, MIN_AGE)).versionsRemoved()).isZero();

    now.set(Instant.now().plus(Duration.ofHours(1)));
    cleanup.clean(table, new RetentionPolicy(2, MIN_AGE));
    assertThat(lance.versions()).containsExactly(2L, 4L, 6L, 7L);
    assertThat(lance.readIds(2)).containsExactlyInAnyOrderElementsOf(range(0, 10));
    // the branch still reads the main-line files of version 4
    try (LanceTables dev = LanceTables.local(root.resolve("tree/dev"))) {
      assertThat(dev.readIds(4)).containsExactlyInAnyOrderElementsOf(range(0, 20));
    }
  }

  @Test
  void filesOfVersionsJustDeletedWaitForTheCommitGrace() throws Exception {
    TableCleanup cleanup = cleanup(Duration.ofMinutes(10));
    Set<String> dataBefore = files("data/");

    TableCleanup.Result first = cleanup.clean(table, new RetentionPolicy(2, MIN_AGE));
    assertThat(first.versionsRemoved()).isEqualTo(5);
    assertThat(first.rootsDeferred()).isEqualTo(1);
    assertThat(first.filesRemoved()).isZero();
    assertThat(files("data/")).isEqualTo(dataBefore);

    now.set(now.get().plus(Duration.ofMinutes(11)));
    TableCleanup.Result later = cleanup.clean(table, new RetentionPolicy(2, MIN_AGE));
    assertThat(later.versionsRemoved()).isZero();
    assertThat(later.dataFilesRemoved()).isEqualTo(5);
    assertThat(later.rootsDeferred()).isZero();
  }

  @Test
  void versionRecordsDeletedOnRequestHaveTheirFilesCollectedByTheCleanup() throws Exception {
    post("/v1/table/ns$t/version/delete", new JsonObject().put("ranges", new io.vertx.core.json.JsonArray()
        .add(new JsonObject().put("start_version", 0).put("end_version", 6)))).ok();
    // nothing more to expire (the policy keeps 10); the files only versions 1..5 named go
    TableCleanup.Result result = cleanup(Duration.ZERO).clean(table, new RetentionPolicy(10, MIN_AGE));
    assertThat(result.versionsRemoved()).isZero();
    assertThat(result.dataFilesRemoved()).isEqualTo(5);
    assertThat(lance.readIds(7)).hasSize(10);
  }

  @Test
  void aManifestThatCannotBeReadStopsTheFileCollection() throws Exception {
    Files.write(root.resolve(ManifestNaming.path(ManifestNaming.Scheme.V2, 6)), new byte[] {1, 2, 3});
    Set<String> dataBefore = files("data/");
    assertThatThrownBy(() -> cleanup(Duration.ZERO).clean(table, new RetentionPolicy(2, MIN_AGE)))
        .isInstanceOf(RuntimeException.class);
    assertThat(files("data/")).isEqualTo(dataBefore);
  }

  private TableCleanup cleanup(Duration grace) {
    RemovalLog removals = new RemovalLog(clock);
    now.set(now.get().plus(grace)); // the coordinator has been up for the grace
    return new TableCleanup(stores::resolve, new RefLocks(), removals, clock, grace);
  }

  private Path newestDataFile() throws Exception {
    try (Stream<Path> files = Files.list(root.resolve("data"))) {
      return files.max((a, b) -> Long.compare(a.toFile().lastModified(), b.toFile().lastModified())).orElseThrow();
    }
  }

  private Set<String> files() throws Exception {
    return files("");
  }

  private Set<String> files(String prefix) throws Exception {
    try (Stream<Path> walk = Files.walk(root)) {
      Set<String> out = new TreeSet<>();
      walk.filter(Files::isRegularFile).map(p -> root.relativize(p).toString())
          .filter(p -> p.startsWith(prefix)).forEach(out::add);
      return out;
    }
  }

  private void commit(Transaction txn) {
    assertThat(postBytes("/v1/table/ns$t/commit", txn.toByteArray()).status()).isEqualTo(200);
  }
}
