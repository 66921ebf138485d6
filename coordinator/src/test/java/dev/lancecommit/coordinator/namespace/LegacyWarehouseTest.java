package dev.lancecommit.coordinator.namespace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.coordinator.storage.LocalObjectStore;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.format.ManifestNaming;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A warehouse written before the location registry existed: catalog entries under {@code _catalog/tree/} exactly as
 * the earlier coordinator wrote them (the JSON below is its format, byte for byte in field names), and no
 * {@code _catalog/locations/}. The first registry decision fills the registry once; every location guarantee holds
 * for the old tables from then on.
 */
class LegacyWarehouseTest {
  @TempDir Path root;
  private LocalObjectStore store;

  @BeforeEach
  void writeOldWarehouse() throws IOException {
    store = new LocalObjectStore(root);
    namespace("ns");
    // a live registered table with data
    dataset("ns/live.lance");
    table("ns", "live", 1, "registered", "ns/live.lance", "u-live", "");
    // a deregistered table whose data is kept, inside a directory nobody uses yet
    dataset("shared/inner.lance");
    table("ns", "inner", 1, "registered", "shared/inner.lance", "u-inner", "");
    table("ns", "inner", 2, "deregistered", "shared/inner.lance", "u-inner", "");
    // a table renamed from ns$old to ns$moved, before renames named the arrival revision
    dataset("ns/old.lance");
    table("ns", "old", 1, "registered", "ns/old.lance", "u-moved", "");
    table("ns", "old", 2, "renamed", "ns/old.lance", "u-moved", ", \"renamed_to\": [\"ns\", \"moved\"]");
    table("ns", "moved", 1, "registered", "ns/old.lance", "u-moved", ", \"renamed_from\": [\"ns\", \"old\"]");
    // a dropped table (files deleted)
    table("ns", "gone", 1, "declared", "ns/gone.lance", "u-gone", "");
    table("ns", "gone", 2, "dropped", "ns/gone.lance", "u-gone", "");
    assertThat(Files.exists(root.resolve("_catalog/locations"))).isFalse();
  }

  @AfterEach
  void tearDown() {
    store.close();
  }

  private Catalog newCatalog() {
    return new Catalog(new StorageLocation(store, ""), Duration.ZERO, Clock.systemUTC());
  }

  @Test
  void theFirstDecisionFillsTheRegistryFromTheOldEntries() {
    Catalog catalog = newCatalog();
    assertThatThrownBy(() -> catalog.declareTable(id("ns", "x"), Optional.of(root.resolve("ns/live.lance/in")
        .toString()), Map.of()))
        .isInstanceOf(TableAlreadyExistsException.class)
        .hasMessageContaining("'ns$live'");

    assertThat(RegistryFiles.claims(root, "ns/live.lance")).containsExactly("held:ns$live@1");
    assertThat(RegistryFiles.claims(root, "shared/inner.lance")).containsExactly("held:ns$inner@2");
    assertThat(RegistryFiles.claims(root, "ns/old.lance")).containsExactly("held:ns$moved@1");
    assertThat(RegistryFiles.claims(root, "ns/gone.lance")).isEmpty();
    assertThat(Files.exists(root.resolve("_catalog/locations/_registry.json"))).isTrue();
  }

  @Test
  void oldTablesKeepEveryLocationGuarantee() throws IOException {
    Catalog catalog = newCatalog();
    // a live old table's location, its inside and a location around it are taken
    assertThatThrownBy(() -> catalog.registerTable(id("ns", "x"), root.resolve("ns/live.lance").toString(),
        RegisterMode.CREATE, Map.of()))
        .isInstanceOf(TableAlreadyExistsException.class)
        .hasMessageContaining("'ns$live'");
    assertThatThrownBy(() -> catalog.registerTable(id("ns", "x"), root.resolve("ns/old.lance").toString(),
        RegisterMode.CREATE, Map.of()))
        .isInstanceOf(TableAlreadyExistsException.class)
        .hasMessageContaining("'ns$moved'");
    assertThatThrownBy(() -> catalog.declareTable(id("ns", "x"), Optional.of(root.resolve("ns").toString()),
        Map.of()))
        .isInstanceOf(TableAlreadyExistsException.class);
    // the deregistered table's data is kept: a table around it may be declared but not dropped
    catalog.declareTable(id("ns", "outer"), Optional.of(root.resolve("shared").toString()), Map.of());
    assertThatThrownBy(() -> catalog.dropTable(id("ns", "outer")))
        .isInstanceOf(TableDropRefusedException.class)
        .hasMessageContaining("deregistered table 'ns$inner'");
    // the dropped table's location is free
    assertThat(catalog.declareTable(id("ns", "gone"), Optional.empty(), Map.of()).location())
        .isEqualTo(root.resolve("ns/gone.lance").toString());
    // the clone source of a branch of the renamed table is found under its new name
    assertThat(catalog.liveTableHolding(root.resolve("ns/old.lance/tree/b1").toString()).map(TableEntry::id))
        .contains(id("ns", "moved"));
    // re-registering the old deregistered table restores it, and DropTable of a live old table deletes its files
    catalog.deregisterTable(id("ns", "outer"));
    assertThat(catalog.registerTable(id("ns", "inner"), root.resolve("shared/inner.lance").toString(),
        RegisterMode.CREATE, Map.of()).tableUuid()).isEqualTo("u-inner");
    catalog.dropTable(id("ns", "live"));
    assertThat(Files.exists(root.resolve("ns/live.lance/_versions")
        .resolve(ManifestNaming.fileName(ManifestNaming.Scheme.V2, 1)))).isFalse();
    catalog.declareTable(id("ns", "live2"), Optional.of(root.resolve("ns/live.lance").toString()), Map.of());
  }

  @Test
  void theRegistryIsFilledOnceAndLaterCoordinatorsOnlyCheckTheMarker() {
    newCatalog().liveTableHolding(root.resolve("ns/live.lance").toString());
    CountingObjectStore counting = new CountingObjectStore(store);
    Catalog later = new Catalog(new StorageLocation(counting, ""), Duration.ZERO, Clock.systemUTC());

    assertThat(later.liveTableHolding(root.resolve("ns/live.lance").toString())).isPresent();

    Map<String, Long> counts = counting.snapshot();
    assertThat(counts.get("head")).isEqualTo(1);
    assertThat(counts).doesNotContainKeys("list", "put", "putIfAbsent");
  }

  @Test
  void aBackfillCutShortIsFinishedByTheNextCoordinator() {
    InterleavingStore dying = new InterleavingStore(store);
    // killed after the first claim was written, before the others and the marker
    dying.beforeNextCreate(k -> k.contains("/_claims/"), () -> dying.killBeforeNextCreate(k -> true));
    Catalog first = new Catalog(new StorageLocation(dying, ""), Duration.ZERO, Clock.systemUTC());
    assertThatThrownBy(() -> first.liveTableHolding(root.resolve("ns/live.lance").toString()))
        .isInstanceOf(InterleavingStore.ProcessKilled.class);
    assertThat(Files.exists(root.resolve("_catalog/locations/_registry.json"))).isFalse();

    Catalog next = newCatalog();
    assertThat(next.liveTableHolding(root.resolve("ns/live.lance").toString())).isPresent();

    assertThat(RegistryFiles.claims(root, "ns/live.lance")).containsExactly("held:ns$live@1");
    assertThat(RegistryFiles.claims(root, "shared/inner.lance")).containsExactly("held:ns$inner@2");
    assertThat(RegistryFiles.claims(root, "ns/old.lance")).containsExactly("held:ns$moved@1");
    assertThat(Files.exists(root.resolve("_catalog/locations/_registry.json"))).isTrue();
  }

  @Test
  void coordinatorsFillingTheRegistryAtOnceWriteEachClaimOnce() throws Exception {
    int coordinators = 4;
    ExecutorService pool = Executors.newFixedThreadPool(coordinators);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Optional<TableEntry>>> results = new ArrayList<>();
      for (int i = 0; i < coordinators; i++) {
        Catalog c = newCatalog();
        Callable<Optional<TableEntry>> lookup = () -> {
          start.await();
          return c.liveTableHolding(root.resolve("ns/old.lance").toString());
        };
        results.add(pool.submit(lookup));
      }
      start.countDown();
      for (Future<Optional<TableEntry>> result : results) {
        assertThat(result.get(60, TimeUnit.SECONDS).map(TableEntry::id)).contains(id("ns", "moved"));
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(RegistryFiles.claims(root, "ns/live.lance")).containsExactly("held:ns$live@1");
    assertThat(RegistryFiles.claims(root, "shared/inner.lance")).containsExactly("held:ns$inner@2");
    assertThat(RegistryFiles.claims(root, "ns/old.lance")).containsExactly("held:ns$moved@1");
  }

  // ------------------------------------------------------------ the old warehouse

  private void namespace(String name) throws IOException {
    write("_catalog/tree/_namespaces/" + name + "/" + CatalogLayout.revisionName(1), """
        {
          "id" : [ "%s" ],
          "revision" : 1,
          "revision_id" : "ns-%s-1",
          "state" : "active",
          "properties" : { },
          "created_at" : "2026-10-01T10:00:00Z",
          "updated_at" : "2026-10-01T10:00:00Z"
        }""".formatted(name, name));
  }

  private void table(String namespace, String name, long revision, String state, String location, String uuid,
      String extra) throws IOException {
    write("_catalog/tree/" + namespace + "/_tables/" + name + "/" + CatalogLayout.revisionName(revision), """
        {
          "id" : [ "%s", "%s" ],
          "revision" : %d,
          "revision_id" : "%s-%s-%d",
          "location" : "%s",
          "table_uuid" : "%s",
          "state" : "%s",
          "properties" : { },
          "created_at" : "2026-10-01T10:00:00Z",
          "updated_at" : "2026-10-01T10:0%d:00Z"%s
        }""".formatted(namespace, name, revision, namespace, name, revision, root.resolve(location), uuid, state,
        revision, extra));
  }

  private void dataset(String relative) throws IOException {
    Path dir = root.resolve(relative);
    Files.createDirectories(dir.resolve("_versions"));
    Files.write(dir.resolve("_versions").resolve(ManifestNaming.fileName(ManifestNaming.Scheme.V2, 1)), new byte[] {1});
  }

  private void write(String relative, String content) throws IOException {
    Path file = root.resolve(relative);
    Files.createDirectories(file.getParent());
    Files.writeString(file, content, StandardCharsets.UTF_8);
  }

  private static List<String> id(String... parts) {
    return List.of(parts);
  }

}
