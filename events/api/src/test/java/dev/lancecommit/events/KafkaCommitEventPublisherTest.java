package dev.lancecommit.events;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancecommit.testing.kafka.KafkaBrokerFixture;
import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Publisher and reader against one real broker. */
class KafkaCommitEventPublisherTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(30);

  @RegisterExtension static final KafkaBrokerFixture broker = new KafkaBrokerFixture();

  @Test
  void roundTripKeepsPerTableOrderAndIds() throws Exception {
    String topic = "roundtrip.commits";
    assertThat(KafkaTopics.ensureTopic(broker.bootstrapServers(), topic)).isTrue();
    assertThat(KafkaTopics.ensureTopic(broker.bootstrapServers(), topic)).isFalse();
    List<String> orders = List.of("prod", "orders");
    List<String> users = List.of("users");
    List<CommitEvent> published = new ArrayList<>();
    for (long v = 1; v <= 12; v++) {
      published.add(SampleEvents.append(orders, "uuid-orders", v).trace(TraceContext.of(String.format("00-%032x-%016x-01", v, v), null)).build());
      published.add(SampleEvents.append(users, "uuid-users", v).operation(v % 3 == 0 ? "Delete" : "Append").build());
    }

    try (KafkaCommitEventPublisher publisher =
        KafkaCommitEventPublisher.builder(broker.bootstrapServers()).topic(topic).build()) {
      List<CompletableFuture<Void>> futures = published.stream().map(publisher::publish).toList();
      CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    try (CommitEventReader reader = new CommitEventReader(broker.bootstrapServers(), topic)) {
      List<CommitEvent> readOrders = reader.readTable(orders, 12, WAIT);
      List<CommitEvent> readUsers = reader.readTable(users, 12, WAIT);

      assertThat(readOrders).containsExactlyElementsOf(forTable(published, orders));
      assertThat(readUsers).containsExactlyElementsOf(forTable(published, users));
      assertThat(readOrders).extracting(CommitEvent::version).isSorted();
      assertThat(readOrders).extracting(CommitEvent::id).startsWith("uuid-orders:1", "uuid-orders:2");
      assertThat(reader.skippedRecords()).isZero();
    }

    List<ConsumerRecord<String, byte[]>> records = rawRecords(topic, published.size());
    assertThat(records).hasSize(published.size());
    Map<String, Set<Integer>> partitionsByKey =
        records.stream()
            .collect(
                Collectors.groupingBy(
                    ConsumerRecord::key, Collectors.mapping(ConsumerRecord::partition, Collectors.toSet())));
    assertThat(partitionsByKey).containsOnlyKeys("prod$orders", "users");
    assertThat(partitionsByKey.values()).allSatisfy(partitions -> assertThat(partitions).hasSize(1));
    try (CloudEventDeserializer binding = new CloudEventDeserializer()) {
      binding.configure(Map.of(), false);
      for (ConsumerRecord<String, byte[]> record : records) {
        assertThat(new String(record.headers().lastHeader("content-type").value(), StandardCharsets.UTF_8))
            .startsWith("application/cloudevents+json");
        JsonNode data = MAPPER.readTree(record.value()).get("data");
        assertThat(CommitEventSchema.errors(data)).isEmpty();
        // a consumer using the CloudEvents Kafka binding reads the same event
        CloudEvent viaBinding = binding.deserialize(topic, record.headers(), record.value());
        CommitEvent event = CommitEvents.fromCloudEvent(viaBinding);
        assertThat(viaBinding.getId()).isEqualTo(event.tableUuid() + ":" + event.version());
        assertThat(record.key()).isEqualTo(event.tableKey());
      }
    }
  }

  @Test
  void outageFailsPublishWithinTimeoutAndRecoversAfterRestart() throws Exception {
    String topic = "outage.commits";
    KafkaTopics.ensureTopic(broker.bootstrapServers(), topic);
    List<String> table = List.of("ns", "events");
    CommitEvent v1 = SampleEvents.append(table, "uuid-outage", 1).build();
    CommitEvent v2 = SampleEvents.append(table, "uuid-outage", 2).build();
    CommitEvent v3 = SampleEvents.append(table, "uuid-outage", 3).build();
    Duration publishTimeout = Duration.ofSeconds(3);

    try (KafkaCommitEventPublisher publisher =
        KafkaCommitEventPublisher.builder(broker.bootstrapServers())
            .topic(topic)
            .publishTimeout(publishTimeout)
            .build()) {
      publisher.publish(v1).get(WAIT.toSeconds(), TimeUnit.SECONDS);

      broker.stop();
      try {
        CompletableFuture<Void> failed = publisher.publish(v2);
        assertThat(failed).isNotDone();
        assertThat(failed)
            .failsWithin(publishTimeout.plusSeconds(5))
            .withThrowableOfType(ExecutionException.class)
            .withCauseInstanceOf(CommitEventPublishException.class)
            .withMessageContaining("uuid-outage:2");
      } finally {
        broker.start();
      }

      // the same producer recovers; v2 is republished as the coordinator does on resubmission
      publisher.publish(v2).get(WAIT.toSeconds(), TimeUnit.SECONDS);
      publisher.publish(v3).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    assertThat(describe(topic).partitions()).as("topic survived the restart").hasSize(3);
    try (CommitEventReader reader = new CommitEventReader(broker.bootstrapServers(), topic)) {
      List<CommitEvent> read = reader.readTable(table, WAIT);
      Map<String, CommitEvent> byId = new LinkedHashMap<>();
      read.forEach(e -> byId.putIfAbsent(e.id(), e));

      // at least once: a duplicate of v2 is allowed, a loss is not
      assertThat(byId.values()).containsExactly(v1, v2, v3);
    }
  }

  private static List<CommitEvent> forTable(List<CommitEvent> events, List<String> tableId) {
    return events.stream().filter(e -> e.tableId().equals(tableId)).toList();
  }

  private static TopicDescription describe(String topic) throws Exception {
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    try (Admin admin = Admin.create(props)) {
      return admin.describeTopics(List.of(topic)).allTopicNames().get(WAIT.toSeconds(), TimeUnit.SECONDS).get(topic);
    }
  }

  private static List<ConsumerRecord<String, byte[]>> rawRecords(String topic, int expected) throws Exception {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props)) {
      List<TopicPartition> partitions =
          describe(topic).partitions().stream().map(p -> new TopicPartition(topic, p.partition())).toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (records.size() < expected && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
    }
    return records;
  }
}
