package dev.lancecommit.coordinator.namespace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancecommit.coordinator.storage.LocalObjectStore;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.format.ManifestNaming;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The location registry as it is written in the warehouse, and what each table operation does to it. */
class LocationRegistryTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String R1 = "v00000000000000000001.json";

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

  @Test
  void aDeclaredTableClaimsItsLocationNamingItsEntryRevision() throws IOException {
    TableEntry t = catalog.declareTable(id("ns", "t"), Optional.empty(), Map.of());

    JsonNode claim = json("_catalog/locations/ns/t.lance/_claims/" + R1);
    assertThat(claim.get("location").asText()).isEqualTo(t.location());
    assertThat(claim.get("state").asText()).isEqualTo("held");
    assertThat(claim.get("table_id").toString()).isEqualTo("[\"ns\",\"t\"]");
    assertThat(claim.get("table_revision").asLong()).isEqualTo(1);
    assertThat(claim.get("claim_id").asText()).isNotBlank();
    assertThat(json("_catalog/locations/_registry.json").get("registry_version").asInt()).isEqualTo(1);
  }

  @Test
  void dropReleasesTheClaimAndTheNextTableTakesTheLocation() throws IOException {
    Path data = dataset("ns/t.lance");
    catalog.registerTable(id("ns", "t"), data.toString(), RegisterMode.CREATE, Map.of());
    catalog.dropTable(id("ns", "t"));
    assertThat(RegistryFiles.claims(root, "ns/t.lance")).containsExactly("held:ns$t@1", "released:ns$t@1");

    catalog.declareTable(id("ns", "u"), Optional.of(data.toString()), Map.of());
    assertThat(RegistryFiles.claims(root, "ns/t.lance"))
        .containsExactly("held:ns$t@1", "released:ns$t@1", "held:ns$u@1");
  }

  @Test
  void deregisterKeepsTheClaimAndReRegisteringTakesItAgain() throws IOException {
    Path data = dataset("ns/t.lance");
    TableEntry t = catalog.registerTable(id("ns", "t"), data.toString(), RegisterMode.CREATE, Map.of());
    catalog.deregisterTable(id("ns", "t"));
    assertThat(RegistryFiles.claims(root, "ns/t.lance")).containsExactly("held:ns$t@1");
    // a deregistered table keeps its data: DropTable of a table around it is refused
    catalog.declareTable(id("ns", "outer"), Optional.of(root.resolve("ns").toString()), Map.of());
    assertThatThrownBy(() -> catalog.dropTable(id("ns", "outer")))
        .isInstanceOf(TableDropRefusedException.class)
        .hasMessageContaining("deregistered table 'ns$t'");
    catalog.deregisterTable(id("ns", "outer"));

    TableEntry back = catalog.registerTable(id("ns", "t"), data.toString(), RegisterMode.CREATE, Map.of());
    assertThat(back.tableUuid()).isEqualTo(t.tableUuid());
    assertThat(RegistryFiles.claims(root, "ns/t.lance")).containsExactly("held:ns$t@1", "held:ns$t@3");
  }

  @Test
  void renameLetsTheClaimNameTheNewIdentifier() {
    TableEntry t = catalog.declareTable(id("ns", "t"), Optional.empty(), Map.of());
    catalog.renameTable(id("ns", "t"), id("ns", "u"));
    assertThat(RegistryFiles.claims(root, "ns/t.lance")).containsExactly("held:ns$t@1", "held:ns$u@1");
    assertThat(catalog.liveTableHolding(t.location()).map(TableEntry::id)).contains(id("ns", "u"));
    assertThatThrownBy(() -> catalog.declareTable(id("ns", "x"), Optional.of(t.location()), Map.of()))
        .isInstanceOf(TableAlreadyExistsException.class)
        .hasMessageContaining("ns$u");
  }

  @Test
  void registeringATableElsewhereReleasesItsOldLocation() throws IOException {
    catalog.declareTable(id("ns", "t"), Optional.empty(), Map.of());
    Path data = dataset("data/t2.lance");
    catalog.registerTable(id("ns", "t"), data.toString(), RegisterMode.OVERWRITE, Map.of());
    assertThat(RegistryFiles.claims(root, "ns/t.lance")).containsExactly("held:ns$t@1", "released:ns$t@1");
    assertThat(RegistryFiles.claims(root, "data/t2.lance")).containsExactly("held:ns$t@2");
    assertThat(catalog.declareTable(id("ns", "u"), Optional.of(root.resolve("ns/t.lance").toString()), Map.of())
        .id()).isEqualTo(id("ns", "u"));
  }

  @Test
  void aLocationInsideATableIsRefusedWithoutWritingAnything() {
    TableEntry t = catalog.declareTable(id("ns", "t"), Optional.empty(), Map.of());
    Map<String, Long> before = catalogFiles();

    for (String location : List.of(t.location(), t.location() + "/inner", t.location() + "/tree/b/deeper")) {
      assertThatThrownBy(() -> catalog.declareTable(id("ns", "u"), Optional.of(location), Map.of()))
          .as(location)
          .isInstanceOf(TableAlreadyExistsException.class)
          .hasMessageContaining("'ns$t'");
    }
    assertThat(catalogFiles()).isEqualTo(before);
  }

  @Test
  void aLocationAroundATableIsRefusedAndLeavesNoTable() {
    catalog.declareTable(id("ns", "t"), Optional.empty(), Map.of());

    assertThatThrownBy(() -> catalog.declareTable(id("ns", "u"), Optional.of(root.resolve("ns").toString()),
        Map.of()))
        .isInstanceOf(TableAlreadyExistsException.class)
        .hasMessageContaining("'ns$t'");

    // found after claiming (one listing of the claims inside): the claim was given back, no entry was written
    assertThat(RegistryFiles.claims(root, "ns")).containsExactly("held:ns$u@1", "released:ns$u@1");
    assertThat(Files.exists(root.resolve("_catalog/tree/ns/_tables/u"))).isFalse();
    assertThat(catalog.liveTableHolding(root.resolve("ns/x").toString())).isEmpty();
  }

  @Test
  void oddLocationSegmentsAreEncodedSoTheyCannotBeMistakenForRegistryFiles() throws IOException {
    Path odd = root.resolve("_claims/a b/_registry.json");
    TableEntry t = catalog.declareTable(id("ns", "t"), Optional.of(odd.toString()), Map.of());

    assertThat(Files.exists(root.resolve("_catalog/locations/%5Fclaims/a%20b/%5Fregistry.json/_claims/" + R1)))
        .isTrue();
    assertThat(catalog.liveTableHolding(odd + "/tree/x")).contains(t);
    assertThatThrownBy(() -> catalog.declareTable(id("ns", "u"), Optional.of(root.resolve("_claims").toString()),
        Map.of()))
        .isInstanceOf(TableAlreadyExistsException.class);
    assertThatThrownBy(() -> catalog.declareTable(id("ns", "v"), Optional.of(odd + "/inner"), Map.of()))
        .isInstanceOf(TableAlreadyExistsException.class);
  }

  @Test
  void theCloneSourceIsTheTableHoldingTheLocation() {
    TableEntry t = catalog.declareTable(id("ns", "t"), Optional.empty(), Map.of());

    assertThat(catalog.liveTableHolding(t.location())).contains(t);
    assertThat(catalog.liveTableHolding(t.location() + "/tree/branch-1")).contains(t);
    assertThat(catalog.liveTableHolding(Path.of(t.location()).toUri().toString())).contains(t);
    assertThat(catalog.liveTableHolding(t.location() + "x")).isEmpty();
    assertThat(catalog.liveTableHolding("s3://elsewhere/t")).isEmpty();
    catalog.deregisterTable(id("ns", "t"));
    assertThat(catalog.liveTableHolding(t.location())).isEmpty();
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

  private JsonNode json(String relative) throws IOException {
    return JSON.readTree(Files.readAllBytes(root.resolve(relative)));
  }

  private Map<String, Long> catalogFiles() {
    Map<String, Long> out = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root.resolve("_catalog"))) {
      walk.filter(Files::isRegularFile).forEach(p -> out.put(root.relativize(p).toString(), p.toFile().length()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
