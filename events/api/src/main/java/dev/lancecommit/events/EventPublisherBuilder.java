package dev.lancecommit.events;

import static org.apache.kafka.common.config.ConfigDef.Range.between;

import dev.lancecommit.config.Config;
import dev.lancecommit.config.ConfigKey;
import dev.lancecommit.config.ConfigKeys;
import dev.lancecommit.config.KeyFamily;
import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.NonEmptyString;
import org.apache.kafka.common.config.ConfigException;

/**
 * The settings every Kafka event publisher takes, declared once as configuration keys ({@link #keys()}: bootstrap
 * servers, topic, CloudEvents source, publish timeout, {@code producer.*} pass-through); each publisher's
 * {@code Builder} extends it, and {@link KafkaCommitEventPublisher#fromConfig} reads the keys from a map.
 *
 * @param <B> the concrete builder, returned by every setter
 */
public abstract class EventPublisherBuilder<B extends EventPublisherBuilder<B>> {
  private static final ConfigKeys KEYS = new ConfigKeys();

  public static final ConfigKey<String> BOOTSTRAP_SERVERS = KEYS.requiredString("bootstrap.servers",
      "Kafka bootstrap servers.");
  public static final ConfigKey<String> TOPIC = KEYS.string("topic", KafkaCommitEventPublisher.DEFAULT_TOPIC,
      new NonEmptyString(), "Topic events are published to; the record key is the table id joined with '$'.");
  public static final ConfigKey<String> SOURCE = KEYS.string("source", CommitEvents.DEFAULT_SOURCE.toString(),
      ConfigDef.LambdaValidator.with((name, value) -> {
        try {
          URI.create(((String) value).trim());
        } catch (IllegalArgumentException e) {
          throw new ConfigException(name, value, "not a URI reference");
        }
      }, () -> "a URI reference"), "The CloudEvents source attribute of every event.");
  public static final ConfigKey<Duration> PUBLISH_TIMEOUT_MS = KEYS.millis("publish.timeout.ms", 10_000,
      between(500, Integer.MAX_VALUE), "Upper bound for one publish to succeed or fail (delivery.timeout.ms and "
          + "max.block.ms of the producer).");
  public static final KeyFamily PRODUCER_PROPERTIES = KEYS.family("producer.<property>", "producer\\.(.+)", "",
      "A Kafka producer property, applied over the publisher's own settings (security, client.id, ...). "
          + "Serializers cannot be overridden; weakening acks or idempotence gives up the ordering guarantee.");

  private final Map<String, String> values = new LinkedHashMap<>();
  final Map<String, Object> producerProperties = new HashMap<>();

  EventPublisherBuilder(String bootstrapServers) {
    set(BOOTSTRAP_SERVERS, bootstrapServers == null ? "" : bootstrapServers);
  }

  /** The publisher keys. */
  public static ConfigKeys keys() {
    return KEYS;
  }

  abstract B self();

  public B topic(String value) {
    return set(TOPIC, value == null ? "" : value);
  }

  /** The CloudEvents {@code source} attribute. */
  public B source(URI value) {
    return set(SOURCE, Objects.requireNonNull(value, "source").toString());
  }

  /** Upper bound for a publish to succeed or fail; at least 500 ms. */
  public B publishTimeout(Duration value) {
    return set(PUBLISH_TIMEOUT_MS, Long.toString(Objects.requireNonNull(value, "publish timeout").toMillis()));
  }

  /**
   * A raw Kafka producer property, applied over the publisher's own settings (security, client.id, ...).
   * Serializers cannot be overridden; weakening {@code acks} or idempotence gives up the ordering guarantee.
   */
  public B producerProperty(String key, Object value) {
    producerProperties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
    return self();
  }

  /** Applies flat configuration (the keys of {@link #keys()}); unknown keys and invalid values are refused. */
  B configure(Map<String, String> config) {
    Config parsed = KEYS.parse(config);
    values.putAll(config);
    values.keySet().removeIf(name -> KEYS.key(name).isEmpty());
    parsed.family(PRODUCER_PROPERTIES).forEach(this::producerProperty);
    return self();
  }

  /** The settings as parsed, validated values. */
  Config settings() {
    return KEYS.parse(values);
  }

  private B set(ConfigKey<?> key, String value) {
    values.put(key.name(), value);
    KEYS.parse(values); // refuses the value now, naming the key
    return self();
  }
}
