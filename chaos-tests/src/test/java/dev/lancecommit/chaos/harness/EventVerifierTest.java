package dev.lancecommit.chaos.harness;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.coordinator.storage.ObjectStores;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.KafkaCommitEventPublisher;
import dev.lancecommit.events.KafkaTopics;
import dev.lancecommit.testing.kafka.KafkaBrokerFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The after-run event checks against a real broker and a real three-version Lance table: events published for every
 * version (with a duplicate) pass; a missing version and an event naming the wrong transaction fail both checks.
 */
class EventVerifierTest {
  @RegisterExtension static final KafkaBrokerFixture kafka = new KafkaBrokerFixture();

  @TempDir
  Path dir;

  private ObjectStores stores;
  private ChaosTable table;
  private TableHistory history;

  @BeforeAll
  static void startKafka() {
    ChaosHarness.quietLogging();
  }

  @BeforeEach
  void writeTable() {
    stores = ObjectStores.localOnly();
    table = new ChaosTable(List.of("ns", "t"), dir.resolve("t.lance").toString(), Map.of(), stores, 10);
    table.lance().createWithLance(0, 2);
    table.lance().appendWithLance(2, 2);
    table.lance().appendWithLance(4, 2);
    history = TableHistory.read(table);
  }

  @AfterEach
  void close() {
    table.close();
    stores.close();
  }

  @Test
  void everyVersionPublishedPassesDespiteDuplicates() throws Exception {
    String topic = topic();
    String tableUuid = UUID.randomUUID().toString();
    try (EventRecorder recorder = EventRecorder.start(kafka.bootstrapServers(), topic, "g-" + topic)) {
      publish(topic, event(tableUuid, 1, history.uuidAt(1)), event(tableUuid, 2, history.uuidAt(2)),
          event(tableUuid, 2, history.uuidAt(2)), event(tableUuid, 3, history.uuidAt(3)));
      boolean caughtUp = recorder.awaitDelivered(Map.of(table.key(), 3L), Duration.ofSeconds(60));

      EventVerifier verifier = new EventVerifier(List.of(history), kafka.bootstrapServers(), topic);
      CheckResult topicCheck = verifier.topicHasEveryVersion();
      CheckResult consumerCheck = verifier.consumerSawEachVersionOnceInOrder(recorder, caughtUp);

      assertThat(topicCheck.passed()).as(topicCheck.detail()).isTrue();
      assertThat(topicCheck.detail()).contains("4 events read (1 duplicates dropped by id");
      assertThat(consumerCheck.passed()).as(consumerCheck.detail()).isTrue();
    }
  }

  @Test
  void missingVersionAndWrongTransactionFail() throws Exception {
    String topic = topic();
    String tableUuid = UUID.randomUUID().toString();
    try (EventRecorder recorder = EventRecorder.start(kafka.bootstrapServers(), topic, "g-" + topic)) {
      publish(topic, event(tableUuid, 1, history.uuidAt(1)), event(tableUuid, 3, UUID.randomUUID().toString()));
      // The consumer waits for version 2 (its gap timeout is hours): version 1 is all it can deliver.
      recorder.awaitDelivered(Map.of(table.key(), 1L), Duration.ofSeconds(60));
      TimeUnit.SECONDS.sleep(2);

      EventVerifier verifier = new EventVerifier(List.of(history), kafka.bootstrapServers(), topic);
      CheckResult topicCheck = verifier.topicHasEveryVersion();
      CheckResult consumerCheck = verifier.consumerSawEachVersionOnceInOrder(recorder, false);

      assertThat(topicCheck.passed()).isFalse();
      assertThat(topicCheck.detail()).contains("versions without an event: [2]").contains("v3 event names transaction");
      assertThat(consumerCheck.passed()).isFalse();
      assertThat(consumerCheck.detail()).contains("delivered [1], expected [1, 2, 3]");
    }
  }

  private static String topic() {
    String topic = "events-" + UUID.randomUUID();
    KafkaTopics.ensureTopic(kafka.bootstrapServers(), topic, 3, (short) 1, Map.of(), Duration.ofSeconds(60));
    return topic;
  }

  private static void publish(String topic, CommitEvent... events) throws Exception {
    try (KafkaCommitEventPublisher publisher = KafkaCommitEventPublisher.builder(kafka.bootstrapServers())
        .topic(topic)
        .publishTimeout(Duration.ofSeconds(60))
        .build()) {
      for (CommitEvent event : events) {
        publisher.publish(event).get(60, TimeUnit.SECONDS);
      }
    }
  }

  private CommitEvent event(String tableUuid, long version, String transactionUuid) {
    return CommitEvent.builder()
        .tableId(table.id())
        .tableUuid(tableUuid)
        .location(table.location())
        .version(version)
        .readVersion(version - 1)
        .operation(version == 1 ? "Overwrite" : "Append")
        .transactionUuid(transactionUuid)
        .manifestPath(table.location() + "/_versions/" + version + ".manifest")
        .committedAt(Instant.now())
        .build();
  }
}
