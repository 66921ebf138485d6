package dev.lancecommit.coordinator.cluster;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Utils;

/**
 * The partition a table belongs to: the one Kafka's default partitioner sends its events to. The event key is the
 * table id joined with {@code $} ({@code TableRef#joinedId()}), serialized as UTF-8 by the publishers, and a keyed
 * record goes to {@code toPositive(murmur2(key)) % partitions} (the producer's built-in partitioner). So the owner of
 * a partition is the instance that publishes every event of the tables in it.
 */
public final class TablePartitioner {
  private TablePartitioner() {}

  /**
   * @param tableKey the table id joined with {@code $}
   * @param partitions the events topic's partition count
   */
  public static int partition(String tableKey, int partitions) {
    if (partitions < 1) {
      throw new IllegalArgumentException("a topic has at least one partition, got " + partitions);
    }
    return Utils.toPositive(Utils.murmur2(tableKey.getBytes(StandardCharsets.UTF_8))) % partitions;
  }
}
