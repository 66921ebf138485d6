package dev.lancecommit.coordinator.publication;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.namespace.CreateMode;
import dev.lancecommit.coordinator.storage.ObjectStores;
import dev.lancecommit.coordinator.storage.StorageLocation;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CatalogTableSourceTest {
  @TempDir Path dir;

  @Test
  void listsEveryLiveTableOfEveryNamespace() {
    try (ObjectStores stores = ObjectStores.localOnly()) {
      StorageLocation warehouse = stores.resolve(dir.toAbsolutePath().toString());
      Catalog catalog = new Catalog(warehouse, Duration.ZERO, Clock.systemUTC());
      catalog.createNamespace(List.of("a"), CreateMode.CREATE, Map.of());
      catalog.createNamespace(List.of("a", "b c"), CreateMode.CREATE, Map.of());
      TableRef root = catalog.declareTable(List.of("top"), Optional.empty(), Map.of()).toRef();
      TableRef nested = catalog.declareTable(List.of("a", "b c", "t%1"), Optional.empty(), Map.of()).toRef();
      TableRef plain = catalog.declareTable(List.of("a", "t"), Optional.empty(), Map.of()).toRef();

      List<TableRef> tables = new CatalogTableSource(catalog).tables();

      assertThat(tables).containsExactlyInAnyOrder(root, nested, plain);
    }
  }

  @Test
  void anEmptyWarehouseHasNoTables() {
    try (ObjectStores stores = ObjectStores.localOnly()) {
      StorageLocation warehouse = stores.resolve(dir.toAbsolutePath().toString());
      Catalog catalog = new Catalog(warehouse, Duration.ZERO, Clock.systemUTC());
      assertThat(new CatalogTableSource(catalog).tables()).isEmpty();
    }
  }
}
