package dev.lancecommit.events;

import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The settings every Kafka event publisher takes (bootstrap servers, topic, CloudEvents source, publish timeout,
 * raw producer properties); each publisher's {@code Builder} extends it.
 *
 * @param <B> the concrete builder, returned by every setter
 */
public abstract class EventPublisherBuilder<B extends EventPublisherBuilder<B>> {
  final String bootstrapServers;
  String topic = KafkaCommitEventPublisher.DEFAULT_TOPIC;
  URI source = CommitEvents.DEFAULT_SOURCE;
  Duration publishTimeout = KafkaCommitEventPublisher.DEFAULT_PUBLISH_TIMEOUT;
  final Map<String, Object> producerProperties = new HashMap<>();

  EventPublisherBuilder(String bootstrapServers) {
    if (bootstrapServers == null || bootstrapServers.isBlank()) {
      throw new IllegalArgumentException("bootstrap servers must be non-blank");
    }
    this.bootstrapServers = bootstrapServers;
  }

  abstract B self();

  public B topic(String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("topic must be non-blank");
    }
    topic = value;
    return self();
  }

  /** The CloudEvents {@code source} attribute. */
  public B source(URI value) {
    source = Objects.requireNonNull(value, "source");
    return self();
  }

  /** Upper bound for a publish to succeed or fail; at least 500 ms. */
  public B publishTimeout(Duration value) {
    if (value == null || value.toMillis() < 500 || value.toMillis() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("publish timeout must be between 500 ms and ~24 days, got " + value);
    }
    publishTimeout = value;
    return self();
  }

  /**
   * A raw Kafka producer property, applied over the publisher's own settings (security, client.id, ...).
   * Serializers cannot be overridden; weakening {@code acks} or idempotence gives up the ordering guarantee.
   */
  public B producerProperty(String key, Object value) {
    producerProperties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
    return self();
  }
}
