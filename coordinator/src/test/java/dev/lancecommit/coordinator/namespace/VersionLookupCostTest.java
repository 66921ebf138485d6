package dev.lancecommit.coordinator.namespace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.coordinator.storage.LocalObjectStore;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.table.VersionFile;
import dev.lancecommit.format.ManifestNaming;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What looking up one version costs (DescribeTableVersion, which stock clients ask to open the version their commit
 * starts from): the same requests with 10 versions and with 1,000, and no listing.
 */
class VersionLookupCostTest {
  @TempDir Path root;

  @Test
  void oneVersionIsFoundByItsNameWhateverTheNumberOfVersions() throws IOException {
    Map<String, Long> small = measure(root.resolve("small"), 10);
    Map<String, Long> large = measure(root.resolve("large"), 1000);

    assertThat(large).isEqualTo(small);
    assertThat(small.getOrDefault("listedKeys", 0L)).isZero();
  }

  private Map<String, Long> measure(Path warehouse, int versions) throws IOException {
    Files.createDirectories(warehouse);
    try (LocalObjectStore store = new LocalObjectStore(warehouse)) {
      Catalog setup = new Catalog(new StorageLocation(store, ""), Duration.ZERO, Clock.systemUTC());
      setup.createNamespace(List.of("ns"), CreateMode.CREATE, Map.of());
      TableEntry table = setup.declareTable(List.of("ns", "t"), Optional.empty(), Map.of());
      Path dir = Path.of(table.location()).resolve("_versions");
      Files.createDirectories(dir);
      for (int v = 1; v <= versions; v++) {
        Files.write(dir.resolve(ManifestNaming.fileName(ManifestNaming.Scheme.V2, v)), new byte[v % 7 + 1]);
      }

      CountingObjectStore counting = new CountingObjectStore(store);
      Catalog catalog = new Catalog(new StorageLocation(counting, ""), Duration.ZERO, Clock.systemUTC());
      TableEntry loaded = catalog.loadTable(List.of("ns", "t")).orElseThrow();
      counting.reset();
      Optional<VersionFile> five = catalog.versionFile(loaded, 5);
      Map<String, Long> cost = counting.snapshot();

      assertThat(five).isPresent();
      assertThat(five.get().version()).isEqualTo(5);
      assertThat(five.get().size()).isEqualTo(5 % 7 + 1);
      assertThat(catalog.versionFile(loaded, versions + 1)).isEmpty();
      return cost;
    }
  }
}
