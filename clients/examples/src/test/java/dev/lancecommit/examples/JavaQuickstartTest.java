package dev.lancecommit.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.client.CommitClient;
import dev.lancecommit.client.TableId;
import dev.lancecommit.client.TableInfo;
import dev.lancecommit.testing.lance.LanceTables;
import java.nio.file.Path;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.ReadOptions;

/** The README's Java example against a real coordinator, read back with stock Lance. */
class JavaQuickstartTest {
  @TempDir Path dir;

  @Test
  void theReadmeExampleCommitsThreeVersionsThatStockLanceReads() {
    try (LocalCoordinator coordinator = LocalCoordinator.start(dir.resolve("warehouse"))) {
      JavaQuickstart.run(coordinator.url());

      TableInfo table;
      try (CommitClient client = CommitClient.builder().uri(coordinator.url()).build()) {
        table = client.describeTable(TableId.of("sales", "orders"));
      }
      assertThat(table.version()).hasValue(3);
      try (RootAllocator allocator = new RootAllocator();
          Dataset ds = Dataset.open(allocator, table.location(), new ReadOptions.Builder().build())) {
        assertThat(ds.version()).isEqualTo(3);
        assertThat(LanceTables.readColumn(ds, "id")).containsExactly(1L);
        assertThat(LanceTables.readColumn(ds, "item")).containsExactly("apple");
        try (Dataset v2 = ds.checkoutVersion(2)) {
          assertThat(LanceTables.readColumn(v2, "item")).containsExactly("apple", "pear");
        }
        assertThat(ds.listVersions()).hasSize(3);
      }
    }
  }
}
