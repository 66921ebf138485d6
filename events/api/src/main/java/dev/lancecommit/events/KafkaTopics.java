package dev.lancecommit.events;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/** Topic administration for the commit event topic. */
public final class KafkaTopics {
  public static final int DEFAULT_PARTITIONS = 3;
  public static final short DEFAULT_REPLICATION_FACTOR = 1;
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

  private KafkaTopics() {}

  /** {@link #ensureTopic(String, String, int, short, Map, Duration)} with 3 partitions, replication 1, 30 s. */
  public static boolean ensureTopic(String bootstrapServers, String topic) {
    return ensureTopic(
        bootstrapServers, topic, DEFAULT_PARTITIONS, DEFAULT_REPLICATION_FACTOR, Map.of(), DEFAULT_TIMEOUT);
  }

  /**
   * Creates {@code topic} unless it exists. An existing topic is left as it is (its partition count is not checked
   * or changed).
   *
   * @return true if this call created the topic, false if it existed
   * @throws IllegalStateException if the cluster did not answer within {@code timeout} or refused the request
   */
  public static boolean ensureTopic(
      String bootstrapServers,
      String topic,
      int partitions,
      short replicationFactor,
      Map<String, String> topicConfig,
      Duration timeout) {
    if (topic == null || topic.isBlank()) {
      throw new IllegalArgumentException("topic must be non-blank");
    }
    if (partitions < 1 || replicationFactor < 1) {
      throw new IllegalArgumentException("partitions and replication factor must be >= 1");
    }
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    int timeoutMs = (int) Math.max(1, timeout.toMillis());
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMs);
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.min(timeoutMs, 30_000));
    try (Admin admin = Admin.create(props)) {
      NewTopic newTopic = new NewTopic(topic, partitions, replicationFactor).configs(topicConfig);
      admin.createTopics(List.of(newTopic)).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof TopicExistsException) {
        return false;
      }
      throw new IllegalStateException("could not create topic " + topic + ": " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("could not create topic " + topic + " within " + timeout, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topic " + topic, e);
    }
  }
}
