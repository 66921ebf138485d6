package dev.lancecommit.coordinator.publication;

import static dev.lancecommit.coordinator.publication.PublicationHarness.WAIT;
import static dev.lancecommit.coordinator.publication.PublicationHarness.commit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lancecommit.coordinator.commit.CommitResult;
import dev.lancecommit.coordinator.commit.LaneCommitService;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.KafkaCommitEventPublisher;
import dev.lancecommit.testing.kafka.KafkaBrokerFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The outbox in front of a real Kafka broker that goes away and comes back, with commits made through the real
 * commit service: commits never wait for Kafka, and the backlog drains in version order.
 */
class EventOutboxTest {
  @RegisterExtension static final KafkaBrokerFixture broker = new KafkaBrokerFixture();

  @TempDir Path dir;
  private PublicationHarness harness;

  @BeforeEach
  void setUp() {
    harness = new PublicationHarness(dir, broker.bootstrapServers());
  }

  @AfterEach
  void tearDown() throws Exception {
    broker.start(); // a no-op unless a test failed while the broker was down
    harness.close();
  }

  /**
   * One outage, three outboxes (each with its own warehouse and topics): one whose attempts outlive the outage, one
   * with room for only two events, one whose attempts time out and are retried.
   */
  @Test
  void aKafkaOutageBlocksNoCommitAndEveryBacklogDrainsInVersionOrder() throws Exception {
    try (PublicationHarness bounded = new PublicationHarness(dir.resolve("bounded"), broker.bootstrapServers());
        PublicationHarness retried = new PublicationHarness(dir.resolve("retried"), broker.bootstrapServers())) {
      PublicationConfig patientConfig = harness.config().build();
      PublicationConfig boundedConfig = bounded.config().maxQueuedPerTable(2).build();
      PublicationConfig retriedConfig = retried.config().build();
      // attempts outlive the outage: Kafka's producer delivers them when the broker is back, nothing is re-sent
      Outage patient = new Outage(harness, patientConfig, Duration.ofSeconds(90), "baskets");
      Outage small = new Outage(bounded, boundedConfig, Duration.ofSeconds(90), "bounded");
      Outage impatient = new Outage(retried, retriedConfig, Duration.ofMillis(500), "retried");
      List<Outage> all = List.of(patient, small, impatient);
      for (Outage outage : all) {
        outage.createAndAwaitFirstEvent();
      }

      broker.stop();
      assertThat(patient.commit(5)).containsExactly(2L, 3L, 4L, 5L, 6L);
      assertThat(small.commit(8)).containsExactlyElementsOf(LongStream.rangeClosed(2, 9).boxed().toList());
      assertThat(impatient.commit(4)).containsExactly(2L, 3L, 4L, 5L);
      // events are handed over after the answers: every one is held while Kafka is away
      await().atMost(WAIT).until(() -> patient.outbox().backlog() == 5);
      assertThat(patient.outbox().publishedThrough(patient.table.tableUuid())).isEqualTo(1);
      // one in flight, at most two waiting: the rest only exist in storage now
      await().atMost(WAIT).until(() -> small.outbox().backlog() == 3);
      Thread.sleep(200);
      assertThat(small.outbox().backlog()).isEqualTo(3);
      long failedBefore = impatient.outbox().failedAttempts();
      await().atMost(WAIT).until(() -> impatient.outbox().failedAttempts() >= failedBefore + 3);
      broker.start();

      assertThat(patient.harness.awaitEvents(patient.table, 6)).hasSize(6);
      assertThat(small.harness.awaitEvents(small.table, 9)).hasSize(9);
      assertThat(impatient.harness.awaitEvents(impatient.table, 5)).hasSizeGreaterThanOrEqualTo(5);
      for (Outage outage : all) {
        outage.publication.close();
      }

      List<CommitEvent> patientEvents = harness.events(patient.table);
      assertThat(patientEvents).extracting(CommitEvent::version).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
      assertThat(patientEvents).extracting(CommitEvent::governed).containsOnly(true);
      assertThat(harness.progressOnKafka(patientConfig)).containsEntry(patient.table.tableUuid(), 6L);

      List<CommitEvent> smallEvents = bounded.events(small.table);
      assertThat(smallEvents).as("events dropped from memory are read back from storage, in their place")
          .extracting(CommitEvent::version)
          .containsExactlyElementsOf(LongStream.rangeClosed(1, 9).boxed().toList());
      assertThat(smallEvents).extracting(CommitEvent::governed).containsOnly(true);
      assertThat(smallEvents).extracting(CommitEvent::rowsAdded).containsOnly(10L);
      assertThat(bounded.progressOnKafka(boundedConfig)).containsEntry(small.table.tableUuid(), 9L);

      List<Long> retriedVersions = retried.events(impatient.table).stream().map(CommitEvent::version).toList();
      // An attempt Kafka acknowledged only after it timed out here is sent again: that can only repeat the version
      // right before, never reorder or skip one.
      assertThat(withoutImmediateRepeats(retriedVersions)).containsExactly(1L, 2L, 3L, 4L, 5L);
      assertThat(retried.progressOnKafka(retriedConfig)).containsEntry(impatient.table.tableUuid(), 5L);
    } finally {
      broker.start();
    }
  }

  @Test
  void aHaltedOutboxPublishesNothingMoreAndRecordsNoProgress() {
    PublicationConfig config = harness.config().build();
    TableRef table = harness.declareTable("shop", "halted");
    Publication publication = start(harness, config, Duration.ofSeconds(90));
    LaneCommitService commits = harness.commitService(publication.outbox());
    commit(commits, table, harness.create());
    harness.awaitEvents(table, 1);
    await().atMost(WAIT).until(() -> harness.progressOnKafka(config).getOrDefault(table.tableUuid(), 0L) == 1L);

    publication.halt();
    commit(commits, table, harness.append(1));
    assertThat(harness.events(table)).extracting(CommitEvent::version).containsExactly(1L);
    assertThat(harness.progressOnKafka(config)).containsEntry(table.tableUuid(), 1L);
  }

  private static Publication start(PublicationHarness harness, PublicationConfig config, Duration publishTimeout) {
    KafkaCommitEventPublisher kafka = KafkaCommitEventPublisher.builder(harness.bootstrap)
        .topic(harness.topic)
        .publishTimeout(publishTimeout)
        .build();
    return Publication.start(config, harness.bootstrap, kafka, harness.stores::resolve,
        new CatalogTableSource(harness.catalog));
  }

  /** A table committed through the real commit service into an outbox publishing with the given timeout. */
  private final class Outage {
    final PublicationHarness harness;
    final TableRef table;
    final Publication publication;
    final LaneCommitService commits;

    Outage(PublicationHarness harness, PublicationConfig config, Duration publishTimeout, String name) {
      this.harness = harness;
      this.table = harness.declareTable("shop", name);
      this.publication = start(harness, config, publishTimeout);
      this.commits = harness.commitService(publication.outbox());
    }

    EventOutbox outbox() {
      return publication.outbox();
    }

    void createAndAwaitFirstEvent() {
      PublicationHarness.commit(commits, table, harness.create());
      harness.awaitEvents(table, 1);
      await().atMost(WAIT).until(() -> outbox().backlog() == 0);
    }

    /** Appends {@code count} versions; returns the versions the commits were answered with. */
    List<Long> commit(int count) {
      List<Long> answered = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        CommitResult result = PublicationHarness.commit(commits, table, harness.append(1 + i));
        answered.add(result.version());
      }
      return answered;
    }
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
