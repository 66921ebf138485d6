package dev.lancecommit.coordinator.publication;

import dev.lancecommit.coordinator.config.ConfigKeys;
import dev.lancecommit.coordinator.config.ConfigKeys.Key;
import dev.lancecommit.coordinator.config.ConfigValues;
import dev.lancecommit.events.KafkaTopics;
import dev.lancecommit.retry.RetryPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Settings of event publication (outbox, progress topic, reconciler), with the configuration keys that set them.
 * The keys are {@link ConfigKeys.Key}s so they are documented and parsed like every other key; the
 * coordinator registers them ({@link #keys()}).
 */
public final class PublicationConfig {
  private static final ConfigKeys KEYS = new ConfigKeys();

  public static final Key RECONCILE_INTERVAL_MS = KEYS.key(
      "publication.reconcile-interval.ms", "60000",
      "How often every catalogued table's _versions/ is compared with what was published, and versions without "
          + "an event (coordinator died before publishing, or written bypassing the coordinator) are published. "
          + "A pass also runs at start and, for one table, whenever its event stream has a gap.");
  public static final Key MAX_QUEUED_PER_TABLE = KEYS.key(
      "publication.max-queued-per-table", "10000",
      "Events of one table held in memory while Kafka is slow or down. Commits never wait for Kafka; beyond this "
          + "bound the newest events are dropped from memory and re-read from storage by the reconciler later.");
  public static final Key PROGRESS_TOPIC = KEYS.key(
      "publication.progress-topic", "",
      "Compacted topic recording, per table uuid, the highest version published without gaps. Empty means "
          + "'<kafka.topic>.progress' (lance.commits.progress by default).");
  public static final Key PROGRESS_INTERVAL_MS = KEYS.key(
      "publication.progress-interval.ms", "200",
      "At most one progress record per table is written per interval (and a last one at shutdown). A longer "
          + "interval writes less but republishes more events (duplicates, dropped by id) after a crash.");
  public static final Key RETRY_BACKOFF_MAX_MS = KEYS.key(
      "publication.retry-backoff-max.ms", "5000",
      "Longest pause between attempts to publish an event Kafka did not acknowledge; attempts never stop.");
  public static final Key GAP_RECONCILE_DELAY_MS = KEYS.key(
      "publication.gap-reconcile-delay.ms", "500",
      "When a table's next event is missing (a version written around the coordinator), wait this long before "
          + "reading the missing versions from storage, so bursts are handled in one pass.");
  public static final Key LIVE_GRACE_MS = KEYS.key(
      "publication.live-grace.ms", "5000",
      "A version this coordinator wrote less than this long ago, and newer than every queued event, is left to "
          + "the commit that wrote it (its event names the actor and trace id); the reconciler rebuilds it from "
          + "storage only once it is older and still unpublished. 0 rebuilds at once.");
  public static final Key SHUTDOWN_DRAIN_MS = KEYS.key(
      "publication.shutdown-drain.ms", "5000",
      "At shutdown, how long queued events may still be published; the rest are published by the reconciler "
          + "after the next start.");

  /** Suffix of the default progress topic: {@code <events topic>.progress}. */
  public static final String PROGRESS_TOPIC_SUFFIX = ".progress";

  private final String eventsTopic;
  private final String progressTopic;
  private final int eventsTopicPartitions;
  private final short replicationFactor;
  private final Duration reconcileInterval;
  private final int maxQueuedPerTable;
  private final Duration progressInterval;
  private final Duration retryBackoffMin;
  private final Duration retryBackoffMax;
  private final Duration gapReconcileDelay;
  private final Duration liveGrace;
  private final Duration shutdownDrain;
  private final Duration kafkaTimeout;

  private PublicationConfig(Builder b) {
    this.eventsTopic = b.eventsTopic;
    this.progressTopic = b.progressTopic == null || b.progressTopic.isBlank()
        ? b.eventsTopic + PROGRESS_TOPIC_SUFFIX
        : b.progressTopic;
    this.eventsTopicPartitions = b.eventsTopicPartitions;
    this.replicationFactor = b.replicationFactor;
    this.reconcileInterval = b.reconcileInterval;
    this.maxQueuedPerTable = b.maxQueuedPerTable;
    this.progressInterval = b.progressInterval;
    this.retryBackoffMin = b.retryBackoffMin;
    this.retryBackoffMax = b.retryBackoffMax;
    this.gapReconcileDelay = b.gapReconcileDelay;
    this.liveGrace = b.liveGrace;
    this.shutdownDrain = b.shutdownDrain;
    this.kafkaTimeout = b.kafkaTimeout;
  }

  /** The publication keys, for {@code CoordinatorConfig} to register and document. */
  public static List<Key> keys() {
    return KEYS.all();
  }

  /**
   * Reads the publication keys; the events topic, its partitions and its replication are the coordinator's
   * {@code kafka.topic*} keys.
   */
  public static PublicationConfig from(ConfigValues config, String eventsTopic, int eventsTopicPartitions,
      short replicationFactor) {
    return builder(eventsTopic)
        .eventsTopicPartitions(eventsTopicPartitions)
        .replicationFactor(replicationFactor)
        .progressTopic(config.get(PROGRESS_TOPIC))
        .reconcileInterval(Duration.ofMillis(config.getLong(RECONCILE_INTERVAL_MS)))
        .maxQueuedPerTable(config.getInt(MAX_QUEUED_PER_TABLE))
        .progressInterval(Duration.ofMillis(config.getLong(PROGRESS_INTERVAL_MS)))
        .retryBackoffMax(Duration.ofMillis(config.getLong(RETRY_BACKOFF_MAX_MS)))
        .gapReconcileDelay(Duration.ofMillis(config.getLong(GAP_RECONCILE_DELAY_MS)))
        .liveGrace(Duration.ofMillis(config.getLong(LIVE_GRACE_MS)))
        .shutdownDrain(Duration.ofMillis(config.getLong(SHUTDOWN_DRAIN_MS)))
        .build();
  }

  public static Builder builder(String eventsTopic) {
    return new Builder(eventsTopic);
  }

  public String eventsTopic() {
    return eventsTopic;
  }

  public String progressTopic() {
    return progressTopic;
  }

  /** Partitions the events topic is created with when it does not exist. */
  public int eventsTopicPartitions() {
    return eventsTopicPartitions;
  }

  /** Replication of the events topic and the progress topic when they are created. */
  public short replicationFactor() {
    return replicationFactor;
  }

  public Duration reconcileInterval() {
    return reconcileInterval;
  }

  public int maxQueuedPerTable() {
    return maxQueuedPerTable;
  }

  public Duration progressInterval() {
    return progressInterval;
  }

  public Duration retryBackoffMin() {
    return retryBackoffMin;
  }

  public Duration retryBackoffMax() {
    return retryBackoffMax;
  }

  /**
   * Pauses between attempts to publish an event Kafka did not acknowledge, and between attempts to reach Kafka at
   * start: from {@link #retryBackoffMin()} to {@link #retryBackoffMax()}, jittered, never giving up.
   */
  public RetryPolicy retryPolicy() {
    return RetryPolicy.exponential(retryBackoffMin, retryBackoffMax);
  }

  public Duration gapReconcileDelay() {
    return gapReconcileDelay;
  }

  public Duration liveGrace() {
    return liveGrace;
  }

  public Duration shutdownDrain() {
    return shutdownDrain;
  }

  /**
   * Bound for one attempt to create the topics and read the progress at start; attempts are repeated (in the
   * background) until Kafka answers.
   */
  public Duration kafkaTimeout() {
    return kafkaTimeout;
  }

  /** Defaults as documented on the keys; every setter rejects values that make no sense. */
  public static final class Builder {
    private final String eventsTopic;
    private String progressTopic = "";
    private int eventsTopicPartitions = KafkaTopics.DEFAULT_PARTITIONS;
    private short replicationFactor = 1;
    private Duration reconcileInterval = Duration.ofMinutes(1);
    private int maxQueuedPerTable = 10_000;
    private Duration progressInterval = Duration.ofMillis(200);
    private Duration retryBackoffMin = Duration.ofMillis(100);
    private Duration retryBackoffMax = Duration.ofSeconds(5);
    private Duration gapReconcileDelay = Duration.ofMillis(500);
    private Duration liveGrace = Duration.ofSeconds(5);
    private Duration shutdownDrain = Duration.ofSeconds(5);
    private Duration kafkaTimeout = Duration.ofSeconds(30);

    private Builder(String eventsTopic) {
      if (eventsTopic == null || eventsTopic.isBlank()) {
        throw new IllegalArgumentException("the events topic must be non-blank");
      }
      this.eventsTopic = eventsTopic;
    }

    /** Empty or null means {@code <events topic>.progress}. */
    public Builder progressTopic(String value) {
      progressTopic = value;
      return this;
    }

    public Builder eventsTopicPartitions(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("events topic partitions must be >= 1, got " + value);
      }
      eventsTopicPartitions = value;
      return this;
    }

    public Builder replicationFactor(short value) {
      if (value < 1) {
        throw new IllegalArgumentException("replication factor must be >= 1, got " + value);
      }
      replicationFactor = value;
      return this;
    }

    public Builder reconcileInterval(Duration value) {
      reconcileInterval = positive(value, RECONCILE_INTERVAL_MS);
      return this;
    }

    public Builder maxQueuedPerTable(int value) {
      if (value < 1) {
        throw new IllegalArgumentException(
            "Configuration key " + MAX_QUEUED_PER_TABLE.name() + " must be >= 1, got " + value);
      }
      maxQueuedPerTable = value;
      return this;
    }

    public Builder progressInterval(Duration value) {
      progressInterval = positive(value, PROGRESS_INTERVAL_MS);
      return this;
    }

    public Builder retryBackoffMin(Duration value) {
      retryBackoffMin = positive(value, RETRY_BACKOFF_MAX_MS);
      return this;
    }

    public Builder retryBackoffMax(Duration value) {
      retryBackoffMax = positive(value, RETRY_BACKOFF_MAX_MS);
      return this;
    }

    public Builder gapReconcileDelay(Duration value) {
      Objects.requireNonNull(value, "gapReconcileDelay");
      if (value.isNegative()) {
        throw new IllegalArgumentException(
            "Configuration key " + GAP_RECONCILE_DELAY_MS.name() + " must be >= 0, got " + value);
      }
      gapReconcileDelay = value;
      return this;
    }

    public Builder liveGrace(Duration value) {
      Objects.requireNonNull(value, "liveGrace");
      if (value.isNegative()) {
        throw new IllegalArgumentException(
            "Configuration key " + LIVE_GRACE_MS.name() + " must be >= 0, got " + value);
      }
      liveGrace = value;
      return this;
    }

    public Builder shutdownDrain(Duration value) {
      Objects.requireNonNull(value, "shutdownDrain");
      if (value.isNegative()) {
        throw new IllegalArgumentException(
            "Configuration key " + SHUTDOWN_DRAIN_MS.name() + " must be >= 0, got " + value);
      }
      shutdownDrain = value;
      return this;
    }

    public Builder kafkaTimeout(Duration value) {
      kafkaTimeout = positive(value, null);
      return this;
    }

    public PublicationConfig build() {
      if (retryBackoffMin.compareTo(retryBackoffMax) > 0) {
        retryBackoffMin = retryBackoffMax;
      }
      return new PublicationConfig(this);
    }

    private static Duration positive(Duration value, Key key) {
      Objects.requireNonNull(value, key == null ? "duration" : key.name());
      if (value.isZero() || value.isNegative()) {
        throw new IllegalArgumentException((key == null ? "Duration" : "Configuration key " + key.name())
            + " must be positive, got " + value.toMillis() + " ms");
      }
      return value;
    }
  }
}
