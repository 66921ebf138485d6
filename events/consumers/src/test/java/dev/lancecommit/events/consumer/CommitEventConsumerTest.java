package dev.lancecommit.events.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.KafkaCommitEventPublisher;
import dev.lancecommit.events.KafkaTopics;
import dev.lancecommit.events.TableEvent;
import dev.lancecommit.events.TableEvents;
import dev.lancecommit.testing.kafka.KafkaBrokerFixture;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The consumer library against one real single-node KRaft broker: events go through a real topic. */
class CommitEventConsumerTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final List<String> ORDERS = List.of("shop", "orders");
  private static final List<String> USERS = List.of("users");

  @RegisterExtension static final KafkaBrokerFixture broker = new KafkaBrokerFixture();

  @TempDir Path dir;

  /** Records what the handler saw, in call order, across threads. */
  static final class Recorder implements CommitHandler {
    final List<CommitEvent> events = new CopyOnWriteArrayList<>();

    @Override
    public void onCommit(CommitEvent event) {
      events.add(event);
    }

    List<Long> versions(String tableUuid) {
      return events.stream().filter(e -> e.tableUuid().equals(tableUuid)).map(CommitEvent::version).toList();
    }
  }

  private static String newTopic() {
    String topic = "consumer-test-" + UUID.randomUUID();
    KafkaTopics.ensureTopic(broker.bootstrapServers(), topic);
    return topic;
  }

  private static ConsumerOptions.Builder options(String topic, String group) {
    return ConsumerOptions.builder(broker.bootstrapServers(), group)
        .topic(topic)
        .pollTimeout(Duration.ofMillis(100))
        .retryBackoff(Duration.ofMillis(100))
        .retryBackoffMax(Duration.ofMillis(400))
        .gapTimeout(Duration.ofMinutes(10));
  }

  /** Publishes in the given order (the publisher keeps call order), waiting for every acknowledgement. */
  private static void publish(String topic, CommitEvent... events) throws Exception {
    try (KafkaCommitEventPublisher publisher =
        KafkaCommitEventPublisher.builder(broker.bootstrapServers()).topic(topic).build()) {
      List<CompletableFuture<Void>> futures = new ArrayList<>();
      for (CommitEvent event : events) {
        futures.add(publisher.publish(event));
      }
      CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
    }
  }

  private static CommitEvent orders(long version) {
    return TestEvents.event(ORDERS, "uuid-orders", version);
  }

  private static CommitEvent users(long version) {
    return TestEvents.event(USERS, "uuid-users", version);
  }

  @Test
  void deliversEachTableInVersionOrderWithoutDuplicates() throws Exception {
    String topic = newTopic();
    // duplicates, a republished version arriving after later ones, and an unrelated record
    publish(topic, orders(1), users(1), orders(2), orders(4), orders(2), users(3), orders(3), users(2), orders(4),
        orders(5), users(1));
    sendRaw(topic, "shop$orders", "not a cloud event".getBytes(StandardCharsets.UTF_8));
    // a table event sharing the topic, as the coordinator publishes them
    sendRaw(topic, "shop$orders", TableEvents.defaults().toStructuredJson(TableEvent.of(TableEvent.Type.DECLARED,
        List.of("shop", "orders"), "uuid-orders", "/w/shop/orders.lance", "alice", java.time.Instant.EPOCH)));

    Recorder recorder = new Recorder();
    try (CommitEventConsumer consumer =
        new CommitEventConsumer(options(topic, "g-order").build(), new InMemoryCheckpointStore(), recorder)) {
      consumer.start();
      await().atMost(WAIT).until(() -> recorder.events.size() >= 8);
      await().atMost(WAIT).until(() -> consumer.stats().invalid() == 1 && consumer.stats().tableEvents() == 1);
      assertThat(recorder.versions("uuid-orders")).containsExactly(1L, 2L, 3L, 4L, 5L);
      assertThat(recorder.versions("uuid-users")).containsExactly(1L, 2L, 3L);
      ConsumerStats stats = consumer.stats();
      assertThat(stats.duplicates()).isEqualTo(3);
      assertThat(stats.pending()).isZero();
      assertThat(stats.gapsSkipped()).isZero();
    }
  }

  @Test
  void bufferedVersionsWaitForTheGapToFill() throws Exception {
    String topic = newTopic();
    publish(topic, orders(1), orders(3), orders(4));
    Recorder recorder = new Recorder();
    try (CommitEventConsumer consumer =
        new CommitEventConsumer(options(topic, "g-gap").build(), new InMemoryCheckpointStore(), recorder)) {
      consumer.start();
      await().atMost(WAIT).until(() -> consumer.stats().pending() == 2);
      assertThat(recorder.versions("uuid-orders")).containsExactly(1L);

      publish(topic, orders(2));
      await().atMost(WAIT).until(() -> recorder.events.size() == 4);
      assertThat(recorder.versions("uuid-orders")).containsExactly(1L, 2L, 3L, 4L);
      assertThat(consumer.stats().gapsSkipped()).isZero();
    }
  }

  @Test
  void aGapThatDoesNotFillIsSkippedAfterTheTimeout() throws Exception {
    String topic = newTopic();
    publish(topic, users(1), users(3), users(4));
    Recorder recorder = new Recorder();
    ConsumerOptions opts = options(topic, "g-timeout").gapTimeout(Duration.ofMillis(500)).build();
    try (CommitEventConsumer consumer = new CommitEventConsumer(opts, new InMemoryCheckpointStore(), recorder)) {
      consumer.start();
      await().atMost(WAIT).until(() -> recorder.events.size() == 3);
      assertThat(recorder.versions("uuid-users")).containsExactly(1L, 3L, 4L);
      assertThat(consumer.stats().gapsSkipped()).isEqualTo(1);

      publish(topic, users(2), users(5)); // the reconciler's late republish of 2 comes after the skip
      await().atMost(WAIT).until(() -> recorder.events.size() == 4);
      await().atMost(WAIT).until(() -> consumer.stats().late() == 1);
      assertThat(recorder.versions("uuid-users")).containsExactly(1L, 3L, 4L, 5L);
    }
  }

  @Test
  void resumesFromTheFileCheckpointAfterARestart() throws Exception {
    String topic = newTopic();
    Path checkpoints = dir.resolve("checkpoints.jsonl");
    publish(topic, orders(1), orders(2), orders(3), users(1));
    Recorder first = new Recorder();
    try (FileCheckpointStore store = FileCheckpointStore.open(checkpoints);
        CommitEventConsumer consumer = new CommitEventConsumer(options(topic, "g-restart").build(), store, first)) {
      consumer.start();
      await().atMost(WAIT).until(() -> first.events.size() == 4);
    }

    // republished duplicates, then new versions out of order
    publish(topic, orders(2), orders(3), users(1), orders(5), orders(4), users(2));
    Recorder second = new Recorder();
    try (FileCheckpointStore store = FileCheckpointStore.open(checkpoints);
        CommitEventConsumer consumer = new CommitEventConsumer(options(topic, "g-restart").build(), store, second)) {
      consumer.start();
      await().atMost(WAIT).until(() -> second.events.size() == 3);
      await().atMost(WAIT).until(() -> consumer.stats().duplicates() == 3);
      assertThat(second.versions("uuid-orders")).containsExactly(4L, 5L);
      assertThat(second.versions("uuid-users")).containsExactly(2L);
    }

    // a new group reads the topic from the start: the checkpoints alone keep it from delivering anything again
    Recorder third = new Recorder();
    try (FileCheckpointStore store = FileCheckpointStore.open(checkpoints);
        CommitEventConsumer consumer = new CommitEventConsumer(options(topic, "g-restart-2").build(), store, third)) {
      consumer.start();
      await().atMost(WAIT).until(() -> consumer.stats().duplicates() == 10);
      assertThat(third.events).isEmpty();
      assertThat(store.checkpoints()).containsEntry("uuid-orders", 5L).containsEntry("uuid-users", 2L);
    }
  }

  @Test
  void offsetsAreNotCommittedPastAnEventStillWaiting() throws Exception {
    String topic = newTopic();
    InMemoryCheckpointStore store = new InMemoryCheckpointStore();
    publish(topic, orders(1), orders(3));
    Recorder first = new Recorder();
    try (CommitEventConsumer consumer = new CommitEventConsumer(options(topic, "g-offsets").build(), store, first)) {
      consumer.start();
      // version 1 is delivered and version 3 waits for 2 (the two are counted independently: await both)
      await().atMost(WAIT).until(() -> consumer.stats().pending() == 1 && first.events.size() == 1);
      assertThat(first.versions("uuid-orders")).containsExactly(1L);
    }
    // version 3 was read but not delivered: the next member of the group must read it again
    publish(topic, orders(2));
    Recorder second = new Recorder();
    try (CommitEventConsumer consumer = new CommitEventConsumer(options(topic, "g-offsets").build(), store, second)) {
      consumer.start();
      await().atMost(WAIT).until(() -> second.events.size() == 2);
      assertThat(second.versions("uuid-orders")).containsExactly(2L, 3L);
    }
  }

  @Test
  void aFailingHandlerIsRetriedUntilItSucceeds() throws Exception {
    String topic = newTopic();
    publish(topic, orders(1), orders(2), orders(3));
    Recorder recorder = new Recorder();
    AtomicInteger failures = new AtomicInteger();
    CommitHandler flaky = event -> {
      if (event.version() == 2 && failures.getAndIncrement() < 2) {
        throw new IllegalStateException("downstream unavailable");
      }
      recorder.onCommit(event);
    };
    try (CommitEventConsumer consumer =
        new CommitEventConsumer(options(topic, "g-retry").build(), new InMemoryCheckpointStore(), flaky)) {
      consumer.start();
      await().atMost(WAIT).until(() -> recorder.events.size() == 3);
      assertThat(recorder.versions("uuid-orders")).containsExactly(1L, 2L, 3L);
      assertThat(consumer.stats().handlerFailures()).isEqualTo(2);
    }
  }

  @Test
  void membersOfAGroupSharingAStoreHandOverTablesAcrossRebalances() throws Exception {
    String topic = newTopic();
    List<List<String>> tables = List.of(List.of("a"), List.of("b"), List.of("c"), List.of("d"), List.of("e"));
    InMemoryCheckpointStore shared = new InMemoryCheckpointStore();
    Recorder recorder = new Recorder();
    publishRound(topic, tables, 1, 3);
    try (CommitEventConsumer first = new CommitEventConsumer(options(topic, "g-rebalance").build(), shared,
        recorder)) {
      first.start();
      await().atMost(WAIT).until(() -> recorder.events.size() == 15);
      CommitEventConsumer second = new CommitEventConsumer(options(topic, "g-rebalance").build(), shared, recorder);
      try (second) {
        second.start();
        publishRound(topic, tables, 4, 6);
        await().atMost(WAIT).until(() -> recorder.events.size() == 30);
      }
      publishRound(topic, tables, 7, 8); // the second member left: the first takes its partitions back
      await().atMost(WAIT).until(() -> recorder.events.size() == 40);
    }
    for (List<String> table : tables) {
      assertThat(recorder.versions("uuid-" + table.get(0))).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);
    }
  }

  private static void publishRound(String topic, List<List<String>> tables, long from, long to) throws Exception {
    List<CommitEvent> events = new ArrayList<>();
    for (long v = from; v <= to; v++) {
      for (List<String> table : tables) {
        events.add(TestEvents.event(table, "uuid-" + table.get(0), v));
      }
    }
    publish(topic, events.toArray(CommitEvent[]::new));
  }

  private static void sendRaw(String topic, String key, byte[] value) throws Exception {
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(props)) {
      producer.send(new ProducerRecord<>(topic, key, value)).get(30, TimeUnit.SECONDS);
    }
  }

}
