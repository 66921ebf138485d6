package dev.lancecommit.events;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancecommit.testing.kafka.KafkaBrokerFixture;
import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Table events through one real single-node KRaft broker, on the topic commit events use. */
class KafkaTableEventPublisherTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(30);

  @RegisterExtension static final KafkaBrokerFixture broker = new KafkaBrokerFixture();

  @Test
  void tableEventsShareTheCommitTopicKeyedByTableId() throws Exception {
    String topic = "tables.commits";
    KafkaTopics.ensureTopic(broker.bootstrapServers(), topic);
    Instant t = Instant.parse("2026-12-01T10:00:00Z");
    List<String> orders = List.of("prod", "orders");
    List<String> renamed = List.of("prod", "orders2");
    List<TableEvent> published = List.of(
        TableEvent.of(TableEvent.Type.DECLARED, orders, "u1", "s3://w/prod/orders", "alice", t),
        TableEvent.renamed(orders, renamed, "u1", "s3://w/prod/orders", "bob", t.plusSeconds(1)).withTrace(TraceContext.of("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", null)),
        TableEvent.of(TableEvent.Type.DEREGISTERED, renamed, "u1", "s3://w/prod/orders", "bob", t.plusSeconds(2)),
        TableEvent.of(TableEvent.Type.REGISTERED, renamed, "u1", "s3://w/prod/orders", "bob", t.plusSeconds(3)),
        TableEvent.of(TableEvent.Type.DROPPED, renamed, "u1", "s3://w/prod/orders", "carol", t.plusSeconds(4)));
    CommitEvent commit = SampleEvents.append(renamed, "u1", 1).build();

    try (KafkaTableEventPublisher tables = KafkaTableEventPublisher.builder(broker.bootstrapServers())
            .topic(topic).build();
        KafkaCommitEventPublisher commits = KafkaCommitEventPublisher.builder(broker.bootstrapServers())
            .topic(topic).build()) {
      List<CompletableFuture<Void>> futures = new ArrayList<>();
      for (TableEvent event : published) {
        futures.add(tables.publish(event));
      }
      futures.add(commits.publish(commit));
      CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    List<ConsumerRecord<String, byte[]>> records = readAll(topic, published.size() + 1);
    List<TableEvent> read = new ArrayList<>();
    List<CommitEvent> readCommits = new ArrayList<>();
    try (CloudEventDeserializer binding = new CloudEventDeserializer()) {
      binding.configure(Map.of(), false);
      for (ConsumerRecord<String, byte[]> record : records) {
        CloudEvent ce = binding.deserialize(topic, record.headers(), record.value());
        assertThat(record.key()).isEqualTo(ce.getSubject());
        if (TableEvents.isTableEventType(ce.getType())) {
          TableEvent event = TableEvents.fromCloudEvent(ce);
          assertThat(TableEventSchemas.errors(event.type(), MAPPER.readTree(record.value()).get("data"))).isEmpty();
          read.add(event);
        } else {
          readCommits.add(CommitEvents.fromCloudEvent(ce));
        }
      }
    }
    // one key per table id: the declared event is on "prod$orders", the rest on "prod$orders2" in publish order
    assertThat(read).containsExactlyInAnyOrderElementsOf(published);
    assertThat(read.stream().filter(e -> e.tableId().equals(renamed)).toList())
        .containsExactlyElementsOf(published.subList(1, published.size()));
    assertThat(readCommits).containsExactly(commit);
  }

  @Test
  void unreachableKafkaFailsThePublishWithoutBlockingTheCaller() throws Exception {
    TableEvent event = TableEvent.of(TableEvent.Type.DROPPED, List.of("t"), "u9", "file:///w/t", "a", Instant.now());
    try (KafkaTableEventPublisher publisher = KafkaTableEventPublisher.builder("127.0.0.1:1")
        .publishTimeout(Duration.ofMillis(1000)).build()) {
      CompletableFuture<Void> result = publisher.publish(event);
      assertThat(result).isNotDone();
      assertThat(result).failsWithin(WAIT)
          .withThrowableOfType(ExecutionException.class)
          .withCauseInstanceOf(TableEventPublishException.class)
          .withMessageContaining(event.id());
    }
  }

  private static List<ConsumerRecord<String, byte[]>> readAll(String topic, int expected) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    props.put(ConsumerConfig.GROUP_ID_CONFIG, "table-events-test");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props)) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (records.size() < expected && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
    }
    return records;
  }
}
