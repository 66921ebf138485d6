package dev.lancecommit.coordinator.namespace;

import dev.lancecommit.coordinator.table.VersionFile;
import dev.lancecommit.format.ManifestNaming;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.coordinator.storage.LocalObjectStore;
import dev.lancecommit.coordinator.storage.StorageLocation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Deregister, drop, rename, namespace drops and listings of the catalog, on a real local store. */
class CatalogLifecycleTest {
  @TempDir Path root;
  private LocalObjectStore store;
  private Catalog catalog;

  @BeforeEach
  void setUp() {
    store = new LocalObjectStore(root);
    catalog = new Catalog(new StorageLocation(store, ""), Duration.ZERO, Clock.systemUTC());
    catalog.createNamespace(List.of("ns"), CreateMode.CREATE, Map.of());
  }

  @AfterEach
  void tearDown() {
    store.close();
  }

  // ------------------------------------------------------------ deregister

  @Test
  void deregisterKeepsTheDataAndRegisteringTheSameLocationRestoresTheUuid() throws IOException {
    Path data = dataset("data/events.lance", 1, 2);
    Map<String, String> filesBefore = files(data);
    TableEntry registered = catalog.registerTable(id("ns", "events"), data.toString(), RegisterMode.CREATE,
        Map.of("p", "1"));

    TableEntry removed = catalog.deregisterTable(id("ns", "events"));

    assertThat(removed).isEqualTo(registered);
    assertThat(catalog.loadTable(id("ns", "events"))).isEmpty();
    assertThat(files(data)).isEqualTo(filesBefore);
    assertThat(catalog.listTables(id("ns"), Optional.empty(), 10, true, t -> true).items()).isEmpty();
    assertThatThrownBy(() -> catalog.deregisterTable(id("ns", "events"))).isInstanceOf(TableNotFoundException.class);

    TableEntry back = catalog.registerTable(id("ns", "events"), data.toString(), RegisterMode.CREATE, Map.of());
    assertThat(back.tableUuid()).isEqualTo(registered.tableUuid());
    assertThat(back.createdAt()).isEqualTo(registered.createdAt());
    assertThat(back.properties()).isEmpty();

    catalog.deregisterTable(id("ns", "events"));
    Path other = dataset("data/other.lance", 1);
    TableEntry elsewhere = catalog.registerTable(id("ns", "events"), other.toString(), RegisterMode.CREATE, Map.of());
    assertThat(elsewhere.tableUuid()).isNotEqualTo(registered.tableUuid());
  }

  @Test
  void aDeregisteredDeclarationCanBeDeclaredAgain() {
    TableEntry first = catalog.declareTable(id("ns", "t"), Optional.empty(), Map.of());
    catalog.deregisterTable(id("ns", "t"));
    TableEntry second = catalog.declareTable(id("ns", "t"), Optional.empty(), Map.of("v", "2"));
    assertThat(second.location()).isEqualTo(first.location());
    assertThat(second.tableUuid()).isNotEqualTo(first.tableUuid());
    assertThat(catalog.loadTable(id("ns", "t"))).contains(second);
  }

  @Test
  void declareRefusesALocationThatAlreadyHoldsADataset() {
    dataset("ns/t.lance", 1);
    Map<String, String> before = catalogFiles();
    assertThatThrownBy(() -> catalog.declareTable(id("ns", "t"), Optional.empty(), Map.of()))
        .isInstanceOf(TableAlreadyExistsException.class)
        .hasMessageContaining("RegisterTable");
    assertThat(catalogFiles()).isEqualTo(before);
  }

  @Test
  void twoTablesNeverShareALocation() {
    TableEntry t = catalog.declareTable(id("ns", "t"), Optional.empty(), Map.of());
    Map<String, String> before = catalogFiles();
    for (String location : List.of(t.location(), t.location() + "/inner", root.resolve("ns").toString())) {
      assertThatThrownBy(() -> catalog.declareTable(id("ns", "u"), Optional.of(location), Map.of()))
          .as(location)
          .isInstanceOf(TableAlreadyExistsException.class)
          .hasMessageContaining("'ns$t'");
    }
    Path data = dataset("shared.lance", 1);
    catalog.registerTable(id("ns", "a"), data.toString(), RegisterMode.CREATE, Map.of());
    before = catalogFiles();
    assertThatThrownBy(() -> catalog.registerTable(id("ns", "b"), data.toString(), RegisterMode.CREATE, Map.of()))
        .isInstanceOf(TableAlreadyExistsException.class);
    assertThat(catalogFiles()).isEqualTo(before);
    // the same table may be registered over itself
    assertThat(catalog.registerTable(id("ns", "a"), data.toString(), RegisterMode.OVERWRITE, Map.of("x", "y"))
        .properties()).containsEntry("x", "y");
  }

  // ------------------------------------------------------------ drop table

  @Test
  void dropTableDeletesEveryFileUnderItsLocationAndNothingElse() throws IOException {
    Path data = dataset("ns/orders.lance", 1, 2, 3);
    Files.createDirectories(data.resolve("data"));
    Files.write(data.resolve("data/part-0.lance"), new byte[] {1, 2, 3});
    Files.write(data.resolve("_transactions/0-x.txn"), new byte[] {4});
    Path neighbour = dataset("ns/orders2.lance", 1);
    Map<String, String> neighbourFiles = files(neighbour);
    catalog.registerTable(id("ns", "orders"), data.toString(), RegisterMode.CREATE, Map.of());
    catalog.registerTable(id("ns", "orders2"), neighbour.toString(), RegisterMode.CREATE, Map.of());

    TableEntry dropped = catalog.dropTable(id("ns", "orders"));

    assertThat(dropped.location()).isEqualTo(data.toString());
    assertThat(files(data)).isEmpty();
    assertThat(files(neighbour)).isEqualTo(neighbourFiles);
    assertThat(catalog.loadTable(id("ns", "orders"))).isEmpty();
    assertThat(catalog.loadTable(id("ns", "orders2"))).isPresent();
    assertThatThrownBy(() -> catalog.dropTable(id("ns", "orders"))).isInstanceOf(TableNotFoundException.class);
    // the name and the location are free again; the new table is a new table
    TableEntry again = catalog.declareTable(id("ns", "orders"), Optional.empty(), Map.of());
    assertThat(again.tableUuid()).isNotEqualTo(dropped.tableUuid());
  }

  @Test
  void dropTableRefusesLocationsOutsideTheWarehouse() {
    Catalog nested = new Catalog(new StorageLocation(store, "wh"), Duration.ZERO, Clock.systemUTC());
    Path outside = dataset("elsewhere/t.lance", 1);
    Map<String, String> outsideFiles = files(outside);
    nested.registerTable(id("t"), outside.toString(), RegisterMode.CREATE, Map.of());
    Map<String, String> before = files(root.resolve("wh/_catalog"));

    assertThatThrownBy(() -> nested.dropTable(id("t")))
        .isInstanceOf(TableDropRefusedException.class)
        .hasMessageContaining("outside the warehouse");
    assertThat(files(outside)).isEqualTo(outsideFiles);
    assertThat(files(root.resolve("wh/_catalog"))).isEqualTo(before);
    assertThat(nested.loadTable(id("t"))).isPresent();
    // deregistering is the way out, and keeps the files
    nested.deregisterTable(id("t"));
    assertThat(files(outside)).isEqualTo(outsideFiles);
  }

  @Test
  void dropTableRefusesToDeleteFilesADeregisteredTableStillOwns() {
    Path inner = dataset("shared/inner.lance", 1);
    catalog.registerTable(id("ns", "inner"), inner.toString(), RegisterMode.CREATE, Map.of());
    catalog.deregisterTable(id("ns", "inner"));
    catalog.declareTable(id("ns", "outer"), Optional.of(root.resolve("shared").toString()), Map.of());
    Map<String, String> innerFiles = files(inner);

    assertThatThrownBy(() -> catalog.dropTable(id("ns", "outer")))
        .isInstanceOf(TableDropRefusedException.class)
        .hasMessageContaining("deregistered table 'ns$inner'");
    assertThat(files(inner)).isEqualTo(innerFiles);
    assertThat(catalog.loadTable(id("ns", "outer"))).isPresent();
  }

  @Test
  void aDatasetRegisteredUnderANewNameCanBeDroppedDespiteItsOldDeregisteredEntry() {
    Path data = dataset("moved.lance", 1);
    catalog.registerTable(id("ns", "old"), data.toString(), RegisterMode.CREATE, Map.of());
    catalog.deregisterTable(id("ns", "old"));
    catalog.registerTable(id("ns", "new"), data.toString(), RegisterMode.CREATE, Map.of());
    catalog.dropTable(id("ns", "new"));
    assertThat(files(data)).isEmpty();
  }

  // ------------------------------------------------------------ rename

  @Test
  void renameKeepsLocationUuidAndPropertiesAndFreesTheOldName() {
    Path data = dataset("ns/t.lance", 1);
    Map<String, String> dataFiles = files(data);
    TableEntry before = catalog.registerTable(id("ns", "t"), data.toString(), RegisterMode.CREATE, Map.of("k", "v"));
    catalog.createNamespace(List.of("other"), CreateMode.CREATE, Map.of());

    TableEntry renamed = catalog.renameTable(id("ns", "t"), id("ns", "u"));
    assertThat(renamed.id()).isEqualTo(id("ns", "u"));
    assertThat(renamed.location()).isEqualTo(before.location());
    assertThat(renamed.tableUuid()).isEqualTo(before.tableUuid());
    assertThat(renamed.properties()).isEqualTo(before.properties());
    assertThat(renamed.state()).isEqualTo(TableEntry.State.REGISTERED);
    assertThat(catalog.loadTable(id("ns", "t"))).isEmpty();
    assertThat(catalog.loadTable(id("ns", "u"))).contains(renamed);

    TableEntry moved = catalog.renameTable(id("ns", "u"), id("other", "t2"));
    assertThat(moved.tableUuid()).isEqualTo(before.tableUuid());
    assertThat(catalog.listTables(id("ns"), Optional.empty(), 10, true, x -> true).items()).isEmpty();
    assertThat(catalog.listTables(id("other"), Optional.empty(), 10, true, x -> true).items()).containsExactly("t2");
    assertThat(files(data)).isEqualTo(dataFiles);
    // the old default location is still in use, so the old name cannot be declared at it
    assertThatThrownBy(() -> catalog.declareTable(id("ns", "t"), Optional.empty(), Map.of()))
        .isInstanceOf(TableAlreadyExistsException.class);
  }

  @Test
  void renameRefusalsChangeNothing() {
    catalog.declareTable(id("ns", "a"), Optional.empty(), Map.of());
    catalog.declareTable(id("ns", "b"), Optional.empty(), Map.of());
    Map<String, String> before = catalogFiles();

    assertThatThrownBy(() -> catalog.renameTable(id("ns", "a"), id("ns", "b")))
        .isInstanceOf(TableAlreadyExistsException.class);
    assertThatThrownBy(() -> catalog.renameTable(id("ns", "a"), id("ghost", "a")))
        .isInstanceOf(NamespaceNotFoundException.class);
    assertThatThrownBy(() -> catalog.renameTable(id("ns", "zz"), id("ns", "c")))
        .isInstanceOf(TableNotFoundException.class);
    assertThatThrownBy(() -> catalog.renameTable(id("ns", "a"), id("ns", "a")))
        .isInstanceOf(InvalidCatalogInputException.class);
    assertThatThrownBy(() -> catalog.renameTable(id("ns", "a"), id("ns", "_bad")))
        .isInstanceOf(InvalidCatalogInputException.class);
    assertThat(catalogFiles()).isEqualTo(before);
  }

  // ------------------------------------------------------------ drop namespace

  @Test
  void restrictRefusesANamespaceWithContentAndDropsAnEmptyOne() {
    catalog.createNamespace(List.of("ns", "child"), CreateMode.CREATE, Map.of());
    Map<String, String> before = catalogFiles();
    assertThatThrownBy(() -> catalog.dropNamespace(id("ns"), DropMode.FAIL, DropBehavior.RESTRICT))
        .isInstanceOf(NamespaceNotEmptyException.class)
        .hasMessageContaining("'ns$child'");
    assertThat(catalogFiles()).isEqualTo(before);

    assertThat(catalog.dropNamespace(id("ns", "child"), DropMode.FAIL, DropBehavior.RESTRICT)).isPresent();
    NamespaceEntry dropped = catalog.dropNamespace(id("ns"), DropMode.FAIL, DropBehavior.RESTRICT).orElseThrow();
    assertThat(dropped.id()).isEqualTo(id("ns"));
    assertThat(catalog.namespaceExists(id("ns"))).isFalse();
    assertThatThrownBy(() -> catalog.dropNamespace(id("ns"), DropMode.FAIL, DropBehavior.RESTRICT))
        .isInstanceOf(NamespaceNotFoundException.class);
    assertThat(catalog.dropNamespace(id("ns"), DropMode.SKIP, DropBehavior.RESTRICT)).isEmpty();
    assertThatThrownBy(() -> catalog.declareTable(id("ns", "t"), Optional.empty(), Map.of()))
        .isInstanceOf(NamespaceNotFoundException.class);
    // and it can be created again, with fresh properties
    assertThat(catalog.createNamespace(id("ns"), CreateMode.CREATE, Map.of("v", "2")).properties())
        .containsEntry("v", "2");
  }

  @Test
  void cascadeDeregistersEveryTableBelowAndKeepsTheirData() {
    catalog.createNamespace(List.of("ns", "a"), CreateMode.CREATE, Map.of());
    catalog.createNamespace(List.of("ns", "a", "b"), CreateMode.CREATE, Map.of());
    Path top = dataset("ns/top.lance", 1);
    Path deep = dataset("ns/a/b/deep.lance", 1, 2);
    TableEntry topEntry = catalog.registerTable(id("ns", "top"), top.toString(), RegisterMode.CREATE, Map.of());
    catalog.registerTable(id("ns", "a", "b", "deep"), deep.toString(), RegisterMode.CREATE, Map.of());
    catalog.declareTable(id("ns", "a", "declared"), Optional.empty(), Map.of());
    TableEntry outside = catalog.declareTable(id("kept"), Optional.empty(), Map.of());
    Map<String, String> data = new TreeMap<>(files(top));
    data.putAll(files(deep));

    assertThat(catalog.dropNamespace(id("ns"), DropMode.FAIL, DropBehavior.CASCADE)).isPresent();

    for (List<String> ns : List.of(id("ns"), id("ns", "a"), id("ns", "a", "b"))) {
      assertThat(catalog.namespaceExists(ns)).as("%s", ns).isFalse();
    }
    for (List<String> t : List.of(id("ns", "top"), id("ns", "a", "b", "deep"), id("ns", "a", "declared"))) {
      assertThat(catalog.loadTable(t)).as("%s", t).isEmpty();
    }
    assertThat(catalog.loadTable(id("kept"))).contains(outside);
    Map<String, String> after = new TreeMap<>(files(top));
    after.putAll(files(deep));
    assertThat(after).isEqualTo(data);
    assertThat(catalog.listAllTables(Optional.empty(), 100, true, t -> true).items()).containsExactly(id("kept"));

    catalog.createNamespace(id("ns"), CreateMode.CREATE, Map.of());
    assertThat(catalog.registerTable(id("ns", "top"), top.toString(), RegisterMode.CREATE, Map.of()).tableUuid())
        .isEqualTo(topEntry.tableUuid());
  }

  @Test
  void theRootNamespaceCannotBeDropped() {
    assertThatThrownBy(() -> catalog.dropNamespace(List.of(), DropMode.SKIP, DropBehavior.CASCADE))
        .isInstanceOf(InvalidCatalogInputException.class);
    assertThat(catalog.namespaceExists(id("ns"))).isTrue();
  }

  // ------------------------------------------------------------ listings

  @Test
  void listingsPageInAFixedOrder() {
    for (String name : List.of("e", "b", "d", "a", "c")) {
      catalog.createNamespace(id("ns", name), CreateMode.CREATE, Map.of());
      catalog.declareTable(id("ns", name + "t"), Optional.empty(), Map.of());
    }
    catalog.declareTable(id("top"), Optional.empty(), Map.of());

    assertThat(CatalogLifecycleTest.<String>pages(after -> catalog.listNamespaces(id("ns"), after, 2, x -> true)))
        .containsExactly(List.of("a", "b"), List.of("c", "d"), List.of("e"));
    assertThat(CatalogLifecycleTest.<String>pages(after -> catalog.listTables(id("ns"), after, 3, true, x -> true)))
        .containsExactly(List.of("at", "bt", "ct"), List.of("dt", "et"));
    assertThat(catalog.listNamespaces(List.of(), Optional.empty(), 10, x -> true).items()).containsExactly("ns");
    assertThat(catalog.listTables(List.of(), Optional.empty(), 10, true, x -> true).items()).containsExactly("top");

    List<List<String>> all = new ArrayList<>();
    Optional<List<String>> after = Optional.empty();
    do {
      Page<List<String>> page = catalog.listAllTables(after, 4, true, x -> true);
      all.addAll(page.items());
      after = page.resumeAfter();
    } while (after.isPresent());
    assertThat(all).containsExactly(id("ns", "at"), id("ns", "bt"), id("ns", "ct"), id("ns", "dt"), id("ns", "et"),
        id("top"));

    // an item added before the cursor does not shift the next page
    Page<String> first = catalog.listNamespaces(id("ns"), Optional.empty(), 2, x -> true);
    catalog.createNamespace(id("ns", "aa"), CreateMode.CREATE, Map.of());
    assertThat(catalog.listNamespaces(id("ns"), first.resumeAfter(), 2, x -> true).items())
        .containsExactly("c", "d");
  }

  @Test
  void listingsFilterByVisibilityStateAndData() {
    catalog.declareTable(id("ns", "declared"), Optional.empty(), Map.of());
    catalog.registerTable(id("ns", "registered"), dataset("r.lance", 1).toString(), RegisterMode.CREATE, Map.of());
    TableEntry written = catalog.declareTable(id("ns", "written"), Optional.empty(), Map.of());
    dataset(root.relativize(Path.of(written.location())).toString(), 1);
    catalog.declareTable(id("ns", "gone"), Optional.empty(), Map.of());
    catalog.deregisterTable(id("ns", "gone"));
    catalog.declareTable(id("ns", "secret"), Optional.empty(), Map.of());

    assertThat(catalog.listTables(id("ns"), Optional.empty(), 10, true, t -> !t.contains("secret")).items())
        .containsExactly("declared", "registered", "written");
    assertThat(catalog.listTables(id("ns"), Optional.empty(), 10, false, t -> true).items())
        .containsExactly("registered", "written");
    assertThat(catalog.listAllTables(Optional.empty(), 10, false, t -> true).items())
        .containsExactly(id("ns", "registered"), id("ns", "written"));
  }

  @Test
  void listingRefusals() {
    assertThatThrownBy(() -> catalog.listTables(id("ghost"), Optional.empty(), 10, true, t -> true))
        .isInstanceOf(NamespaceNotFoundException.class);
    assertThatThrownBy(() -> catalog.listNamespaces(id("ghost"), Optional.empty(), 10, t -> true))
        .isInstanceOf(NamespaceNotFoundException.class);
    assertThatThrownBy(() -> catalog.listNamespaces(id("ns"), Optional.empty(), 0, t -> true))
        .isInstanceOf(InvalidCatalogInputException.class);
  }

  @Test
  void aCorruptEntryIsSkippedByListingsButReportedWhenRead() throws IOException {
    catalog.declareTable(id("ns", "good"), Optional.empty(), Map.of());
    Path broken = root.resolve("_catalog/tree/ns/_tables/broken/v00000000000000000001.json");
    Files.createDirectories(broken.getParent());
    Files.writeString(broken, "{not json");

    assertThat(catalog.listTables(id("ns"), Optional.empty(), 10, true, t -> true).items()).containsExactly("good");
    assertThat(catalog.liveTables()).extracting(TableEntry::id).containsExactly(id("ns", "good"));
    assertThatThrownBy(() -> catalog.loadTable(id("ns", "broken")))
        .isInstanceOf(CorruptCatalogEntryException.class);
  }

  // ------------------------------------------------------------ versions

  @Test
  void versionFilesListBothNamingSchemesWithSizes() throws IOException {
    Path v2 = dataset("v2.lance", 1, 2, 3);
    Files.write(v2.resolve("_versions/latest_version_hint.json"), new byte[] {9, 9});
    TableEntry entry = catalog.registerTable(id("ns", "t"), v2.toString(), RegisterMode.CREATE, Map.of());

    List<VersionFile> versions = catalog.versionFiles(entry);
    assertThat(versions).extracting(VersionFile::version).containsExactly(1L, 2L, 3L);
    assertThat(versions.get(0).manifestUri())
        .isEqualTo(v2.resolve("_versions/" + ManifestNaming.fileName(ManifestNaming.Scheme.V2, 1)).toString());
    assertThat(versions).allSatisfy(v -> assertThat(v.size()).isEqualTo(1));
    assertThatThrownBy(() -> catalog.readManifest(entry, 4)).isInstanceOf(TableVersionNotFoundException.class);
  }

  // ------------------------------------------------------------ helpers

  private interface Lister<T> {
    Page<T> page(Optional<T> after);
  }

  private static <T> List<List<T>> pages(Lister<T> lister) {
    List<List<T>> pages = new ArrayList<>();
    Optional<T> after = Optional.empty();
    do {
      Page<T> page = lister.page(after);
      pages.add(page.items());
      after = page.resumeAfter();
    } while (after.isPresent());
    return pages;
  }

  private static List<String> id(String... parts) {
    return List.of(parts);
  }

  /** A directory that looks like a Lance dataset: V2 manifest names for the given versions. */
  private Path dataset(String relative, long... versions) {
    Path dir = root.resolve(relative);
    try {
      Files.createDirectories(dir.resolve("_versions"));
      Files.createDirectories(dir.resolve("_transactions"));
      for (long version : versions) {
        Files.write(dir.resolve("_versions").resolve(ManifestNaming.fileName(ManifestNaming.Scheme.V2, version)), new byte[] {1});
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return dir;
  }

  private static Map<String, String> files(Path dir) {
    Map<String, String> out = new TreeMap<>();
    if (!Files.exists(dir)) {
      return out;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.filter(Files::isRegularFile).forEach(p -> {
        try {
          out.put(dir.relativize(p).toString(), new String(Files.readAllBytes(p)));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private Map<String, String> catalogFiles() {
    return files(root.resolve("_catalog"));
  }
}
