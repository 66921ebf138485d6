package dev.lancecommit.coordinator.namespace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.coordinator.storage.LocalObjectStore;
import dev.lancecommit.coordinator.storage.ObjectStore;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.storage.StoreUnavailableException;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.testing.FaultInjectingObjectStore;
import dev.lancecommit.testing.FaultInjectingObjectStore.Call;
import dev.lancecommit.testing.FaultInjectingObjectStore.When;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A coordinator killed at each point between the writes that take, use and give back a location (coordinator A, on a
 * store that "kills the process" just before a chosen write), and another coordinator (B) carrying on on the same
 * warehouse. Nothing A leaves behind makes a location unusable or lets two tables keep one.
 */
class LocationRegistryCrashTest {
  @TempDir Path root;
  private InterleavingStore storeA;
  private LocalObjectStore storeB;
  private Catalog a;
  private Catalog b;

  @BeforeEach
  void setUp() {
    storeA = new InterleavingStore(new LocalObjectStore(root));
    storeB = new LocalObjectStore(root);
    a = catalogOn(storeA);
    b = catalogOn(storeB);
    a.createNamespace(List.of("ns"), CreateMode.CREATE, Map.of());
  }

  @AfterEach
  void tearDown() {
    storeA.close();
    storeB.close();
  }

  private static Catalog catalogOn(ObjectStore store) {
    return new Catalog(new StorageLocation(store, ""), Duration.ZERO, Clock.systemUTC());
  }

  @Test
  void aDeclareKilledBetweenClaimAndEntryLeavesTheLocationToTheNextTable() {
    String location = root.resolve("shared/t.lance").toString();
    storeA.killBeforeNextCreate(k -> k.contains("/_tables/t/"));
    assertThatThrownBy(() -> a.declareTable(id("ns", "t"), Optional.of(location), Map.of()))
        .isInstanceOf(InterleavingStore.ProcessKilled.class);
    assertThat(RegistryFiles.claims(root, "shared/t.lance")).containsExactly("held:ns$t@1");
    assertThat(b.loadTable(id("ns", "t"))).isEmpty();

    // B waits for A's claim, then fences revision 1 of A's entry and takes the location
    TableEntry u = b.declareTable(id("ns", "u"), Optional.of(location), Map.of());

    assertThat(b.loadTable(id("ns", "u"))).contains(u);
    assertThat(RegistryFiles.claims(root, "shared/t.lance")).containsExactly("held:ns$t@1", "held:ns$u@1");
    assertThat(RegistryFiles.tableStates(root, "ns", "t")).containsExactly("dropped");
    // the killed table's name is free: its placeholder is not a table
    assertThat(b.listTables(id("ns"), Optional.empty(), 10, true, x -> true).items()).containsExactly("u");
    assertThat(b.declareTable(id("ns", "t"), Optional.empty(), Map.of()).location())
        .isEqualTo(root.resolve("ns/t.lance").toString());
    assertThat(RegistryFiles.tableStates(root, "ns", "t")).containsExactly("dropped", "declared");
  }

  @Test
  void theSameTableDeclaredAgainAfterTheKillGetsItsLocation() {
    storeA.killBeforeNextCreate(k -> k.contains("/_tables/t/"));
    assertThatThrownBy(() -> a.declareTable(id("ns", "t"), Optional.empty(), Map.of()))
        .isInstanceOf(InterleavingStore.ProcessKilled.class);

    TableEntry t = b.declareTable(id("ns", "t"), Optional.empty(), Map.of());

    assertThat(t.location()).isEqualTo(root.resolve("ns/t.lance").toString());
    assertThat(RegistryFiles.claims(root, "ns/t.lance")).containsExactly("held:ns$t@1", "held:ns$t@2");
    assertThat(RegistryFiles.tableStates(root, "ns", "t")).containsExactly("dropped", "declared");
  }

  @Test
  void aRegisterKilledBetweenClaimAndEntryLeavesTheDatasetToTheNextRegister() throws IOException {
    Path data = dataset("data/events.lance");
    storeA.killBeforeNextCreate(k -> k.contains("/_tables/events/"));
    assertThatThrownBy(() -> a.registerTable(id("ns", "events"), data.toString(), RegisterMode.CREATE, Map.of()))
        .isInstanceOf(InterleavingStore.ProcessKilled.class);

    TableEntry other = b.registerTable(id("ns", "other"), data.toString(), RegisterMode.CREATE, Map.of());

    assertThat(b.loadTable(id("ns", "other"))).contains(other);
    assertThat(b.loadTable(id("ns", "events"))).isEmpty();
    assertThatThrownBy(() -> b.registerTable(id("ns", "events"), data.toString(), RegisterMode.CREATE, Map.of()))
        .isInstanceOf(TableAlreadyExistsException.class)
        .hasMessageContaining("ns$other");
  }

  @Test
  void aDropKilledBeforeReleasingItsClaimLeavesAFreeLocation() throws IOException {
    Path data = dataset("ns/t.lance");
    a.registerTable(id("ns", "t"), data.toString(), RegisterMode.CREATE, Map.of());
    storeA.killBeforeNextCreate(k -> k.contains("_catalog/locations/"));
    assertThatThrownBy(() -> a.dropTable(id("ns", "t"))).isInstanceOf(InterleavingStore.ProcessKilled.class);
    assertThat(files(data)).isEmpty();
    assertThat(RegistryFiles.claims(root, "ns/t.lance")).containsExactly("held:ns$t@1");

    // the claim names a dropped table: stale, taken over at once
    TableEntry again = b.declareTable(id("ns", "t"), Optional.empty(), Map.of());
    assertThat(again.location()).isEqualTo(data.toString());
    assertThat(RegistryFiles.claims(root, "ns/t.lance")).containsExactly("held:ns$t@1", "held:ns$t@3");
  }

  @Test
  void aDropKilledBeforeDeletingFilesLeavesTheDatasetRegistrable() throws IOException {
    Path data = dataset("ns/t.lance");
    TableEntry t = a.registerTable(id("ns", "t"), data.toString(), RegisterMode.CREATE, Map.of());
    storeA.beforeNextDelete(k -> true, () -> {
      throw new InterleavingStore.ProcessKilled("before deleting files");
    });
    assertThatThrownBy(() -> a.dropTable(id("ns", "t"))).isInstanceOf(InterleavingStore.ProcessKilled.class);
    assertThat(b.loadTable(id("ns", "t"))).isEmpty();
    assertThat(files(data)).isNotEmpty();

    // the files are still there, so it is a dataset to register (DropTable's entry is final: a new uuid)
    assertThatThrownBy(() -> b.declareTable(id("ns", "u"), Optional.of(data.toString()), Map.of()))
        .isInstanceOf(TableAlreadyExistsException.class)
        .hasMessageContaining("RegisterTable");
    TableEntry back = b.registerTable(id("ns", "u"), data.toString(), RegisterMode.CREATE, Map.of());
    assertThat(back.tableUuid()).isNotEqualTo(t.tableUuid());
    b.dropTable(id("ns", "u"));
    assertThat(files(data)).isEmpty();
  }

  @Test
  void aRenameKilledBetweenItsWritesLetsTheLocationBeRegisteredAgain() throws IOException {
    Path data = dataset("ns/t.lance");
    TableEntry t = a.registerTable(id("ns", "t"), data.toString(), RegisterMode.CREATE, Map.of());
    storeA.killBeforeNextCreate(k -> k.contains("/_tables/v/"));
    assertThatThrownBy(() -> a.renameTable(id("ns", "t"), id("ns", "v")))
        .isInstanceOf(InterleavingStore.ProcessKilled.class);
    assertThat(b.loadTable(id("ns", "t"))).isEmpty();
    assertThat(b.loadTable(id("ns", "v"))).isEmpty();

    // another name for the dataset: the rename's arrival (revision 1 of v) is fenced, so it can never land
    TableEntry w = b.registerTable(id("ns", "w"), data.toString(), RegisterMode.CREATE, Map.of());
    assertThat(w.tableUuid()).isNotEqualTo(t.tableUuid());
    assertThat(RegistryFiles.tableStates(root, "ns", "v")).containsExactly("dropped");
    assertThat(b.loadTable(id("ns", "v"))).isEmpty();
    assertThatThrownBy(() -> b.registerTable(id("ns", "t"), data.toString(), RegisterMode.CREATE, Map.of()))
        .isInstanceOf(TableAlreadyExistsException.class)
        .hasMessageContaining("ns$w");
  }

  @Test
  void aClaimWhoseAnswerIsLostStillCounts() {
    FaultInjectingObjectStore faulty = new FaultInjectingObjectStore(new LocalObjectStore(root));
    Catalog c = catalogOn(faulty);
    faulty.failNext(Call.PUT_IF_ABSENT, 1, When.AFTER, k -> k.contains("/_claims/"),
        FaultInjectingObjectStore.outcomeUnknown());

    TableEntry t = c.declareTable(id("ns", "t"), Optional.empty(), Map.of());

    assertThat(faulty.pendingFaults(Call.PUT_IF_ABSENT)).isZero();
    assertThat(RegistryFiles.claims(root, "ns/t.lance")).containsExactly("held:ns$t@1");
    assertThatThrownBy(() -> b.declareTable(id("ns", "u"), Optional.of(t.location()), Map.of()))
        .isInstanceOf(TableAlreadyExistsException.class)
        .hasMessageContaining("ns$t");
  }

  @Test
  void aClaimThatNeverLandedLeavesNothingBehind() {
    FaultInjectingObjectStore faulty = new FaultInjectingObjectStore(new LocalObjectStore(root));
    Catalog c = catalogOn(faulty);
    faulty.failNext(Call.PUT_IF_ABSENT, 1, When.BEFORE, k -> k.contains("/_claims/"),
        FaultInjectingObjectStore.unavailable());

    assertThatThrownBy(() -> c.declareTable(id("ns", "t"), Optional.empty(), Map.of()))
        .isInstanceOf(StoreUnavailableException.class);

    assertThat(RegistryFiles.claims(root, "ns/t.lance")).isEmpty();
    assertThat(RegistryFiles.tableStates(root, "ns", "t")).isEmpty();
    assertThat(c.declareTable(id("ns", "t"), Optional.empty(), Map.of()).location())
        .isEqualTo(root.resolve("ns/t.lance").toString());
  }

  @Test
  void anEntryWriteThatCertainlyFailedGivesTheClaimBack() {
    FaultInjectingObjectStore faulty = new FaultInjectingObjectStore(new LocalObjectStore(root));
    Catalog c = catalogOn(faulty);
    faulty.failNext(Call.PUT_IF_ABSENT, 1, When.BEFORE, k -> k.contains("/_tables/t/"),
        FaultInjectingObjectStore.unavailable());

    assertThatThrownBy(() -> c.declareTable(id("ns", "t"), Optional.empty(), Map.of()))
        .isInstanceOf(StoreUnavailableException.class);

    assertThat(RegistryFiles.claims(root, "ns/t.lance")).containsExactly("held:ns$t@1", "released:ns$t@1");
    assertThat(RegistryFiles.tableStates(root, "ns", "t")).isEmpty();
  }

  // ------------------------------------------------------------ helpers

  private static List<String> id(String... parts) {
    return List.of(parts);
  }

  private Path dataset(String relative) throws IOException {
    Path dir = root.resolve(relative);
    Files.createDirectories(dir.resolve("_versions"));
    Files.write(dir.resolve("_versions").resolve(ManifestNaming.fileName(ManifestNaming.Scheme.V2, 1)), new byte[] {1});
    return dir;
  }

  private static Map<String, Long> files(Path dir) {
    Map<String, Long> out = new java.util.TreeMap<>();
    if (!Files.exists(dir)) {
      return out;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.filter(Files::isRegularFile).forEach(p -> out.put(dir.relativize(p).toString(), p.toFile().length()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
