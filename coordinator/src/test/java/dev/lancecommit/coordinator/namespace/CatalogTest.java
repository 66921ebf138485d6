package dev.lancecommit.coordinator.namespace;

import dev.lancecommit.coordinator.table.TableVersions;
import dev.lancecommit.format.ManifestNaming;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.coordinator.storage.LocalObjectStore;
import dev.lancecommit.coordinator.storage.StorageLocation;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CatalogTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant NOW = Instant.parse("2026-11-30T10:15:30.123Z");
  /** The documented layout: revisions under _catalog/tree/{parent parts}/_namespaces|_tables/{name}/. */
  private static final String NS = "_catalog/tree/";
  private static final String R1 = "v00000000000000000001.json";

  @TempDir Path root;
  private LocalObjectStore store;
  private Catalog catalog;

  @BeforeEach
  void setUp() {
    store = new LocalObjectStore(root);
    catalog = newCatalog(Duration.ZERO);
  }

  @AfterEach
  void tearDown() {
    store.close();
  }

  private Catalog newCatalog(Duration ttl) {
    return new Catalog(new StorageLocation(store, ""), ttl, Clock.fixed(NOW, ZoneOffset.UTC));
  }

  // ------------------------------------------------------------ namespaces

  @Test
  void createNamespaceWritesItsEntry() throws IOException {
    NamespaceEntry entry = catalog.createNamespace(List.of("sales"), CreateMode.CREATE, Map.of("owner", "ana"));

    assertThat(entry.properties()).containsExactly(Map.entry("owner", "ana"));
    JsonNode file = readJson(NS + "_namespaces/sales/" + R1);
    assertThat(file.get("id").toString()).isEqualTo("[\"sales\"]");
    assertThat(file.get("properties").get("owner").asText()).isEqualTo("ana");
    assertThat(file.get("created_at").asText()).isEqualTo(NOW.toString());
    assertThat(catalog.loadNamespace(List.of("sales"))).contains(entry);
  }

  @Test
  void nestedNamespaceNeedsItsParent() {
    assertThatThrownBy(() -> catalog.createNamespace(List.of("a", "b"), CreateMode.CREATE, Map.of()))
        .isInstanceOf(NamespaceNotFoundException.class)
        .hasMessageContaining("'a'");
    assertThat(catalogFiles()).isEmpty();

    catalog.createNamespace(List.of("a"), CreateMode.CREATE, Map.of());
    catalog.createNamespace(List.of("a", "b"), CreateMode.CREATE, Map.of());
    assertThat(Files.exists(root.resolve(NS + "a/_namespaces/b/" + R1))).isTrue();
    assertThat(catalog.namespaceExists(List.of("a", "b"))).isTrue();
    assertThat(catalog.namespaceExists(List.of("a", "c"))).isFalse();
  }

  @Test
  void createModesOnAnExistingNamespace() {
    catalog.createNamespace(List.of("a"), CreateMode.CREATE, Map.of("v", "1"));

    assertThatThrownBy(() -> catalog.createNamespace(List.of("a"), CreateMode.CREATE, Map.of("v", "2")))
        .isInstanceOf(NamespaceAlreadyExistsException.class);
    assertThat(catalog.createNamespace(List.of("a"), CreateMode.EXIST_OK, Map.of("v", "3")).properties())
        .containsEntry("v", "1");
    assertThat(catalog.createNamespace(List.of("a"), CreateMode.OVERWRITE, Map.of("v", "4")).properties())
        .containsEntry("v", "4");
    assertThat(catalog.loadNamespace(List.of("a")).orElseThrow().properties()).containsEntry("v", "4");
  }

  @Test
  void overwriteRefusesANamespaceThatHoldsTables() {
    catalog.createNamespace(List.of("a"), CreateMode.CREATE, Map.of("v", "1"));
    catalog.declareTable(List.of("a", "t"), Optional.empty(), Map.of());

    assertThatThrownBy(() -> catalog.createNamespace(List.of("a"), CreateMode.OVERWRITE, Map.of("v", "2")))
        .isInstanceOf(NamespaceNotEmptyException.class);
    assertThat(catalog.loadNamespace(List.of("a")).orElseThrow().properties()).containsEntry("v", "1");
    assertThat(catalog.loadTable(List.of("a", "t"))).isPresent();
  }

  @Test
  void rootNamespaceAlwaysExists() {
    assertThat(catalog.loadNamespace(List.of())).hasValueSatisfying(ns -> assertThat(ns.isRoot()).isTrue());
    assertThat(catalog.createNamespace(List.of(), CreateMode.EXIST_OK, Map.of()).isRoot()).isTrue();
    assertThatThrownBy(() -> catalog.createNamespace(List.of(), CreateMode.CREATE, Map.of()))
        .isInstanceOf(NamespaceAlreadyExistsException.class);
    assertThat(catalogFiles()).isEmpty();
  }

  @Test
  void namespaceNamesMayNotEndInDotLance() {
    assertThatThrownBy(() -> catalog.createNamespace(List.of("t.lance"), CreateMode.CREATE, Map.of()))
        .isInstanceOf(InvalidCatalogInputException.class);
    assertThat(catalogFiles()).isEmpty();
  }

  @Test
  void invalidIdentifiersWriteNothing() {
    for (List<String> id : List.of(List.of("_x"), List.of(".x"), List.of(""), List.of("a/b"), List.of("a$b"))) {
      assertThatThrownBy(() -> catalog.createNamespace(id, CreateMode.CREATE, Map.of()))
          .isInstanceOf(InvalidCatalogInputException.class);
      assertThatThrownBy(() -> catalog.declareTable(id, Optional.empty(), Map.of()))
          .isInstanceOf(InvalidCatalogInputException.class);
    }
    assertThat(catalogFiles()).isEmpty();
  }

  @Test
  void idsAreStoredPercentEncoded() {
    catalog.createNamespace(List.of("a b"), CreateMode.CREATE, Map.of());
    catalog.declareTable(List.of("a b", "ü%"), Optional.empty(), Map.of());

    assertThat(Files.exists(root.resolve(NS + "_namespaces/a%20b/" + R1))).isTrue();
    assertThat(Files.exists(root.resolve(NS + "a%20b/_tables/%C3%BC%25/" + R1))).isTrue();
    assertThat(catalog.loadTable(List.of("a b", "ü%")).orElseThrow().location())
        .isEqualTo(root.resolve("a b").resolve("ü%.lance").toString());
  }

  // ------------------------------------------------------------ tables

  @Test
  void declareWritesTheEntryWithTheDefaultLocation() throws IOException {
    catalog.createNamespace(List.of("sales"), CreateMode.CREATE, Map.of());
    TableEntry entry = catalog.declareTable(List.of("sales", "orders"), Optional.empty(), Map.of("k", "v"));

    assertThat(entry.location()).isEqualTo(root.resolve("sales/orders.lance").toString());
    assertThat(entry.state()).isEqualTo(TableEntry.State.DECLARED);
    JsonNode file = readJson(NS + "sales/_tables/orders/" + R1);
    assertThat(file.get("id").toString()).isEqualTo("[\"sales\",\"orders\"]");
    assertThat(file.get("location").asText()).isEqualTo(entry.location());
    assertThat(file.get("table_uuid").asText()).isEqualTo(entry.tableUuid());
    assertThat(file.get("state").asText()).isEqualTo("declared");
    assertThat(file.get("properties").get("k").asText()).isEqualTo("v");
    assertThat(file.get("created_at").asText()).isEqualTo(NOW.toString());
    // declaring touches nothing at the table location
    assertThat(Files.exists(root.resolve("sales"))).isFalse();

    TableRef ref = catalog.loadTable(List.of("sales", "orders")).orElseThrow().toRef();
    assertThat(ref).isEqualTo(new TableRef(List.of("sales", "orders"), entry.location(), entry.tableUuid()));
  }

  @Test
  void tablesDirectlyUnderTheRootAreAllowed() {
    TableEntry entry = catalog.declareTable(List.of("flat"), Optional.empty(), Map.of());
    assertThat(entry.location()).isEqualTo(root.resolve("flat.lance").toString());
    assertThat(entry.namespace()).isEmpty();
  }

  @Test
  void declareNeedsTheNamespaceAndAFreeName() {
    assertThatThrownBy(() -> catalog.declareTable(List.of("nope", "t"), Optional.empty(), Map.of()))
        .isInstanceOf(NamespaceNotFoundException.class);
    assertThat(catalogFiles()).isEmpty();

    catalog.createNamespace(List.of("ns"), CreateMode.CREATE, Map.of());
    TableEntry first = catalog.declareTable(List.of("ns", "t"), Optional.empty(), Map.of());
    assertThatThrownBy(() -> catalog.declareTable(List.of("ns", "t"), Optional.empty(), Map.of("x", "y")))
        .isInstanceOf(TableAlreadyExistsException.class);
    assertThat(catalog.loadTable(List.of("ns", "t"))).contains(first);
  }

  @Test
  void explicitLocationsMustBeInTheWarehouseAndOutsideTheCatalog() {
    String inside = root.resolve("elsewhere/t1").toString();
    assertThat(catalog.declareTable(List.of("t1"), Optional.of(inside + "/"), Map.of()).location()).isEqualTo(inside);
    assertThat(catalog.declareTable(List.of("t2"), Optional.of(root.resolve("x/t2").toUri().toString()), Map.of())
        .location()).isEqualTo(root.resolve("x/t2").toString());

    for (String bad : List.of("/somewhere/else", "s3://bucket/t", root.toString(), root + "/_catalog/t",
        root + "/a/../../etc", "relative/path", "")) {
      assertThatThrownBy(() -> catalog.declareTable(List.of("bad"), Optional.of(bad), Map.of()))
          .as(bad)
          .isInstanceOf(InvalidCatalogInputException.class);
    }
    assertThat(catalog.loadTable(List.of("bad"))).isEmpty();
  }

  @Test
  void registerNeedsALanceDatasetAtTheLocation() throws IOException {
    Path dataset = root.resolve("data/events.lance");
    Files.createDirectories(dataset.resolve("_versions"));
    Files.writeString(dataset.resolve("_versions/latest_version_hint.json"), "{}");

    assertThatThrownBy(() -> catalog.registerTable(List.of("events"), dataset.toString(), RegisterMode.CREATE,
        Map.of()))
        .isInstanceOf(InvalidCatalogInputException.class)
        .hasMessageContaining("no Lance dataset");
    assertThat(catalogFiles()).isEmpty();

    Files.write(dataset.resolve("_versions/1.manifest"), new byte[] {1});
    TableEntry entry = catalog.registerTable(List.of("events"), dataset.toString(), RegisterMode.CREATE, Map.of());
    assertThat(entry.state()).isEqualTo(TableEntry.State.REGISTERED);
    assertThat(readJson(NS + "_tables/events/" + R1).get("state").asText()).isEqualTo("registered");
    assertThat(catalog.listVersions(entry).latest()).hasValue(1);
  }

  @Test
  void registerModes() throws IOException {
    Path a = dataset("a.lance", "1.manifest");
    Path b = dataset("b.lance", "1.manifest");
    TableEntry first = catalog.registerTable(List.of("t"), a.toString(), RegisterMode.CREATE, Map.of());

    assertThatThrownBy(() -> catalog.registerTable(List.of("t"), b.toString(), RegisterMode.CREATE, Map.of()))
        .isInstanceOf(TableAlreadyExistsException.class);
    assertThat(catalog.loadTable(List.of("t"))).contains(first);

    TableEntry sameLocation = catalog.registerTable(List.of("t"), a.toString(), RegisterMode.OVERWRITE,
        Map.of("p", "1"));
    assertThat(sameLocation.tableUuid()).isEqualTo(first.tableUuid());
    assertThat(sameLocation.properties()).containsEntry("p", "1");

    TableEntry moved = catalog.registerTable(List.of("t"), b.toString(), RegisterMode.OVERWRITE, Map.of());
    assertThat(moved.tableUuid()).isNotEqualTo(first.tableUuid());
    assertThat(catalog.loadTable(List.of("t"))).contains(moved);
  }

  @Test
  void registerOverwriteReplacesADeclaration() throws IOException {
    TableEntry declared = catalog.declareTable(List.of("t"), Optional.empty(), Map.of());
    Path location = Path.of(declared.location());
    Files.createDirectories(location.resolve("_versions"));
    Files.write(location.resolve("_versions").resolve(ManifestNaming.fileName(ManifestNaming.Scheme.V2, 1)), new byte[] {1});

    TableEntry registered = catalog.registerTable(List.of("t"), declared.location(), RegisterMode.OVERWRITE,
        Map.of());
    assertThat(registered.state()).isEqualTo(TableEntry.State.REGISTERED);
    assertThat(registered.tableUuid()).isEqualTo(declared.tableUuid());
  }

  @Test
  void listVersionsReadsBothNamingSchemesAndIgnoresTheRest() throws IOException {
    Path v1 = dataset("v1.lance", "1.manifest", "2.manifest", "10.manifest", "latest_version_hint.json",
        ".tmp_11.manifest_abc", "d9223372036854775850.manifest");
    Path v2 = dataset("v2.lance", ManifestNaming.fileName(ManifestNaming.Scheme.V2, 1), ManifestNaming.fileName(ManifestNaming.Scheme.V2, 2), ManifestNaming.fileName(ManifestNaming.Scheme.V2, 3),
        "latest_version_hint.json");
    TableEntry t1 = catalog.registerTable(List.of("one"), v1.toString(), RegisterMode.CREATE, Map.of());
    TableEntry t2 = catalog.registerTable(List.of("two"), v2.toString(), RegisterMode.CREATE, Map.of());

    TableVersions versions1 = catalog.listVersions(t1);
    assertThat(versions1.latest()).hasValue(10);
    assertThat(versions1.size()).isEqualTo(3);
    assertThat(versions1.contains(2)).isTrue();
    assertThat(versions1.contains(11)).isFalse();
    assertThat(catalog.listVersions(t2).latest()).hasValue(3);

    TableEntry declared = catalog.declareTable(List.of("empty"), Optional.empty(), Map.of());
    assertThat(catalog.listVersions(declared).isEmpty()).isTrue();
  }

  @Test
  void tableUriIsACompleteUri() {
    TableEntry entry = catalog.declareTable(List.of("with space"), Optional.empty(), Map.of());
    String uri = catalog.tableUri(entry);
    assertThat(uri).startsWith("file:///").contains("with%20space.lance");
    assertThat(Path.of(java.net.URI.create(uri))).isEqualTo(Path.of(entry.location()));
  }

  @Test
  void warehouseBelowTheStoreRoot() {
    Catalog nested = new Catalog(new StorageLocation(store, "wh"), Duration.ZERO, Clock.systemUTC());
    nested.createNamespace(List.of("ns"), CreateMode.CREATE, Map.of());
    TableEntry entry = nested.declareTable(List.of("ns", "t"), Optional.empty(), Map.of());

    assertThat(Files.exists(root.resolve("wh/" + NS + "_namespaces/ns/" + R1))).isTrue();
    assertThat(Files.exists(root.resolve("wh/" + NS + "ns/_tables/t/" + R1))).isTrue();
    assertThat(entry.location()).isEqualTo(root.resolve("wh/ns/t.lance").toString());
    assertThatThrownBy(() -> nested.declareTable(List.of("x"), Optional.of(root + "/wh/_catalog/x"), Map.of()))
        .isInstanceOf(InvalidCatalogInputException.class);
  }

  // ------------------------------------------------------------ sharing one warehouse

  @Test
  void twoCatalogsOnOneWarehouseNeverBothCreateAnEntry() throws Exception {
    Catalog other = newCatalog(Duration.ZERO);
    int attempts = 8;
    ExecutorService pool = Executors.newFixedThreadPool(attempts);
    try {
      for (int round = 0; round < 5; round++) {
        List<String> id = List.of("race" + round);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<TableEntry>> results = new ArrayList<>();
        for (int i = 0; i < attempts; i++) {
          Catalog c = i % 2 == 0 ? catalog : other;
          Callable<TableEntry> declare = () -> {
            start.await();
            return c.declareTable(id, Optional.empty(), Map.of());
          };
          results.add(pool.submit(declare));
        }
        start.countDown();
        List<TableEntry> winners = new ArrayList<>();
        int refused = 0;
        for (Future<TableEntry> result : results) {
          try {
            winners.add(result.get());
          } catch (java.util.concurrent.ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(TableAlreadyExistsException.class);
            refused++;
          }
        }
        assertThat(winners).hasSize(1);
        assertThat(refused).isEqualTo(attempts - 1);
        assertThat(other.loadTable(id)).contains(winners.get(0));
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void tableLookupsAreCachedForTheirTtl() throws IOException {
    Catalog cached = newCatalog(Duration.ofHours(1));
    Path a = dataset("a.lance", "1.manifest");
    Path b = dataset("b.lance", "1.manifest");
    TableEntry first = cached.registerTable(List.of("t"), a.toString(), RegisterMode.CREATE, Map.of());
    assertThat(cached.loadTable(List.of("t"))).contains(first);

    TableEntry replaced = catalog.registerTable(List.of("t"), b.toString(), RegisterMode.OVERWRITE, Map.of());

    assertThat(cached.loadTable(List.of("t"))).contains(first);
    assertThat(catalog.loadTable(List.of("t"))).contains(replaced);
    assertThat(newCatalog(Duration.ofHours(1)).loadTable(List.of("t"))).contains(replaced);
  }

  @Test
  void unknownTablesAreNotCached() {
    Catalog cached = newCatalog(Duration.ofHours(1));
    assertThat(cached.loadTable(List.of("late"))).isEmpty();
    TableEntry entry = catalog.declareTable(List.of("late"), Optional.empty(), Map.of());
    assertThat(cached.loadTable(List.of("late"))).contains(entry);
  }

  @Test
  void corruptEntriesAreReportedNotGuessed() throws IOException {
    Files.createDirectories(root.resolve(NS + "_tables/t"));
    Files.writeString(root.resolve(NS + "_tables/t/" + R1), "{\"id\": [\"t\"]");
    assertThatThrownBy(() -> catalog.loadTable(List.of("t")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(NS + "_tables/t/" + R1);
  }

  // ------------------------------------------------------------ helpers

  private Path dataset(String name, String... versionFiles) throws IOException {
    Path dir = root.resolve(name);
    Files.createDirectories(dir.resolve("_versions"));
    for (String file : versionFiles) {
      Files.write(dir.resolve("_versions").resolve(file), new byte[] {1});
    }
    return dir;
  }

  private JsonNode readJson(String key) throws IOException {
    return JSON.readTree(Files.readString(root.resolve(key), StandardCharsets.UTF_8));
  }

  private Map<String, Long> catalogFiles() {
    Path dir = root.resolve("_catalog");
    Map<String, Long> files = new TreeMap<>();
    if (!Files.exists(dir)) {
      return files;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.filter(Files::isRegularFile).forEach(p -> files.put(root.relativize(p).toString(), p.toFile().length()));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return files;
  }
}
