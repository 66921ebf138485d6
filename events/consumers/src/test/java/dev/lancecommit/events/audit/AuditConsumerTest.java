package dev.lancecommit.events.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.KafkaCommitEventPublisher;
import dev.lancecommit.events.KafkaTopics;
import dev.lancecommit.events.consumer.CommitEventConsumer;
import dev.lancecommit.events.consumer.ConsumerOptions;
import dev.lancecommit.events.consumer.FileCheckpointStore;
import dev.lancecommit.events.consumer.InMemoryCheckpointStore;
import dev.lancecommit.events.consumer.TestEvents;
import dev.lancecommit.testing.kafka.KafkaBrokerFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The audit consumer fed through a real topic: duplicates, republished versions and a full replay. */
class AuditConsumerTest {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final List<String> ORDERS = List.of("shop", "orders");
  private static final List<String> USERS = List.of("users");

  @RegisterExtension static final KafkaBrokerFixture broker = new KafkaBrokerFixture();

  @TempDir Path dir;

  @Test
  void replayingTheTopicKeepsOneRowPerVersion() throws Exception {
    String topic = "audit-test";
    KafkaTopics.ensureTopic(broker.bootstrapServers(), topic);
    List<CommitEvent> events = new ArrayList<>();
    for (long v = 1; v <= 6; v++) {
      events.add(TestEvents.event(ORDERS, "o-1", v));
      events.add(TestEvents.append(USERS, "u-1", v).actor(v % 2 == 0 ? "bob" : "alice").build());
    }
    events.add(TestEvents.event(ORDERS, "o-1", 3)); // republished duplicates
    events.add(TestEvents.event(USERS, "u-1", 1));
    publish(topic, events);

    Path db = dir.resolve("audit.db");
    try (AuditLog log = AuditLog.open(db);
        FileCheckpointStore store = FileCheckpointStore.open(dir.resolve("audit.checkpoints.jsonl"));
        CommitEventConsumer consumer = new CommitEventConsumer(options(topic, "audit-1"), store,
            new AuditHandler(log))) {
      consumer.start();
      await().atMost(WAIT).until(() -> log.size() == 12 && consumer.stats().duplicates() == 2);
    }

    // a second consumer without checkpoints re-delivers everything: the UNIQUE constraint keeps the log as it was
    try (AuditLog log = AuditLog.open(db);
        CommitEventConsumer consumer = new CommitEventConsumer(options(topic, "audit-2"),
            new InMemoryCheckpointStore(), new AuditHandler(log))) {
      consumer.start();
      await().atMost(WAIT).until(() -> consumer.stats().delivered() == 12);
      assertThat(log.size()).isEqualTo(12);

      TableChanges changes = log.changes(USERS, TestEvents.T0.plusSeconds(120), TestEvents.T0.plusSeconds(300));
      assertThat(changes.entries()).extracting(AuditEntry::version).containsExactly(2L, 3L, 4L);
      assertThat(changes.actors()).containsExactly("alice", "bob");
      assertThat(changes.rowsAdded()).isEqualTo(20 + 30 + 40);
    }
  }

  private static ConsumerOptions options(String topic, String group) {
    return ConsumerOptions.builder(broker.bootstrapServers(), group).topic(topic)
        .pollTimeout(Duration.ofMillis(100)).build();
  }

  private static void publish(String topic, List<CommitEvent> events) throws Exception {
    try (KafkaCommitEventPublisher publisher =
        KafkaCommitEventPublisher.builder(broker.bootstrapServers()).topic(topic).build()) {
      List<CompletableFuture<Void>> futures = events.stream().map(publisher::publish).toList();
      CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
    }
  }
}
