package dev.lancecommit.coordinator.publication;

import static dev.lancecommit.coordinator.publication.PublicationHarness.WAIT;
import static dev.lancecommit.coordinator.publication.PublicationHarness.commit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lancecommit.coordinator.Coordinator;
import dev.lancecommit.coordinator.CoordinatorConfig;
import dev.lancecommit.coordinator.commit.CommitResult;
import dev.lancecommit.coordinator.commit.LaneCommitService;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.e2e.CommitApi;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.CommitEventReader;
import dev.lancecommit.events.TableEvent;
import dev.lancecommit.events.TableEvents;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.kafka.KafkaBrokerFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Publication started while the Kafka broker is down, as after a coordinator restart during an outage: the start
 * returns, commits through the real commit service are answered, nothing is sent; once the broker is back every
 * version's event arrives exactly once and in order, also those the bounded queue had to drop.
 */
class PublicationWithoutKafkaTest {
  @RegisterExtension static final KafkaBrokerFixture broker = new KafkaBrokerFixture();

  @TempDir Path dir;

  @AfterEach
  void restartBroker() {
    broker.start(); // a no-op unless a test failed while the broker was down
  }

  @Test
  void startedDuringAnOutageItAnswersCommitsAndPublishesEveryVersionOnceInOrderWhenKafkaReturns() throws Exception {
    try (PublicationHarness harness = new PublicationHarness(dir, broker.bootstrapServers())) {
      PublicationConfig config = harness.config().build();
      TableRef table = harness.declareTable("shop", "orders");
      // an earlier process published versions 1 and 2 and recorded its progress
      Publication earlier = harness.startPublication(config);
      LaneCommitService earlierCommits = harness.commitService(earlier.outbox());
      commit(earlierCommits, table, harness.create());
      Transaction second = harness.append(1);
      commit(earlierCommits, table, second);
      harness.awaitEvents(table, 2);
      earlier.close();
      assertThat(harness.progressOnKafka(config)).containsEntry(table.tableUuid(), 2L);

      broker.stop();
      Publication publication = harness.startPublication(config);
      LaneCommitService commits = harness.commitService(publication.outbox());
      // a writer that lost the answer resubmits: the lane answers version 2 again and queues its event again
      assertThat(commit(commits, table, second).version()).isEqualTo(2);
      for (long readVersion = 2; readVersion < 7; readVersion++) {
        CommitResult result = commit(commits, table, harness.append(readVersion));
        assertThat(result.version()).isEqualTo(readVersion + 1);
      }
      assertThat(publication.ready()).isFalse();
      assertThat(publication.progress()).isEmpty();
      // events are handed over after the answers: every one waits for the progress
      await().atMost(WAIT).until(() -> publication.outbox().backlog() == 6);
      assertThat(publication.outbox().failedAttempts()).as("nothing was sent before the progress is known")
          .isZero();

      broker.start();
      publication.whenReady().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      assertThat(harness.awaitEvents(table, 7)).hasSizeGreaterThanOrEqualTo(7);
      await().atMost(WAIT).until(() -> publication.outbox().publishedThrough(table.tableUuid()) == 7);
      publication.close();

      List<CommitEvent> events = harness.events(table);
      assertThat(events).as("versions the earlier process published are not published again")
          .extracting(CommitEvent::version).containsExactlyElementsOf(range(1, 7));
      assertThat(events).extracting(CommitEvent::governed).containsOnly(true);
      assertThat(events).extracting(CommitEvent::actor).containsOnly("alice");
      assertThat(harness.progressOnKafka(config)).containsEntry(table.tableUuid(), 7L);
    }
  }

  @Test
  void theTopicsAreCreatedOnceKafkaAnswersAndEventsTheQueueDroppedAreReadBackFromStorage() throws Exception {
    try (PublicationHarness harness = new PublicationHarness(dir, broker.bootstrapServers(), false)) {
      PublicationConfig config = harness.config().maxQueuedPerTable(2).build();
      TableRef table = harness.declareTable("shop", "bounded");

      broker.stop();
      Publication publication = harness.startPublication(config);
      LaneCommitService commits = harness.commitService(publication.outbox());
      commit(commits, table, harness.create());
      for (long readVersion = 1; readVersion < 8; readVersion++) {
        commit(commits, table, harness.append(readVersion));
      }
      assertThat(publication.outbox().backlog()).as("the per-table bound holds while Kafka is away").isEqualTo(2);
      assertThat(publication.ready()).isFalse();

      broker.start();
      assertThat(harness.awaitEvents(table, 8)).hasSizeGreaterThanOrEqualTo(8);
      await().atMost(WAIT).until(() -> publication.outbox().publishedThrough(table.tableUuid()) == 8);
      publication.close();

      List<CommitEvent> events = harness.events(table);
      assertThat(events).extracting(CommitEvent::version).containsExactlyElementsOf(range(1, 8));
      assertThat(events).extracting(CommitEvent::governed).containsOnly(true);
      assertThat(events).extracting(CommitEvent::rowsAdded).containsOnly(10L);
      assertThat(harness.progressOnKafka(config)).containsEntry(table.tableUuid(), 8L);
    }
  }

  @Test
  void aTopicKafkaCannotCreateIsReportedWithTheKeysThatDecideItAndCommitsStillGoOn() throws Exception {
    try (PublicationHarness harness = new PublicationHarness(dir, broker.bootstrapServers(), false)) {
      // one broker cannot hold three replicas
      PublicationConfig config = harness.config().replicationFactor((short) 3).build();
      TableRef table = harness.declareTable("shop", "replicas");
      Publication publication = harness.startPublication(config);
      try {
        assertThat(commit(harness.commitService(publication.outbox()), table, harness.create()).version())
            .isEqualTo(1);
        await().atMost(WAIT).until(() -> publication.startupProblem().isPresent());
        assertThat(publication.startupProblem().orElseThrow()).contains("kafka.topic.replication");
        assertThat(publication.ready()).isFalse();
      } finally {
        publication.close();
      }
    }
  }

  @Test
  void closeAndHaltWhileKafkaNeverCameBackReturnAndTheNextStartPublishesEverything() throws Exception {
    try (PublicationHarness harness = new PublicationHarness(dir, broker.bootstrapServers())) {
      // one attempt would wait a minute for Kafka: close must not wait for it
      PublicationConfig config = harness.config().kafkaTimeout(Duration.ofSeconds(60))
          .shutdownDrain(Duration.ofSeconds(2)).build();
      TableRef closedTable = harness.declareTable("shop", "closed");
      TableRef haltedTable = harness.declareTable("shop", "halted");

      broker.stop();
      Publication closed = harness.startPublication(config);
      Publication halted = harness.startPublication(config);
      commit(harness.commitService(closed.outbox()), closedTable, harness.create());
      LaneCommitService haltedCommits = harness.commitService(halted.outbox());
      commit(haltedCommits, haltedTable, harness.create());
      commit(haltedCommits, haltedTable, harness.append(1));

      CompletableFuture<Void> closing = CompletableFuture.runAsync(closed::close);
      CompletableFuture<Void> halting = CompletableFuture.runAsync(halted::halt);
      await().atMost(Duration.ofSeconds(30)).until(() -> closing.isDone() && halting.isDone());
      closing.join();
      halting.join();
      assertThat(closed.whenReady()).isCompletedExceptionally();
      assertThat(halted.whenReady()).isCompletedExceptionally();
      assertThat(closed.ready()).isFalse();

      broker.start();
      Publication next = harness.startPublication(config);
      assertThat(harness.awaitEvents(closedTable, 1)).hasSize(1);
      assertThat(harness.awaitEvents(haltedTable, 2)).hasSize(2);
      next.close();

      assertThat(harness.events(closedTable)).as("the closed publication sent nothing after Kafka returned")
          .extracting(CommitEvent::version).containsExactly(1L);
      assertThat(harness.events(haltedTable)).extracting(CommitEvent::version).containsExactly(1L, 2L);
      assertThat(harness.progressOnKafka(config))
          .containsEntry(closedTable.tableUuid(), 1L)
          .containsEntry(haltedTable.tableUuid(), 2L);
    }
  }

  @Test
  void aCoordinatorStartedAgainstAStoppedBrokerAnswersCommitsAndPublishesThemWhenTheBrokerIsBack() throws Exception {
    String topic = "lance.commits." + UUID.randomUUID();
    CoordinatorConfig config = CoordinatorConfig.builder()
        .port(0)
        .warehouse(dir.resolve("warehouse").toString())
        .kafka(broker.bootstrapServers())
        .topic(topic)
        .set(CoordinatorConfig.COMMIT_VERIFY_FILES, "false") // the harness's made-up data files are never written
        .build();
    List<String> tableId = List.of("outage", "orders");

    broker.stop();
    // with file checks off the coordinator does not read data files, so the harness's made-up fragment will do
    try (Coordinator coordinator = Coordinator.start(config);
        PublicationHarness txns = new PublicationHarness(dir.resolve("unused"), broker.bootstrapServers(), false)) {
      CommitApi api = new CommitApi(coordinator.restUrl());
      api.createNamespace("outage");
      api.declareTable(tableId);
      CommitApi.Response created = api.commit(tableId, txns.create());
      assertThat(created.status()).as("%s", created).isEqualTo(200);
      assertThat(created.version()).isEqualTo(1);
      assertThat(health(coordinator)).contains("\"events\":\"waiting for Kafka");

      broker.start();
      await().atMost(WAIT).until(() -> health(coordinator).contains("\"events\":\"publishing\""));
      try (CommitEventReader reader = new CommitEventReader(broker.bootstrapServers(), topic)) {
        List<CommitEvent> events = reader.readTable(tableId, 1, WAIT);
        assertThat(events).extracting(CommitEvent::version).containsExactly(1L);
        assertThat(events).extracting(CommitEvent::transactionUuid).containsExactly(created.transactionUuid());
      }
      // the table was declared during the outage: its event waited in the warehouse and is sent now
      assertThat(tableEvents(broker.bootstrapServers(), topic, "outage$orders"))
          .extracting(TableEvent::type).contains(TableEvent.Type.DECLARED);
    }
  }

  private static String health(Coordinator coordinator) throws java.io.IOException, InterruptedException {
    java.net.http.HttpResponse<String> response = java.net.http.HttpClient.newHttpClient().send(
        java.net.http.HttpRequest.newBuilder(java.net.URI.create(coordinator.restUrl() + "/healthz")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    return response.body();
  }

  /** The table events of {@code tableKey} on the topic, once at least one arrived. */
  private static List<TableEvent> tableEvents(String bootstrap, String topic, String tableKey) {
    java.util.Properties props = new java.util.Properties();
    props.put(org.apache.kafka.clients.consumer.ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(org.apache.kafka.clients.consumer.ConsumerConfig.GROUP_ID_CONFIG, "table-events-" + UUID.randomUUID());
    props.put(org.apache.kafka.clients.consumer.ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    List<TableEvent> events = new java.util.ArrayList<>();
    try (org.apache.kafka.clients.consumer.KafkaConsumer<String, byte[]> consumer =
        new org.apache.kafka.clients.consumer.KafkaConsumer<>(props,
            new org.apache.kafka.common.serialization.StringDeserializer(),
            new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      await().atMost(WAIT).until(() -> {
        for (var record : consumer.poll(Duration.ofMillis(500))) {
          if (tableKey.equals(record.key()) && TableEvents.isTableEvent(record.value())) {
            events.add(TableEvents.fromStructuredJson(record.value()));
          }
        }
        return !events.isEmpty();
      });
    }
    return events;
  }

  private static List<Long> range(long first, long last) {
    return LongStream.rangeClosed(first, last).boxed().toList();
  }
}
