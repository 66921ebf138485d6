package dev.lancecommit.coordinator.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.junit.jupiter.api.Test;

class TablePartitionerTest {

  @Test
  void agreesWithTheProducersBuiltInPartitionerForKeyedRecords() {
    Random random = new Random(17);
    for (int i = 0; i < 5_000; i++) {
      String key = "ns" + random.nextInt(50) + "$t" + Long.toHexString(random.nextLong()) + (i % 7 == 0 ? "$é" : "");
      int partitions = 1 + random.nextInt(64);
      assertThat(TablePartitioner.partition(key, partitions))
          .as("partition of %s over %d", key, partitions)
          .isEqualTo(BuiltInPartitioner.partitionForKey(key.getBytes(StandardCharsets.UTF_8), partitions));
    }
  }

  @Test
  void spreadsTablesOverThePartitions() {
    int[] counts = new int[6];
    for (int i = 0; i < 6_000; i++) {
      counts[TablePartitioner.partition("sales$orders_" + i, 6)]++;
    }
    for (int count : counts) {
      assertThat(count).isBetween(800, 1200);
    }
  }

  @Test
  void refusesATopicWithoutPartitions() {
    assertThatThrownBy(() -> TablePartitioner.partition("a$b", 0)).isInstanceOf(IllegalArgumentException.class);
  }
}
