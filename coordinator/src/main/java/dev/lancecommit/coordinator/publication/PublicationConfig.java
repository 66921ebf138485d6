package dev.lancecommit.coordinator.publication;

import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;
import static org.apache.kafka.common.config.ConfigDef.Range.between;

import dev.lancecommit.config.Config;
import dev.lancecommit.config.ConfigKey;
import dev.lancecommit.config.ConfigKeys;
import dev.lancecommit.events.KafkaCommitEventPublisher;
import dev.lancecommit.events.KafkaTopics;
import dev.lancecommit.retry.RetryPolicy;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.config.ConfigDef.NonEmptyString;

/**
 * Settings of event publication (events topic, outbox, progress topic, reconciler), with the configuration keys that
 * set them; the coordinator's configuration includes {@link #keys()}.
 */
public final class PublicationConfig {
  private static final ConfigKeys KEYS = new ConfigKeys();

  public static final ConfigKey<String> EVENTS_TOPIC = KEYS.string("kafka.topic",
      KafkaCommitEventPublisher.DEFAULT_TOPIC,
      new NonEmptyString(), "Topic of commit events; the key of every record is the table id joined with '$'.");
  public static final ConfigKey<Integer> EVENTS_TOPIC_PARTITIONS = KEYS.integer("kafka.topic.partitions",
      KafkaTopics.DEFAULT_PARTITIONS,
      atLeast(1), "Partitions of the events topic when the coordinator creates it.");
  public static final ConfigKey<Short> REPLICATION_FACTOR = KEYS.shortInteger("kafka.topic.replication",
      KafkaTopics.DEFAULT_REPLICATION_FACTOR,
      atLeast(1), "Replication factor of the events topic (and the progress topic) when the coordinator creates it.");
  public static final ConfigKey<Duration> PUBLISH_TIMEOUT_MS = KEYS.millis("kafka.publish.timeout.ms", 10_000,
      between(500, Integer.MAX_VALUE),
      "How long one publish attempt waits for Kafka before it is retried. Commits do not wait for Kafka: the "
          + "outbox publishes after the manifest lands and retries until Kafka is back.");
  public static final ConfigKey<Duration> RECONCILE_INTERVAL_MS = KEYS.millis(
      "publication.reconcile-interval.ms", 60_000, atLeast(1),
      "How often every catalogued table's versions are compared with what was published, and versions without "
          + "an event (coordinator died before publishing, or written bypassing the coordinator) are published. "
          + "On an object store with V2 manifest names a table costs one request listing the first keys of "
          + "_versions/ however long its history (and a read per new version); on a local disk, or more than 256 "
          + "versions behind, _versions/ is listed. A pass also runs at start and, for one table, whenever its event "
          + "stream has a gap.");
  public static final ConfigKey<Integer> MAX_QUEUED_PER_TABLE = KEYS.integer(
      "publication.max-queued-per-table", 10_000, atLeast(1),
      "Events of one table held in memory while Kafka is slow or down. Commits never wait for Kafka; beyond this "
          + "bound the newest events are dropped from memory and re-read from storage by the reconciler later.");
  public static final ConfigKey<String> PROGRESS_TOPIC = KEYS.string(
      "publication.progress-topic", "",
      "Compacted topic recording, per table uuid, the highest version published without gaps. Empty means "
          + "'<kafka.topic>.progress' (lance.commits.progress by default).");
  public static final ConfigKey<Duration> PROGRESS_INTERVAL_MS = KEYS.millis(
      "publication.progress-interval.ms", 200, atLeast(1),
      "At most one progress record per table is written per interval (and a last one at shutdown). A longer "
          + "interval writes less but republishes more events (duplicates, dropped by id) after a crash.");
  public static final ConfigKey<Duration> RETRY_BACKOFF_MAX_MS = KEYS.millis(
      "publication.retry-backoff-max.ms", 5000, atLeast(1),
      "Longest pause between attempts to publish an event Kafka did not acknowledge; attempts never stop.");
  public static final ConfigKey<Duration> GAP_RECONCILE_DELAY_MS = KEYS.millis(
      "publication.gap-reconcile-delay.ms", 500, atLeast(0),
      "When a table's next event is missing (a version written around the coordinator), wait this long before "
          + "reading the missing versions from storage, so bursts are handled in one pass.");
  public static final ConfigKey<Duration> LIVE_GRACE_MS = KEYS.millis(
      "publication.live-grace.ms", 5000, atLeast(0),
      "A version this coordinator wrote less than this long ago, and newer than every queued event, is left to "
          + "the commit that wrote it (its event names the actor and trace id); the reconciler rebuilds it from "
          + "storage only once it is older and still unpublished. 0 rebuilds at once.");
  public static final ConfigKey<Duration> SHUTDOWN_DRAIN_MS = KEYS.millis(
      "publication.shutdown-drain.ms", 5000, atLeast(0),
      "At shutdown, how long queued events may still be published; the rest are published by the reconciler "
          + "after the next start.");

  /** Suffix of the default progress topic: {@code <events topic>.progress}. */
  public static final String PROGRESS_TOPIC_SUFFIX = ".progress";
  /** First pause before a failed publish (or start-up attempt) is retried; not a key, tests shorten it. */
  private static final Duration DEFAULT_RETRY_BACKOFF_MIN = Duration.ofMillis(100);
  /** Bound of one attempt to create the topics and read the progress at start; not a key, tests shorten it. */
  private static final Duration DEFAULT_KAFKA_TIMEOUT = Duration.ofSeconds(30);

  private final Config values;
  private final Duration retryBackoffMin;
  private final Duration kafkaTimeout;

  private PublicationConfig(Config values, Duration retryBackoffMin, Duration kafkaTimeout) {
    this.values = values;
    Duration max = values.get(RETRY_BACKOFF_MAX_MS);
    this.retryBackoffMin = retryBackoffMin.compareTo(max) > 0 ? max : retryBackoffMin;
    this.kafkaTimeout = kafkaTimeout;
  }

  /** The publication keys ({@code kafka.topic*}, {@code kafka.publish.timeout.ms}, {@code publication.*}). */
  public static ConfigKeys keys() {
    return KEYS;
  }

  /** Reads the publication keys from the coordinator's configuration (or any group that includes them). */
  public static PublicationConfig from(Config config) {
    Builder builder = builder(config.get(EVENTS_TOPIC));
    for (ConfigKey<?> key : KEYS.keys()) {
      builder.values.put(key.name(), text(config.get(key)));
    }
    return builder.build();
  }

  public static Builder builder(String eventsTopic) {
    return new Builder(eventsTopic);
  }

  public String eventsTopic() {
    return values.get(EVENTS_TOPIC);
  }

  public String progressTopic() {
    String named = values.get(PROGRESS_TOPIC);
    return named == null || named.isBlank() ? eventsTopic() + PROGRESS_TOPIC_SUFFIX : named.trim();
  }

  /** Partitions the events topic is created with when it does not exist. */
  public int eventsTopicPartitions() {
    return values.get(EVENTS_TOPIC_PARTITIONS);
  }

  /** Replication of the events topic and the progress topic when they are created. */
  public short replicationFactor() {
    return values.get(REPLICATION_FACTOR);
  }

  /** How long one publish may take before it fails and is retried. */
  public Duration publishTimeout() {
    return values.get(PUBLISH_TIMEOUT_MS);
  }

  public Duration reconcileInterval() {
    return values.get(RECONCILE_INTERVAL_MS);
  }

  public int maxQueuedPerTable() {
    return values.get(MAX_QUEUED_PER_TABLE);
  }

  public Duration progressInterval() {
    return values.get(PROGRESS_INTERVAL_MS);
  }

  public Duration retryBackoffMin() {
    return retryBackoffMin;
  }

  public Duration retryBackoffMax() {
    return values.get(RETRY_BACKOFF_MAX_MS);
  }

  /**
   * Pauses between attempts to publish an event Kafka did not acknowledge, and between attempts to reach Kafka at
   * start: from {@link #retryBackoffMin()} to {@link #retryBackoffMax()}, jittered, never giving up.
   */
  public RetryPolicy retryPolicy() {
    return RetryPolicy.exponential(retryBackoffMin, retryBackoffMax());
  }

  public Duration gapReconcileDelay() {
    return values.get(GAP_RECONCILE_DELAY_MS);
  }

  public Duration liveGrace() {
    return values.get(LIVE_GRACE_MS);
  }

  public Duration shutdownDrain() {
    return values.get(SHUTDOWN_DRAIN_MS);
  }

  /**
   * Bound for one attempt to create the topics and read the progress at start; attempts are repeated (in the
   * background) until Kafka answers.
   */
  public Duration kafkaTimeout() {
    return kafkaTimeout;
  }

  private static String text(Object value) {
    return value instanceof Duration duration ? Long.toString(duration.toMillis()) : String.valueOf(value);
  }

  /** Defaults are the keys'; every setter refuses a value its key does not accept, naming the key. */
  public static final class Builder {
    private final Map<String, String> values = new LinkedHashMap<>();
    private Duration retryBackoffMin = DEFAULT_RETRY_BACKOFF_MIN;
    private Duration kafkaTimeout = DEFAULT_KAFKA_TIMEOUT;

    private Builder(String eventsTopic) {
      set(EVENTS_TOPIC, eventsTopic == null ? "" : eventsTopic);
    }

    /** Empty or null means {@code <events topic>.progress}. */
    public Builder progressTopic(String value) {
      return set(PROGRESS_TOPIC, value == null ? "" : value);
    }

    public Builder eventsTopicPartitions(int value) {
      return set(EVENTS_TOPIC_PARTITIONS, Integer.toString(value));
    }

    public Builder replicationFactor(short value) {
      return set(REPLICATION_FACTOR, Short.toString(value));
    }

    public Builder reconcileInterval(Duration value) {
      return set(RECONCILE_INTERVAL_MS, value);
    }

    public Builder maxQueuedPerTable(int value) {
      return set(MAX_QUEUED_PER_TABLE, Integer.toString(value));
    }

    public Builder progressInterval(Duration value) {
      return set(PROGRESS_INTERVAL_MS, value);
    }

    public Builder retryBackoffMin(Duration value) {
      retryBackoffMin = positive(value, "retry backoff min");
      return this;
    }

    public Builder retryBackoffMax(Duration value) {
      return set(RETRY_BACKOFF_MAX_MS, value);
    }

    public Builder gapReconcileDelay(Duration value) {
      return set(GAP_RECONCILE_DELAY_MS, value);
    }

    public Builder liveGrace(Duration value) {
      return set(LIVE_GRACE_MS, value);
    }

    public Builder shutdownDrain(Duration value) {
      return set(SHUTDOWN_DRAIN_MS, value);
    }

    /**
     * Bound for one attempt to create the topics and read the progress at start; attempts are repeated (in the
     * background) until Kafka answers.
     */
    public Builder kafkaTimeout(Duration value) {
      kafkaTimeout = positive(value, "Kafka timeout");
      return this;
    }

    public PublicationConfig build() {
      return new PublicationConfig(KEYS.parse(values), retryBackoffMin, kafkaTimeout);
    }

    private Builder set(ConfigKey<Duration> key, Duration value) {
      Objects.requireNonNull(value, key.name());
      return set(key, Long.toString(value.toMillis()));
    }

    private Builder set(ConfigKey<?> key, String value) {
      values.put(key.name(), value);
      KEYS.parse(values); // refuses the value now, naming the key
      return this;
    }

    private static Duration positive(Duration value, String what) {
      Objects.requireNonNull(value, what);
      if (value.isZero() || value.isNegative()) {
        throw new IllegalArgumentException(what + " must be positive, got " + value.toMillis() + " ms");
      }
      return value;
    }
  }
}
