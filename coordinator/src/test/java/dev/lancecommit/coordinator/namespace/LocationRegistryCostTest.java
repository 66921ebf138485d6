package dev.lancecommit.coordinator.namespace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.coordinator.storage.LocalObjectStore;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.format.ManifestNaming;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What declare, register, clone-source lookup, rename, deregister and drop cost in store requests, in a warehouse of
 * 10 tables and in one of 1,000: the same, request for request and key for key, because the location registry only
 * reads the location's own claims, its ancestors' and the claimed table entries (before it, each of these scanned
 * every table's newest revision). Measured by a fresh catalog (a second coordinator, cold caches) on a counting store.
 */
class LocationRegistryCostTest {
  @TempDir Path root;

  @Test
  void registryOperationsCostTheSameWith10And1000Tables() throws IOException {
    Measured small = measure(root.resolve("small"), 10);
    Measured large = measure(root.resolve("large"), 1000);

    assertThat(large.perOperation()).isEqualTo(small.perOperation());
    // bounded: a handful of requests per operation, and listings that return a handful of keys
    small.perOperation().forEach((op, counts) -> {
      long requests = counts.entrySet().stream().filter(e -> !e.getKey().equals("listedKeys"))
          .mapToLong(Map.Entry::getValue).sum();
      assertThat(requests).as("%s: %s", op, counts).isLessThanOrEqualTo(30);
      assertThat(counts.getOrDefault("listedKeys", 0L)).as("%s: %s", op, counts).isLessThanOrEqualTo(20);
    });
    // the counter does see work that grows with the warehouse: listing every table
    assertThat(large.liveTablesListedKeys()).isGreaterThan(small.liveTablesListedKeys() + 900);
  }

  private record Measured(Map<String, Map<String, Long>> perOperation, long liveTablesListedKeys) {}

  private Measured measure(Path warehouse, int tables) throws IOException {
    Files.createDirectories(warehouse);
    try (LocalObjectStore store = new LocalObjectStore(warehouse)) {
      Catalog setup = new Catalog(new StorageLocation(store, ""), Duration.ZERO, Clock.systemUTC());
      setup.createNamespace(List.of("ns"), CreateMode.CREATE, Map.of());
      for (int i = 0; i < tables; i++) {
        setup.declareTable(List.of("ns", "t" + i), Optional.empty(), Map.of());
      }
      Path registered = dataset(warehouse.resolve("ns/t1.lance"));
      setup.registerTable(List.of("ns", "t1"), registered.toString(), RegisterMode.OVERWRITE, Map.of());
      dataset(warehouse.resolve("ns/t3.lance"));
      Path incoming = dataset(warehouse.resolve("incoming/events.lance"));

      CountingObjectStore counting = new CountingObjectStore(store);
      Catalog catalog = new Catalog(new StorageLocation(counting, ""), Duration.ZERO, Clock.systemUTC());
      Map<String, Map<String, Long>> costs = new LinkedHashMap<>();
      costs.put("declare", cost(counting, () ->
          catalog.declareTable(List.of("ns", "new"), Optional.empty(), Map.of())));
      costs.put("declare refused (inside a table)", cost(counting, () -> {
        try {
          catalog.declareTable(List.of("ns", "nested"), Optional.of(registered + "/sub"), Map.of());
        } catch (TableAlreadyExistsException expected) {
          // refused, as it must be
        }
      }));
      costs.put("register", cost(counting, () ->
          catalog.registerTable(List.of("ns", "events"), incoming.toString(), RegisterMode.CREATE, Map.of())));
      costs.put("clone source lookup", cost(counting, () ->
          assertThat(catalog.liveTableHolding(registered + "/tree/b1")).isPresent()));
      costs.put("rename", cost(counting, () -> catalog.renameTable(List.of("ns", "t2"), List.of("ns", "t2b"))));
      costs.put("deregister", cost(counting, () -> catalog.deregisterTable(List.of("ns", "t4"))));
      costs.put("re-register", cost(counting, () ->
          catalog.registerTable(List.of("ns", "t1"), registered.toString(), RegisterMode.OVERWRITE, Map.of("a", "b"))));
      costs.put("drop", cost(counting, () -> catalog.dropTable(List.of("ns", "t3"))));
      costs.put("declare at a dropped location", cost(counting, () ->
          catalog.declareTable(List.of("ns", "t3x"), Optional.of(warehouse.resolve("ns/t3.lance").toString()),
              Map.of())));
      counting.reset();
      catalog.liveTables();
      long listed = counting.snapshot().getOrDefault("listedKeys", 0L);
      return new Measured(costs, listed);
    }
  }

  private static Map<String, Long> cost(CountingObjectStore store, Runnable operation) {
    store.reset();
    operation.run();
    return store.snapshot();
  }

  private static Path dataset(Path dir) throws IOException {
    Files.createDirectories(dir.resolve("_versions"));
    Files.write(dir.resolve("_versions").resolve(ManifestNaming.fileName(ManifestNaming.Scheme.V2, 1)), new byte[] {1});
    return dir;
  }
}
