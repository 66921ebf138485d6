package dev.lancecommit.events;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** The producer settings every event publisher shares: idempotent, acks=all, bounded by the publish timeout. */
final class EventProducers {
  private EventProducers() {}

  static Properties properties(String bootstrapServers, String clientId, Duration publishTimeout,
      Map<String, Object> overrides) {
    long timeoutMs = publishTimeout.toMillis();
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    props.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
    props.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    // Kafka requires delivery.timeout.ms >= linger.ms + request.timeout.ms.
    props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) timeoutMs);
    props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(30_000, timeoutMs / 2));
    props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeoutMs);
    props.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1000);
    props.putAll(overrides);
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return props;
  }
}
