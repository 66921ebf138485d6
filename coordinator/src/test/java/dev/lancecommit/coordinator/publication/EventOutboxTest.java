package dev.lancecommit.coordinator.publication;

import static dev.lancecommit.coordinator.publication.PublicationHarness.WAIT;
import static dev.lancecommit.coordinator.publication.PublicationHarness.commit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lancecommit.coordinator.commit.CommitResult;
import dev.lancecommit.coordinator.commit.LaneCommitService;
import dev.lancecommit.coordinator.commit.TableRef;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.KafkaCommitEventPublisher;
import dev.lancecommit.events.kafka.EmbeddedKafkaBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The outbox in front of a real Kafka broker that goes away and comes back, with commits made through the real
 * commit service: commits never wait for Kafka, and the backlog drains in version order.
 */
class EventOutboxTest {
  private static EmbeddedKafkaBroker broker;

  @TempDir Path dir;
  private PublicationHarness harness;

  @BeforeAll
  static void startBroker() {
    broker = EmbeddedKafkaBroker.startTemporary();
  }

  @AfterAll
  static void stopBroker() {
    if (broker != null) {
      broker.close();
    }
  }

  @BeforeEach
  void setUp() {
    harness = new PublicationHarness(dir, broker.bootstrapServers());
  }

  @AfterEach
  void tearDown() throws Exception {
    broker.start(); // a no-op unless a test failed while the broker was down
    harness.close();
  }

  @Test
  void commitsAreAnsweredDuringAKafkaOutageAndTheBacklogDrainsInOrderExactlyOnce() {
    PublicationConfig config = harness.config().build();
    TableRef table = harness.declareTable("shop", "baskets");
    // attempts outlive the outage: Kafka's producer delivers them when the broker is back, nothing is re-sent
    Publication publication = start(config, Duration.ofSeconds(90));
    LaneCommitService commits = harness.commitService(publication.outbox());
    commit(commits, table, harness.create());
    harness.awaitEvents(table, 1);
    await().atMost(WAIT).until(() -> publication.outbox().backlog() == 0);

    broker.stop();
    List<Long> answered = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      CommitResult result = commit(commits, table, harness.append(1 + i));
      answered.add(result.version());
    }
    assertThat(answered).containsExactly(2L, 3L, 4L, 5L, 6L);
    assertThat(publication.outbox().backlog()).as("every event is held while Kafka is away").isEqualTo(5);
    assertThat(publication.outbox().publishedThrough(table.tableUuid())).isEqualTo(1);
    broker.start();

    assertThat(harness.awaitEvents(table, 6)).hasSize(6);
    publication.close();
    List<CommitEvent> events = harness.events(table);
    assertThat(events).extracting(CommitEvent::version).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
    assertThat(events).extracting(CommitEvent::governed).containsOnly(true);
    assertThat(harness.progressOnKafka(config)).containsEntry(table.tableUuid(), 6L);
  }

  @Test
  void attemptsKafkaDoesNotAnswerAreRetriedUntilItReturns() {
    PublicationConfig config = harness.config().build();
    TableRef table = harness.declareTable("shop", "retried");
    Publication publication = start(config, Duration.ofMillis(500));
    LaneCommitService commits = harness.commitService(publication.outbox());
    commit(commits, table, harness.create());
    harness.awaitEvents(table, 1);
    await().atMost(WAIT).until(() -> publication.outbox().backlog() == 0);

    broker.stop();
    for (int i = 0; i < 4; i++) {
      commit(commits, table, harness.append(1 + i));
    }
    long failedBefore = publication.outbox().failedAttempts();
    await().atMost(WAIT).until(() -> publication.outbox().failedAttempts() >= failedBefore + 3);
    broker.start();

    assertThat(harness.awaitEvents(table, 5)).hasSizeGreaterThanOrEqualTo(5);
    publication.close();
    List<Long> versions = harness.events(table).stream().map(CommitEvent::version).toList();
    // An attempt Kafka acknowledged only after it timed out here is sent again: that can only repeat the version
    // right before, never reorder or skip one.
    assertThat(withoutImmediateRepeats(versions)).containsExactly(1L, 2L, 3L, 4L, 5L);
    assertThat(harness.progressOnKafka(config)).containsEntry(table.tableUuid(), 5L);
  }

  @Test
  void eventsBeyondTheMemoryBoundAreReadBackFromStorageInOrder() {
    PublicationConfig config = harness.config().maxQueuedPerTable(2).build();
    TableRef table = harness.declareTable("shop", "bounded");
    Publication publication = start(config, Duration.ofSeconds(90));
    LaneCommitService commits = harness.commitService(publication.outbox());
    commit(commits, table, harness.create());
    harness.awaitEvents(table, 1);
    await().atMost(WAIT).until(() -> publication.outbox().backlog() == 0);

    broker.stop();
    for (int i = 0; i < 8; i++) {
      commit(commits, table, harness.append(1 + i));
    }
    // one in flight, at most two waiting: the rest only exist in storage now
    assertThat(publication.outbox().backlog()).isEqualTo(3);
    broker.start();

    assertThat(harness.awaitEvents(table, 9)).hasSize(9);
    publication.close();
    List<CommitEvent> events = harness.events(table);
    assertThat(events).extracting(CommitEvent::version)
        .containsExactlyElementsOf(LongStream.rangeClosed(1, 9).boxed().toList());
    assertThat(events).extracting(CommitEvent::governed).containsOnly(true);
    assertThat(events).extracting(CommitEvent::rowsAdded).containsOnly(10L);
  }

  @Test
  void aHaltedOutboxPublishesNothingMoreAndRecordsNoProgress() {
    PublicationConfig config = harness.config().build();
    TableRef table = harness.declareTable("shop", "halted");
    Publication publication = start(config, Duration.ofSeconds(90));
    LaneCommitService commits = harness.commitService(publication.outbox());
    commit(commits, table, harness.create());
    harness.awaitEvents(table, 1);
    await().atMost(WAIT).until(() -> harness.progressOnKafka(config).getOrDefault(table.tableUuid(), 0L) == 1L);

    publication.halt();
    commit(commits, table, harness.append(1));
    assertThat(harness.events(table)).extracting(CommitEvent::version).containsExactly(1L);
    assertThat(harness.progressOnKafka(config)).containsEntry(table.tableUuid(), 1L);
  }

  private Publication start(PublicationConfig config, Duration publishTimeout) {
    KafkaCommitEventPublisher kafka = KafkaCommitEventPublisher.builder(harness.bootstrap)
        .topic(harness.topic)
        .publishTimeout(publishTimeout)
        .build();
    return Publication.start(config, harness.bootstrap, kafka, harness.stores::resolve,
        new CatalogTableSource(harness.catalog));
  }

  private static List<Long> withoutImmediateRepeats(List<Long> versions) {
    List<Long> out = new ArrayList<>();
    for (Long version : versions) {
      if (out.isEmpty() || !out.get(out.size() - 1).equals(version)) {
        out.add(version);
      }
    }
    return out;
  }
}
