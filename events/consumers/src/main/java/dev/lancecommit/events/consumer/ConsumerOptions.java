package dev.lancecommit.events.consumer;

import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;

import dev.lancecommit.config.Config;
import dev.lancecommit.config.ConfigKey;
import dev.lancecommit.config.ConfigKeys;
import dev.lancecommit.config.ConfigurationException;
import dev.lancecommit.config.KeyFamily;
import dev.lancecommit.events.KafkaCommitEventPublisher;
import dev.lancecommit.retry.RetryPolicy;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.config.ConfigDef.NonEmptyString;

/**
 * Every setting of a {@link CommitEventConsumer}, declared once as configuration keys ({@link #keys()}, rendered by
 * the consumer commands' {@code --help}). {@link #fromConfig} reads them from flat keys (the commands map their
 * flags onto these keys and take {@code --set key=value} for any of them); {@link #builder} sets them in code.
 */
public final class ConsumerOptions {
  private static final ConfigKeys KEYS = new ConfigKeys();

  public static final ConfigKey<String> BOOTSTRAP_SERVERS = KEYS.requiredString("bootstrap.servers",
      "Kafka bootstrap servers.");
  public static final ConfigKey<String> TOPIC = KEYS.string("topic", KafkaCommitEventPublisher.DEFAULT_TOPIC,
      new NonEmptyString(), "The commit event topic.");
  public static final ConfigKey<String> GROUP_ID = KEYS.requiredString("group.id",
      "Kafka consumer group; offsets are committed under it.");
  public static final ConfigKey<String> CLIENT_ID = KEYS.string("client.id", "",
      "Kafka client id; empty = the group id.");
  public static final ConfigKey<Duration> GAP_TIMEOUT_MS = KEYS.millis("gap.timeout.ms", 120_000, atLeast(0),
      "How long an event that arrived ahead of a missing version waits for it before it is delivered anyway (with "
          + "a warning); 0 delivers past a gap at once. Missing versions are republished by the coordinator's "
          + "reconciler (every 60 s by default), so keep this above its interval.");
  public static final ConfigKey<Duration> POLL_TIMEOUT_MS = KEYS.millis("poll.timeout.ms", 500, atLeast(1),
      "Longest Kafka poll; also how often gap timeouts and retries are looked at.");
  public static final ConfigKey<Duration> RETRY_BACKOFF_MS = KEYS.millis("retry.backoff.ms", 1000, atLeast(1),
      "Least wait before a failed handler call (or checkpoint write) is retried; waits grow, jittered, per "
          + "failure.");
  public static final ConfigKey<Duration> RETRY_BACKOFF_MAX_MS = KEYS.millis("retry.backoff.max.ms", 30_000,
      atLeast(1), "Longest wait between retries (at least retry.backoff.ms).");
  public static final ConfigKey<Integer> MAX_PENDING_EVENTS = KEYS.integer("max.pending.events", 10_000, atLeast(1),
      "Fetching pauses while this many events wait (behind a gap or a failing handler).");
  public static final ConfigKey<String> AUTO_OFFSET_RESET = KEYS.string("auto.offset.reset", "earliest",
      ConfigKeys.oneOf("earliest", "latest", "none"), "Where a group without committed offsets starts.");
  public static final KeyFamily CONSUMER_PROPERTIES = KEYS.family("consumer.<property>", "consumer\\.(.+)", "",
      "Passed to the Kafka consumer as is (security, timeouts); offset commits, deserializers and the group id "
          + "cannot be overridden.");

  private final Config values;

  private ConsumerOptions(Config values) {
    this.values = values;
    if (retryBackoffMax().compareTo(retryBackoff()) < 0) {
      throw new ConfigurationException(RETRY_BACKOFF_MAX_MS.name(), "Configuration key "
          + RETRY_BACKOFF_MAX_MS.name() + " must be >= " + RETRY_BACKOFF_MS.name() + " ("
          + retryBackoffMax().toMillis() + " < " + retryBackoff().toMillis() + ")");
    }
  }

  /** Every consumer key, for the commands' documentation. */
  public static ConfigKeys keys() {
    return KEYS;
  }

  public static Builder builder(String bootstrapServers, String groupId) {
    return new Builder(bootstrapServers, groupId);
  }

  /** Reads the keys of {@link #keys()}; unknown keys and invalid values are refused with a message naming them. */
  public static ConsumerOptions fromConfig(Map<String, String> config) {
    return new ConsumerOptions(KEYS.parse(config));
  }

  public String bootstrapServers() {
    return values.get(BOOTSTRAP_SERVERS);
  }

  public String topic() {
    return values.get(TOPIC);
  }

  public String groupId() {
    return values.get(GROUP_ID);
  }

  public String clientId() {
    String clientId = values.get(CLIENT_ID);
    return clientId.isBlank() ? groupId() : clientId;
  }

  public Duration gapTimeout() {
    return values.get(GAP_TIMEOUT_MS);
  }

  public Duration pollTimeout() {
    return values.get(POLL_TIMEOUT_MS);
  }

  public Duration retryBackoff() {
    return values.get(RETRY_BACKOFF_MS);
  }

  public Duration retryBackoffMax() {
    return values.get(RETRY_BACKOFF_MAX_MS);
  }

  /** Pauses before a failed handler call (or checkpoint write) is retried: jittered, growing, never giving up. */
  public RetryPolicy retryPolicy() {
    return RetryPolicy.exponential(retryBackoff(), retryBackoffMax());
  }

  public int maxPendingEvents() {
    return values.get(MAX_PENDING_EVENTS);
  }

  public String autoOffsetReset() {
    return values.get(AUTO_OFFSET_RESET).trim().toLowerCase(java.util.Locale.ROOT);
  }

  /** The {@code consumer.*} pass-through properties, without the prefix. */
  public Map<String, String> consumerProperties() {
    return values.family(CONSUMER_PROPERTIES);
  }

  public Builder toBuilder() {
    Builder b = new Builder(bootstrapServers(), groupId());
    for (ConfigKey<?> key : KEYS.keys()) {
      Object value = values.get(key);
      b.values.put(key.name(), value instanceof Duration d ? Long.toString(d.toMillis()) : String.valueOf(value));
    }
    consumerProperties().forEach(b::consumerProperty);
    return b;
  }

  /** Builder; every setting but the bootstrap servers and the group id has its key's default. */
  public static final class Builder {
    private final Map<String, String> values = new LinkedHashMap<>();

    private Builder(String bootstrapServers, String groupId) {
      values.put(BOOTSTRAP_SERVERS.name(), Objects.requireNonNullElse(bootstrapServers, ""));
      values.put(GROUP_ID.name(), Objects.requireNonNullElse(groupId, ""));
      KEYS.parse(values);
    }

    public Builder topic(String value) {
      return set(TOPIC, value);
    }

    public Builder clientId(String value) {
      return set(CLIENT_ID, value);
    }

    /** At least 0 (0 delivers past a gap at once, giving up ordering across gaps). */
    public Builder gapTimeout(Duration value) {
      return set(GAP_TIMEOUT_MS, value);
    }

    public Builder pollTimeout(Duration value) {
      return set(POLL_TIMEOUT_MS, value);
    }

    public Builder retryBackoff(Duration value) {
      return set(RETRY_BACKOFF_MS, value);
    }

    public Builder retryBackoffMax(Duration value) {
      return set(RETRY_BACKOFF_MAX_MS, value);
    }

    public Builder maxPendingEvents(int value) {
      return set(MAX_PENDING_EVENTS, Integer.toString(value));
    }

    public Builder autoOffsetReset(String value) {
      return set(AUTO_OFFSET_RESET, value);
    }

    /** A raw Kafka consumer property (security settings, session timeout, ...). */
    public Builder consumerProperty(String key, String value) {
      values.put("consumer." + Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      return this;
    }

    public ConsumerOptions build() {
      return new ConsumerOptions(KEYS.parse(values));
    }

    private Builder set(ConfigKey<Duration> key, Duration value) {
      return set(key, Long.toString(Objects.requireNonNull(value, key.name()).toMillis()));
    }

    private Builder set(ConfigKey<?> key, String value) {
      values.put(key.name(), Objects.requireNonNull(value, key.name()));
      KEYS.parse(values); // refuses the value now, naming the key
      return this;
    }
  }
}
