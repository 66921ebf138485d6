package dev.lancecommit.events;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the commit event topic from the earliest offset and keeps every commit event it has read, in read order
 * (which, per table, is publish order: a table's events share one partition).
 *
 * <p>It assigns itself every partition of the topic instead of joining a consumer group, so it needs no group
 * coordinator and never commits offsets: each reader starts at the beginning. Records that are not commit events are
 * skipped with a warning and counted in {@link #skippedRecords()}. Not thread-safe (one thread at a time, like the
 * Kafka consumer inside).
 */
public final class CommitEventReader implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CommitEventReader.class);
  private static final Duration POLL_SLICE = Duration.ofMillis(200);

  private final String topic;
  private final KafkaConsumer<String, byte[]> consumer;
  private final List<CommitEvent> events = new ArrayList<>();
  private List<TopicPartition> partitions = List.of();
  private int skipped;

  public CommitEventReader(String bootstrapServers) {
    this(bootstrapServers, KafkaCommitEventPublisher.DEFAULT_TOPIC);
  }

  public CommitEventReader(String bootstrapServers, String topic) {
    if (topic == null || topic.isBlank()) {
      throw new IllegalArgumentException("topic must be non-blank");
    }
    this.topic = topic;
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, "lance-commit-events-reader");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    this.consumer = new KafkaConsumer<>(props);
  }

  /**
   * Reads every partition up to its end offset as of this call, or until {@code timeout} passes.
   *
   * @return the commit events read by this call, in read order
   */
  public List<CommitEvent> readToEnd(Duration timeout) {
    long deadline = deadline(timeout);
    int before = events.size();
    if (!assign(deadline)) {
      return List.of();
    }
    Map<TopicPartition, Long> end = consumer.endOffsets(partitions, remaining(deadline));
    while (System.nanoTime() < deadline && !caughtUp(end)) {
      pollOnce(deadline);
    }
    return List.copyOf(events.subList(before, events.size()));
  }

  /**
   * Polls until at least {@code minCount} events of the table have been read or {@code timeout} passes, then returns
   * all events of that table read so far (possibly fewer than {@code minCount}), in read order.
   */
  public List<CommitEvent> readTable(List<String> tableId, int minCount, Duration timeout) {
    long deadline = deadline(timeout);
    if (assign(deadline)) {
      while (countFor(tableId) < minCount && System.nanoTime() < deadline) {
        pollOnce(deadline);
      }
    }
    return eventsFor(tableId);
  }

  /** Reads to the end of the topic (bounded by {@code timeout}) and returns all events of the table read so far. */
  public List<CommitEvent> readTable(List<String> tableId, Duration timeout) {
    readToEnd(timeout);
    return eventsFor(tableId);
  }

  /** Every commit event read so far, in read order. */
  public List<CommitEvent> events() {
    return Collections.unmodifiableList(new ArrayList<>(events));
  }

  /** Records read that were not valid commit events. */
  public int skippedRecords() {
    return skipped;
  }

  @Override
  public void close() {
    consumer.close(Duration.ofSeconds(5));
  }

  private List<CommitEvent> eventsFor(List<String> tableId) {
    return events.stream().filter(e -> e.tableId().equals(tableId)).toList();
  }

  private long countFor(List<String> tableId) {
    return events.stream().filter(e -> e.tableId().equals(tableId)).count();
  }

  private boolean assign(long deadline) {
    if (!partitions.isEmpty()) {
      return true;
    }
    while (true) {
      List<PartitionInfo> infos = consumer.partitionsFor(topic, remaining(deadline));
      if (infos != null && !infos.isEmpty()) {
        partitions = infos.stream().map(p -> new TopicPartition(p.topic(), p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        return true;
      }
      if (System.nanoTime() + POLL_SLICE.toNanos() >= deadline) {
        return false;
      }
      sleep(POLL_SLICE);
    }
  }

  private boolean caughtUp(Map<TopicPartition, Long> end) {
    for (TopicPartition tp : partitions) {
      Long target = end.get(tp);
      if (target != null && consumer.position(tp) < target) {
        return false;
      }
    }
    return true;
  }

  private void pollOnce(long deadline) {
    Duration slice = remaining(deadline);
    if (slice.compareTo(POLL_SLICE) > 0) {
      slice = POLL_SLICE;
    }
    for (ConsumerRecord<String, byte[]> record : consumer.poll(slice)) {
      try {
        events.add(CommitEvents.fromStructuredJson(record.value()));
      } catch (InvalidCommitEventException e) {
        skipped++;
        if (TableEvents.isTableEvent(record.value())) {
          LOG.debug("skipping table event {}-{}@{}", record.topic(), record.partition(), record.offset());
        } else {
          LOG.warn(
              "skipping record {}-{}@{}: {}", record.topic(), record.partition(), record.offset(), e.getMessage());
        }
      }
    }
  }

  private static long deadline(Duration timeout) {
    return System.nanoTime() + timeout.toNanos();
  }

  private static Duration remaining(long deadline) {
    return Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()));
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
