package dev.lancecommit.events.consumer;

import dev.lancecommit.events.KafkaCommitEventPublisher;
import dev.lancecommit.retry.RetryPolicy;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Every setting of a {@link CommitEventConsumer}, in one place. {@link #fromConfig} reads them from flat keys (the
 * commands map their flags onto these keys):
 *
 * <table>
 *   <caption>consumer settings</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@value #BOOTSTRAP_SERVERS}</td><td>(required)</td><td>Kafka bootstrap servers</td></tr>
 *   <tr><td>{@value #TOPIC}</td><td>{@code lance.commits}</td><td>the commit event topic</td></tr>
 *   <tr><td>{@value #GROUP_ID}</td><td>(required)</td><td>Kafka consumer group; offsets are committed under it</td></tr>
 *   <tr><td>{@value #CLIENT_ID}</td><td>the group id</td><td>Kafka client id</td></tr>
 *   <tr><td>{@value #GAP_TIMEOUT_MS}</td><td>120000</td><td>how long an event that arrived ahead of a missing
 *       version waits for it before it is delivered anyway (with a warning). Missing versions are republished by the
 *       coordinator's reconciler (every 60 s by default), so keep this above its interval.</td></tr>
 *   <tr><td>{@value #POLL_TIMEOUT_MS}</td><td>500</td><td>longest Kafka poll; also how often gap timeouts and
 *       retries are looked at</td></tr>
 *   <tr><td>{@value #RETRY_BACKOFF_MS}</td><td>1000</td><td>first wait before a failed handler call (or checkpoint
 *       write) is retried; doubles per failure</td></tr>
 *   <tr><td>{@value #RETRY_BACKOFF_MAX_MS}</td><td>30000</td><td>longest wait between retries</td></tr>
 *   <tr><td>{@value #MAX_PENDING_EVENTS}</td><td>10000</td><td>fetching pauses while this many events wait (behind a
 *       gap or a failing handler)</td></tr>
 *   <tr><td>{@value #AUTO_OFFSET_RESET}</td><td>{@code earliest}</td><td>where a group without committed offsets
 *       starts</td></tr>
 *   <tr><td>{@value #CONSUMER_PREFIX}*</td><td></td><td>passed to the Kafka consumer as is (security, timeouts);
 *       offset commits, deserializers and the group id cannot be overridden</td></tr>
 * </table>
 */
public final class ConsumerOptions {
  public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";
  public static final String TOPIC = "topic";
  public static final String GROUP_ID = "group.id";
  public static final String CLIENT_ID = "client.id";
  public static final String GAP_TIMEOUT_MS = "gap.timeout.ms";
  public static final String POLL_TIMEOUT_MS = "poll.timeout.ms";
  public static final String RETRY_BACKOFF_MS = "retry.backoff.ms";
  public static final String RETRY_BACKOFF_MAX_MS = "retry.backoff.max.ms";
  public static final String MAX_PENDING_EVENTS = "max.pending.events";
  public static final String AUTO_OFFSET_RESET = "auto.offset.reset";
  public static final String CONSUMER_PREFIX = "consumer.";

  public static final Duration DEFAULT_GAP_TIMEOUT = Duration.ofMinutes(2);
  public static final Duration DEFAULT_POLL_TIMEOUT = Duration.ofMillis(500);
  public static final Duration DEFAULT_RETRY_BACKOFF = Duration.ofSeconds(1);
  public static final Duration DEFAULT_RETRY_BACKOFF_MAX = Duration.ofSeconds(30);
  public static final int DEFAULT_MAX_PENDING_EVENTS = 10_000;

  private final String bootstrapServers;
  private final String topic;
  private final String groupId;
  private final String clientId;
  private final Duration gapTimeout;
  private final Duration pollTimeout;
  private final Duration retryBackoff;
  private final Duration retryBackoffMax;
  private final int maxPendingEvents;
  private final String autoOffsetReset;
  private final Map<String, String> consumerProperties;

  private ConsumerOptions(Builder b) {
    this.bootstrapServers = b.bootstrapServers;
    this.topic = b.topic;
    this.groupId = b.groupId;
    this.clientId = b.clientId == null ? b.groupId : b.clientId;
    this.gapTimeout = b.gapTimeout;
    this.pollTimeout = b.pollTimeout;
    this.retryBackoff = b.retryBackoff;
    this.retryBackoffMax = b.retryBackoffMax;
    this.maxPendingEvents = b.maxPendingEvents;
    this.autoOffsetReset = b.autoOffsetReset;
    this.consumerProperties = Map.copyOf(b.consumerProperties);
  }

  public static Builder builder(String bootstrapServers, String groupId) {
    return new Builder(bootstrapServers, groupId);
  }

  /** Reads the keys of the table above; unknown keys are rejected with a message naming them. */
  public static ConsumerOptions fromConfig(Map<String, String> config) {
    Builder builder = builder(config.get(BOOTSTRAP_SERVERS), config.get(GROUP_ID));
    for (Map.Entry<String, String> entry : config.entrySet()) {
      String key = entry.getKey();
      String value = entry.getValue();
      switch (key) {
        case BOOTSTRAP_SERVERS, GROUP_ID -> { }
        case TOPIC -> builder.topic(value);
        case CLIENT_ID -> builder.clientId(value);
        case GAP_TIMEOUT_MS -> builder.gapTimeout(Duration.ofMillis(parseLong(key, value)));
        case POLL_TIMEOUT_MS -> builder.pollTimeout(Duration.ofMillis(parseLong(key, value)));
        case RETRY_BACKOFF_MS -> builder.retryBackoff(Duration.ofMillis(parseLong(key, value)));
        case RETRY_BACKOFF_MAX_MS -> builder.retryBackoffMax(Duration.ofMillis(parseLong(key, value)));
        case MAX_PENDING_EVENTS -> builder.maxPendingEvents((int) Math.min(Integer.MAX_VALUE, parseLong(key, value)));
        case AUTO_OFFSET_RESET -> builder.autoOffsetReset(value);
        default -> {
          if (key.startsWith(CONSUMER_PREFIX) && key.length() > CONSUMER_PREFIX.length()) {
            builder.consumerProperty(key.substring(CONSUMER_PREFIX.length()), value);
          } else {
            throw new IllegalArgumentException("unknown commit event consumer setting '" + key + "'");
          }
        }
      }
    }
    return builder.build();
  }

  private static long parseLong(String key, String value) {
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException | NullPointerException e) {
      throw new IllegalArgumentException(key + " must be an integer, got '" + value + "'");
    }
  }

  public String bootstrapServers() {
    return bootstrapServers;
  }

  public String topic() {
    return topic;
  }

  public String groupId() {
    return groupId;
  }

  public String clientId() {
    return clientId;
  }

  public Duration gapTimeout() {
    return gapTimeout;
  }

  public Duration pollTimeout() {
    return pollTimeout;
  }

  public Duration retryBackoff() {
    return retryBackoff;
  }

  public Duration retryBackoffMax() {
    return retryBackoffMax;
  }

  /** Pauses before a failed handler call (or checkpoint write) is retried: jittered, growing, never giving up. */
  public RetryPolicy retryPolicy() {
    return RetryPolicy.exponential(retryBackoff, retryBackoffMax);
  }

  public int maxPendingEvents() {
    return maxPendingEvents;
  }

  public String autoOffsetReset() {
    return autoOffsetReset;
  }

  public Map<String, String> consumerProperties() {
    return consumerProperties;
  }

  public Builder toBuilder() {
    Builder b = new Builder(bootstrapServers, groupId);
    b.topic = topic;
    b.clientId = clientId;
    b.gapTimeout = gapTimeout;
    b.pollTimeout = pollTimeout;
    b.retryBackoff = retryBackoff;
    b.retryBackoffMax = retryBackoffMax;
    b.maxPendingEvents = maxPendingEvents;
    b.autoOffsetReset = autoOffsetReset;
    b.consumerProperties.putAll(consumerProperties);
    return b;
  }

  /** Builder; every setting but the bootstrap servers and the group id has a default. */
  public static final class Builder {
    private static final List<String> OFFSET_RESETS = List.of("earliest", "latest", "none");

    private final String bootstrapServers;
    private final String groupId;
    private String topic = KafkaCommitEventPublisher.DEFAULT_TOPIC;
    private String clientId;
    private Duration gapTimeout = DEFAULT_GAP_TIMEOUT;
    private Duration pollTimeout = DEFAULT_POLL_TIMEOUT;
    private Duration retryBackoff = DEFAULT_RETRY_BACKOFF;
    private Duration retryBackoffMax = DEFAULT_RETRY_BACKOFF_MAX;
    private int maxPendingEvents = DEFAULT_MAX_PENDING_EVENTS;
    private String autoOffsetReset = "earliest";
    private final Map<String, String> consumerProperties = new HashMap<>();

    private Builder(String bootstrapServers, String groupId) {
      this.bootstrapServers = requireText(bootstrapServers, BOOTSTRAP_SERVERS);
      this.groupId = requireText(groupId, GROUP_ID);
    }

    public Builder topic(String value) {
      topic = requireText(value, TOPIC);
      return this;
    }

    public Builder clientId(String value) {
      clientId = requireText(value, CLIENT_ID);
      return this;
    }

    /** At least 0 (0 delivers past a gap at once, giving up ordering across gaps). */
    public Builder gapTimeout(Duration value) {
      gapTimeout = nonNegative(value, GAP_TIMEOUT_MS);
      return this;
    }

    public Builder pollTimeout(Duration value) {
      pollTimeout = positive(value, POLL_TIMEOUT_MS);
      return this;
    }

    public Builder retryBackoff(Duration value) {
      retryBackoff = positive(value, RETRY_BACKOFF_MS);
      return this;
    }

    public Builder retryBackoffMax(Duration value) {
      retryBackoffMax = positive(value, RETRY_BACKOFF_MAX_MS);
      return this;
    }

    public Builder maxPendingEvents(int value) {
      if (value < 1) {
        throw new IllegalArgumentException(MAX_PENDING_EVENTS + " must be >= 1, got " + value);
      }
      maxPendingEvents = value;
      return this;
    }

    public Builder autoOffsetReset(String value) {
      if (!OFFSET_RESETS.contains(value)) {
        throw new IllegalArgumentException(AUTO_OFFSET_RESET + " must be one of " + OFFSET_RESETS + ", got " + value);
      }
      autoOffsetReset = value;
      return this;
    }

    /** A raw Kafka consumer property (security settings, session timeout, ...). */
    public Builder consumerProperty(String key, String value) {
      consumerProperties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      return this;
    }

    public ConsumerOptions build() {
      if (retryBackoffMax.compareTo(retryBackoff) < 0) {
        throw new IllegalArgumentException(RETRY_BACKOFF_MAX_MS + " must be >= " + RETRY_BACKOFF_MS);
      }
      return new ConsumerOptions(this);
    }

    private static String requireText(String value, String key) {
      if (value == null || value.isBlank()) {
        throw new IllegalArgumentException("missing " + key);
      }
      return value;
    }

    private static Duration nonNegative(Duration value, String key) {
      if (value == null || value.isNegative()) {
        throw new IllegalArgumentException(key + " must be >= 0, got " + value);
      }
      return value;
    }

    private static Duration positive(Duration value, String key) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(key + " must be > 0, got " + value);
      }
      return value;
    }
  }
}
