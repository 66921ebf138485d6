package dev.lancecommit.coordinator.publication;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancecommit.events.KafkaTopics;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per table uuid, the highest version whose event and every earlier one's have been published: a compacted Kafka
 * topic keyed by table uuid (by {@code tableUuid@branch} for a Lance branch, whose versions are numbered apart;
 * its record's {@code table_uuid} holds that key), read to the end at start and written at most once per table per progress interval
 * (and once more at shutdown).
 *
 * <p>Progress is written after the events it covers are acknowledged, so after a crash it can only lag: the
 * reconciler then republishes a few events (duplicates consumers drop by id), and never skips one. A progress write
 * that fails is retried at the next interval.
 */
public final class PublicationProgress implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PublicationProgress.class);
  private static final ObjectMapper MAPPER =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
  private static final Duration POLL_SLICE = Duration.ofMillis(200);

  /** The progress topic has one partition: it is small, and one partition keeps loading it simple. */
  public static final int PARTITIONS = 1;

  /** The JSON value of a progress record. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record ProgressValue(
      @JsonProperty("table_uuid") String tableUuid,
      @JsonProperty("table_id") List<String> tableId,
      @JsonProperty("version") long version,
      @JsonProperty("updated_at") String updatedAt) {}

  private final String bootstrap;
  private final String topic;
  private final Duration timeout;
  /** What the topic said when read (at start, and again at each {@link #refresh}). */
  private final Map<String, Long> loaded;
  private final KafkaProducer<String, String> producer;
  private final ScheduledExecutorService flusher;
  private final Clock clock;
  private final Map<String, ProgressValue> dirty = new ConcurrentHashMap<>();
  private final Map<String, Long> acknowledged = new ConcurrentHashMap<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile boolean halted;

  private PublicationProgress(String bootstrap, String topic, Map<String, Long> loaded, Duration interval,
      Duration timeout) {
    this.bootstrap = bootstrap;
    this.topic = topic;
    this.timeout = timeout;
    this.loaded = new ConcurrentHashMap<>(loaded);
    this.producer = new KafkaProducer<>(producerProperties(bootstrap, timeout));
    this.clock = Clock.systemUTC();
    ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
      Thread thread = new Thread(runnable, "lance-commit-progress");
      thread.setDaemon(true);
      return thread;
    });
    this.flusher = executor;
    long millis = interval.toMillis();
    executor.scheduleWithFixedDelay(this::flushQuietly, millis, millis, TimeUnit.MILLISECONDS);
  }

  /**
   * Creates the topic if needed (compacted, one partition), reads it to the end and starts writing progress every
   * {@code interval}.
   *
   * @throws IllegalStateException if Kafka does not answer within {@code timeout}
   */
  public static PublicationProgress open(String bootstrap, String topic, short replicationFactor, Duration interval,
      Duration timeout) {
    KafkaTopics.ensureTopic(bootstrap, topic, PARTITIONS, replicationFactor, Map.of("cleanup.policy", "compact"),
        timeout);
    Map<String, Long> loaded = read(bootstrap, topic, timeout);
    LOG.info("Loaded publication progress of {} tables from {}", loaded.size(), topic);
    return new PublicationProgress(bootstrap, topic, loaded, interval, timeout);
  }

  /** Opens with the topic, replication, interval and timeout of {@code config}. */
  public static PublicationProgress open(String bootstrap, PublicationConfig config) {
    return open(bootstrap, config.progressTopic(), config.replicationFactor(), config.progressInterval(),
        config.kafkaTimeout());
  }

  /**
   * {@link #open(String, PublicationConfig)} for a topic known to exist: reads it to the end and starts writing.
   *
   * @throws IllegalStateException if Kafka does not answer within {@link PublicationConfig#kafkaTimeout()}
   */
  static PublicationProgress load(String bootstrap, PublicationConfig config) {
    Map<String, Long> loaded = read(bootstrap, config.progressTopic(), config.kafkaTimeout());
    LOG.info("Loaded publication progress of {} tables from {}", loaded.size(), config.progressTopic());
    return new PublicationProgress(bootstrap, config.progressTopic(), loaded, config.progressInterval(),
        config.kafkaTimeout());
  }

  /**
   * Reads the whole progress topic: per table uuid the highest version recorded. Records that are not progress
   * records are skipped with a warning.
   *
   * @throws IllegalStateException if the end of the topic is not reached within {@code timeout}
   */
  public static Map<String, Long> read(String bootstrap, String topic, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, "lance-commit-progress-loader");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    Map<String, Long> progress = new HashMap<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
      List<PartitionInfo> infos = consumer.partitionsFor(topic, remaining(deadline));
      // a topic created a moment ago may not be in the broker's metadata yet
      while (infos == null || infos.isEmpty()) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("Progress topic " + topic + " does not exist (waited " + timeout + ")");
        }
        sleep(POLL_SLICE);
        infos = consumer.partitionsFor(topic, remaining(deadline));
      }
      List<TopicPartition> partitions = infos.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, remaining(deadline));
      while (!caughtUp(consumer, partitions, end)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("Could not read progress topic " + topic + " to its end within " + timeout);
        }
        for (ConsumerRecord<String, String> record : consumer.poll(POLL_SLICE)) {
          apply(progress, record);
        }
      }
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      throw new IllegalStateException("Could not read progress topic " + topic + " within " + timeout, e);
    }
    return progress;
  }

  /**
   * Reads the topic to its end again and raises what is known for each table to what it says: another instance
   * may have published since this one started (cluster mode: the table's previous owner). Blocking.
   *
   * @throws IllegalStateException if Kafka does not answer within the timeout
   */
  public void refresh() {
    read(bootstrap, topic, timeout).forEach((uuid, version) -> loaded.merge(uuid, version, Math::max));
  }

  /** The version recorded for the table when this instance started (or last {@link #refresh refreshed}), if any. */
  public OptionalLong recorded(String tableUuid) {
    Long version = loaded.get(tableUuid);
    return version == null ? OptionalLong.empty() : OptionalLong.of(version);
  }

  /** Every table's version as recorded when this instance started (or last refreshed). */
  public Map<String, Long> recordedAtStart() {
    return Map.copyOf(loaded);
  }

  /** Notes that every event of the table up to {@code version} is published; written at the next interval. */
  public void advance(String tableUuid, List<String> tableId, long version) {
    if (halted || closed.get()) {
      return;
    }
    ProgressValue value = new ProgressValue(tableUuid, List.copyOf(tableId), version, clock.instant().toString());
    dirty.merge(tableUuid, value, (a, b) -> a.version() >= b.version() ? a : b);
  }

  /** Sends every pending progress record now and waits (bounded) until Kafka acknowledged them. */
  public void flush() {
    sendDirty();
    producer.flush();
  }

  private void flushQuietly() {
    try {
      sendDirty();
    } catch (RuntimeException e) {
      LOG.warn("Could not write publication progress to {}; will retry", topic, e);
    }
  }

  private synchronized void sendDirty() {
    if (halted) {
      return;
    }
    for (String uuid : List.copyOf(dirty.keySet())) {
      ProgressValue value = dirty.remove(uuid);
      if (value == null || value.version() <= acknowledged.getOrDefault(uuid, -1L)) {
        continue; // a retried older record that a newer one has overtaken
      }
      String json;
      try {
        json = MAPPER.writeValueAsString(value);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      try {
        producer.send(new ProducerRecord<>(topic, uuid, json), (metadata, error) -> {
          if (error == null) {
            acknowledged.merge(uuid, value.version(), Math::max);
          } else {
            retryLater(uuid, value);
          }
        });
      } catch (RuntimeException e) {
        retryLater(uuid, value);
        throw e;
      }
    }
  }

  private void retryLater(String uuid, ProgressValue value) {
    if (value.version() > acknowledged.getOrDefault(uuid, -1L)) {
      dirty.merge(uuid, value, (a, b) -> a.version() >= b.version() ? a : b);
    }
  }

  /** Writes what is pending (bounded by the producer's timeouts), then releases the producer. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    flusher.shutdownNow();
    try {
      if (!halted) {
        flusher.awaitTermination(5, TimeUnit.SECONDS);
        sendDirty();
      }
    } catch (RuntimeException e) {
      LOG.warn("Could not write the last publication progress to {}", topic, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    producer.close(halted ? Duration.ZERO : Duration.ofSeconds(10));
  }

  /** Stops at once without writing anything more: what a crash would leave behind (for tests). */
  public void halt() {
    halted = true;
    close();
  }

  private static void apply(Map<String, Long> progress, ConsumerRecord<String, String> record) {
    if (record.key() == null) {
      return;
    }
    if (record.value() == null) {
      progress.remove(record.key()); // a tombstone
      return;
    }
    try {
      ProgressValue value = MAPPER.readValue(record.value(), ProgressValue.class);
      progress.merge(record.key(), value.version(), Math::max);
    } catch (IOException e) {
      LOG.warn("Skipping progress record {}@{} of key {}: {}", record.partition(), record.offset(), record.key(),
          e.getMessage());
    }
  }

  private static boolean caughtUp(KafkaConsumer<?, ?> consumer, List<TopicPartition> partitions,
      Map<TopicPartition, Long> end) {
    for (TopicPartition tp : partitions) {
      Long target = end.get(tp);
      if (target != null && consumer.position(tp) < target) {
        return false;
      }
    }
    return true;
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while reading the progress topic", e);
    }
  }

  private static Duration remaining(long deadline) {
    return Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()));
  }

  private static Properties producerProperties(String bootstrap, Duration timeout) {
    int timeoutMs = (int) Math.min(Integer.MAX_VALUE, Math.max(1000, timeout.toMillis()));
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ProducerConfig.CLIENT_ID_CONFIG, "lance-commit-progress");
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, timeoutMs);
    props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.max(500, timeoutMs / 2));
    // the flusher thread must not hang on a Kafka outage; a write that cannot be handed over is retried later
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 2000);
    props.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1000);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    return props;
  }
}
