package dev.lancecommit.chaos.trigger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.coordinator.Coordinator;
import dev.lancecommit.coordinator.CoordinatorConfig;
import dev.lancecommit.e2e.CommitApi;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.CommitEventReader;
import dev.lancecommit.events.consumer.CommitEventConsumer;
import dev.lancecommit.events.consumer.ConsumerOptions;
import dev.lancecommit.events.consumer.InMemoryCheckpointStore;
import dev.lancecommit.events.trigger.CompactionPlan;
import dev.lancecommit.events.trigger.CoordinatorClient;
import dev.lancecommit.events.trigger.IndexRefreshPlan;
import dev.lancecommit.events.trigger.LanceMaintenance;
import dev.lancecommit.events.trigger.MaintenanceAction;
import dev.lancecommit.events.trigger.MaintenanceRecorder;
import dev.lancecommit.events.trigger.MaintenanceRunner;
import dev.lancecommit.events.trigger.MaintenanceWorker;
import dev.lancecommit.events.trigger.TriggerHandler;
import dev.lancecommit.events.trigger.TableFiles;
import dev.lancecommit.events.trigger.Transactions;
import dev.lancecommit.events.trigger.TriggerPolicy;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.kafka.KafkaBrokerFixture;
import dev.lancecommit.testing.lance.LanceTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.operation.CreateIndex;
import org.lance.operation.Rewrite;

/**
 * The trigger consumer end to end: a real coordinator publishing to a real Kafka broker, a table grown by many small
 * appends through CommitTable, the trigger consumer compacting it (or rebuilding an index that fell behind) through
 * CommitTable, and stock Lance reading the result.
 */
class TriggerConsumerE2eTest {
  private static final Duration WAIT = Duration.ofMinutes(2);

  @TempDir static Path dir;

  @RegisterExtension static final KafkaBrokerFixture broker = new KafkaBrokerFixture();
  private static Coordinator coordinator;

  @BeforeAll
  static void start() {
    coordinator = Coordinator.start(CoordinatorConfig.builder()
        .port(0)
        .warehouse(dir.resolve("warehouse").toString())
        .kafka(broker.bootstrapServers())
        .build());
  }

  @AfterAll
  static void stop() {
    if (coordinator != null) {
      coordinator.close();
    }
  }

  @Test
  void smallAppendsAreCompactedThroughTheCoordinatorAndLanceReadsTheSameRows() throws Exception {
    CommitApi api = new CommitApi(coordinator.restUrl());
    List<String> table = List.of("trigger", "events");
    api.createNamespace("trigger");
    String location = api.declareTable(table);
    int appends = 10;
    int rowsPerAppend = 10;
    try (LanceTables lance = LanceTables.at(location, Map.of())) {
      CommitApi.Response created = api.commit(table, TransactionFactory.create(
          LanceProtos.schema(LanceTables.ROW_SCHEMA), LanceProtos.fragments(lance.writeRows(0, rowsPerAppend))));
      assertThat(created.status()).as(created.toString()).isEqualTo(200);
      long version = created.version();
      for (int i = 1; i < appends; i++) {
        Transaction append = TransactionFactory.append(version,
            LanceProtos.fragments(lance.writeRows((long) i * rowsPerAppend, rowsPerAppend)));
        CommitApi.Response r = api.commit(table, append);
        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        version = r.version();
      }
      long lastAppend = version;
      List<Long> expectedIds = LongStream.range(0, (long) appends * rowsPerAppend).boxed().toList();
      try (Dataset before = lance.open(lastAppend)) {
        assertThat(before.getFragments()).hasSize(appends);
      }

      MaintenanceRecorder.InMemory recorder = new MaintenanceRecorder.InMemory();
      TriggerPolicy policy = new TriggerPolicy(4, 50, 256, -1);
      ConsumerOptions options = ConsumerOptions.builder(broker.bootstrapServers(), "trigger-e2e")
          .topic(coordinator.topic())
          .pollTimeout(Duration.ofMillis(200))
          .build();
      try (LanceMaintenance worker = new LanceMaintenance(Map.of());
          CommitEventConsumer consumer = new CommitEventConsumer(options, new InMemoryCheckpointStore(),
              new TriggerHandler(new MaintenanceRunner(new CoordinatorClient(coordinator.restUrl()), policy, worker,
                  recorder, 5)))) {
        consumer.start();
        await().atMost(WAIT).until(() -> !recorder.actions().isEmpty());
        // the consumer also sees the Rewrite it committed, and finds nothing more to do
        await().atMost(WAIT).until(() -> consumer.stats().delivered() >= appends + 1);
      }

      List<MaintenanceAction> actions = recorder.actions();
      assertThat(actions).hasSize(1);
      MaintenanceAction compaction = actions.get(0);
      assertThat(compaction.kind()).isEqualTo(MaintenanceAction.Kind.COMPACTION);
      assertThat(compaction.status()).as(compaction.detail()).isEqualTo(MaintenanceAction.Status.COMMITTED);
      assertThat(compaction.planVersion()).isEqualTo(lastAppend);
      assertThat(compaction.committedVersion()).isEqualTo(lastAppend + 1);
      assertThat(api.latestVersion(table)).isEqualTo(lastAppend + 1);

      // stock Lance reads the compacted version: one fragment, the same rows; the old version still reads too
      try (Dataset compacted = lance.open()) {
        assertThat(compacted.version()).isEqualTo(lastAppend + 1);
        assertThat(compacted.getFragments()).hasSize(1);
        assertThat(compacted.countRows()).isEqualTo(expectedIds.size());
        assertThat(compacted.readTransaction().orElseThrow().operation()).isInstanceOf(Rewrite.class);
      }
      assertThat(sorted(lance.readIds(lastAppend + 1))).isEqualTo(expectedIds);
      assertThat(sorted(lance.readIds(lastAppend))).isEqualTo(expectedIds);
      assertThat(lance.readColumn(lastAppend + 1, "value")).containsExactlyInAnyOrderElementsOf(
          expectedIds.stream().map(LanceTables::valueOf).toList());
    }

    // the coordinator published the Rewrite like any other commit
    try (CommitEventReader reader = new CommitEventReader(broker.bootstrapServers(), coordinator.topic())) {
      List<CommitEvent> events = reader.readTable(table, appends + 1, WAIT);
      CommitEvent rewrite = events.get(events.size() - 1);
      assertThat(rewrite.operation()).isEqualTo("Rewrite");
      assertThat(rewrite.fragmentsRemoved()).isEqualTo(appends);
      assertThat(rewrite.fragmentsAdded()).isEqualTo(1);
      assertThat(rewrite.rowsAdded()).isEqualTo(rewrite.rowsRemoved());
    }
  }

  @Test
  void anIndexThatFellBehindIsRebuiltAndCommittedThroughTheCoordinator() throws Exception {
    CommitApi api = new CommitApi(coordinator.restUrl());
    List<String> table = List.of("trigger", "indexed");
    api.createNamespace("trigger");
    String location = api.declareTable(table);
    try (LanceTables lance = LanceTables.at(location, Map.of());
        LanceMaintenance worker = new LanceMaintenance(Map.of())) {
      CommitApi.Response created = api.commit(table, TransactionFactory.create(
          LanceProtos.schema(LanceTables.ROW_SCHEMA), LanceProtos.fragments(lance.writeRows(0, 200))));
      assertThat(created.status()).as(created.toString()).isEqualTo(200);
      // the first index, over fragment 0, built by Lance and committed through the coordinator
      Manifest v1 = TableFiles.at(location).latestManifest().manifest();
      IndexMetadata first = worker.rebuildIndex(location, 1, v1, new IndexRefreshPlan("id_idx", List.of(),
          List.of(0), IndexRefreshPlan.BTREE_DETAILS, List.of(), 0), List.of(0L));
      CommitApi.Response indexed = api.commit(table, Transactions.createIndex(1, List.of(first), List.of()));
      assertThat(indexed.status()).as(indexed.toString()).isEqualTo(200);
      long version = indexed.version();
      for (int i = 0; i < 2; i++) {
        CommitApi.Response r = api.commit(table, TransactionFactory.append(version,
            LanceProtos.fragments(lance.writeRows(200 + 100L * i, 100))));
        assertThat(r.status()).as(r.toString()).isEqualTo(200);
        version = r.version();
      }
      long lastAppend = version;
      try (Dataset before = lance.open()) {
        assertThat(((Number) before.getIndexStatistics("id_idx").get("num_unindexed_rows")).longValue())
            .isEqualTo(200);
      }

      MaintenanceRecorder.InMemory recorder = new MaintenanceRecorder.InMemory();
      TriggerPolicy policy = new TriggerPolicy(4, 50, 256, 150);
      ConsumerOptions options = ConsumerOptions.builder(broker.bootstrapServers(), "trigger-e2e-index")
          .topic(coordinator.topic())
          .pollTimeout(Duration.ofMillis(200))
          .build();
      try (CommitEventConsumer consumer = new CommitEventConsumer(options, new InMemoryCheckpointStore(),
          new TriggerHandler(new MaintenanceRunner(new CoordinatorClient(coordinator.restUrl()), policy, worker,
              recorder, 5)))) {
        consumer.start();
        await().atMost(WAIT).until(() -> recorder.actions().stream()
            .anyMatch(a -> a.table().equals("trigger$indexed")));
      }
      List<MaintenanceAction> actions = recorder.actions().stream()
          .filter(a -> a.table().equals("trigger$indexed")).toList();
      assertThat(actions).hasSize(1);
      MaintenanceAction refresh = actions.get(0);
      assertThat(refresh.kind()).isEqualTo(MaintenanceAction.Kind.INDEX_REFRESH);
      assertThat(refresh.status()).as(refresh.detail()).isEqualTo(MaintenanceAction.Status.COMMITTED);
      assertThat(refresh.rows()).isEqualTo(200);
      assertThat(refresh.committedVersion()).isEqualTo(lastAppend + 1);

      try (Dataset refreshed = lance.open()) {
        assertThat(refreshed.version()).isEqualTo(lastAppend + 1);
        assertThat(refreshed.listIndexes()).containsExactly("id_idx");
        Map<String, Object> stats = refreshed.getIndexStatistics("id_idx");
        assertThat(((Number) stats.get("num_unindexed_rows")).longValue()).isZero();
        assertThat(((Number) stats.get("num_indexed_rows")).longValue()).isEqualTo(400);
        assertThat(refreshed.countRows("id >= 250")).isEqualTo(150);
        assertThat(refreshed.readTransaction().orElseThrow().operation()).isInstanceOf(CreateIndex.class);
      }
    }
  }

  /**
   * A concurrent Delete removes one of the fragments being compacted between planning and committing: the coordinator
   * answers 409 code 14, the runner plans again on the new version and commits a Rewrite of the remaining fragments.
   */
  @Test
  void aRetryableConflictIsRebuiltOnTheNewVersion() throws Exception {
    CommitApi api = new CommitApi(coordinator.restUrl());
    List<String> table = List.of("trigger", "contended");
    api.createNamespace("trigger");
    String location = api.declareTable(table);
    try (LanceTables lance = LanceTables.at(location, Map.of());
        LanceMaintenance lanceWorker = new LanceMaintenance(Map.of())) {
      long version = api.commit(table, TransactionFactory.create(LanceProtos.schema(LanceTables.ROW_SCHEMA),
          LanceProtos.fragments(lance.writeRows(0, 10)))).version();
      for (int i = 1; i < 6; i++) {
        version = api.commit(table, TransactionFactory.append(version,
            LanceProtos.fragments(lance.writeRows(10L * i, 10)))).version();
      }
      long lastAppend = version;
      long victim;
      try (Dataset ds = lance.open()) {
        victim = ds.getFragments().get(2).getId();
      }
      int[] compactions = {0};
      MaintenanceWorker racing = new MaintenanceWorker() {
        @Override
        public List<DataFragment> compact(String at, long planned, CompactionPlan plan, Optional<String> format) {
          if (compactions[0]++ == 0) {
            // another writer deletes a fragment the plan is about to rewrite, and commits first
            CommitApi.Response deleted = api.commit(table,
                TransactionFactory.delete(planned, List.of(), List.of(victim)));
            assertThat(deleted.status()).as(deleted.toString()).isEqualTo(200);
          }
          return lanceWorker.compact(at, planned, plan, format);
        }

        @Override
        public IndexMetadata rebuildIndex(String at, long planned, Manifest manifest, IndexRefreshPlan plan,
            List<Long> fragmentIds) {
          return lanceWorker.rebuildIndex(at, planned, manifest, plan, fragmentIds);
        }

        @Override
        public void close() {}
      };
      MaintenanceRecorder.InMemory recorder = new MaintenanceRecorder.InMemory();
      MaintenanceRunner runner = new MaintenanceRunner(new CoordinatorClient(coordinator.restUrl()),
          new TriggerPolicy(4, 50, 256, -1), racing, recorder, 3);
      CommitEvent lastEvent = CommitEvent.builder().tableId(table).tableUuid("contended").location(location)
          .version(lastAppend).readVersion(lastAppend - 1).operation("Append")
          .manifestPath(location + "/_versions/x.manifest").committedAt(java.time.Instant.now()).build();

      runner.run(lastEvent);

      assertThat(compactions[0]).isEqualTo(2);
      List<MaintenanceAction> actions = recorder.actions();
      assertThat(actions).hasSize(1);
      assertThat(actions.get(0).status()).as(actions.get(0).detail()).isEqualTo(MaintenanceAction.Status.COMMITTED);
      assertThat(actions.get(0).planVersion()).isEqualTo(lastAppend + 1); // rebuilt on the Delete's version
      assertThat(actions.get(0).committedVersion()).isEqualTo(lastAppend + 2);
      assertThat(actions.get(0).fragmentIds()).hasSize(5).doesNotContain(victim);
      try (Dataset compacted = lance.open()) {
        assertThat(compacted.version()).isEqualTo(lastAppend + 2);
        assertThat(compacted.getFragments()).hasSize(1);
        assertThat(compacted.readTransaction().orElseThrow().operation()).isInstanceOf(Rewrite.class);
      }
      List<Long> expected = LongStream.range(0, 60).filter(id -> id / 10 != 2).boxed().toList();
      assertThat(sorted(lance.readIds(lastAppend + 2))).isEqualTo(expected);
    }
  }

  private static List<Long> sorted(List<Long> ids) {
    List<Long> copy = new ArrayList<>(ids);
    copy.sort(null);
    return copy;
  }
}
