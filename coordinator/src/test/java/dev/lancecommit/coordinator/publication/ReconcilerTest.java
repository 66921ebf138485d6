package dev.lancecommit.coordinator.publication;

import dev.lancecommit.coordinator.commit.VersionEvents;
import static dev.lancecommit.coordinator.publication.PublicationHarness.WAIT;
import static dev.lancecommit.coordinator.publication.PublicationHarness.commit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.coordinator.commit.CommitResult;
import dev.lancecommit.coordinator.commit.CommitEventSink;
import dev.lancecommit.coordinator.commit.LaneCommitService;
import dev.lancecommit.coordinator.refs.Branches;
import dev.lancecommit.coordinator.refs.RefLocks;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.coordinator.storage.ObjectInfo;
import dev.lancecommit.coordinator.storage.ObjectStores;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.coordinator.table.TableVersions;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.format.WriterVersions;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.kafka.KafkaBrokerFixture;
import dev.lancecommit.testing.ForwardingObjectStore;
import dev.lancecommit.testing.S3ProxyFixture;
import dev.lancecommit.testing.lance.LanceTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reconciler against a real Kafka broker and real tables on a local store: versions whose event a crash lost,
 * versions written around the coordinator (with our builder and with stock Lance), cleaned-up history, and
 * interleavings of all of these with live commits.
 */
class ReconcilerTest {
  @RegisterExtension static final KafkaBrokerFixture broker = new KafkaBrokerFixture();

  @TempDir Path dir;
  private PublicationHarness harness;

  @BeforeEach
  void setUp() {
    harness = new PublicationHarness(dir, broker.bootstrapServers());
  }

  @AfterEach
  void tearDown() throws Exception {
    harness.close();
  }

  @Test
  void anEventLostBetweenManifestWriteAndPublishIsPublishedOnceAfterRestart() {
    PublicationConfig config = harness.config().build();
    TableRef table = harness.declareTable("sales", "orders");
    Publication first = harness.startPublication(config);
    LaneCommitService commits = harness.commitService(first.outbox());
    commit(commits, table, harness.create());
    commit(commits, table, harness.append(1));
    assertThat(harness.awaitEvents(table, 2)).extracting(CommitEvent::version).containsExactly(1L, 2L);
    await().atMost(WAIT).until(() -> harness.progressOnKafka(config).getOrDefault(table.tableUuid(), 0L) == 2L);

    first.halt(); // the coordinator dies: what it holds in memory is gone
    Transaction lost = harness.append(2);
    CommitResult answered = commit(commits, table, lost);
    assertThat(answered.version()).isEqualTo(3);
    assertThat(harness.events(table)).as("the event of version 3 is really missing")
        .extracting(CommitEvent::version).containsExactly(1L, 2L);

    Publication second = harness.startPublication(config); // a new coordinator on the same store and Kafka
    assertThat(harness.awaitEvents(table, 3)).hasSize(3);
    second.close(); // drains: whatever it would still publish is on the topic now

    List<CommitEvent> events = harness.events(table);
    assertThat(events).extracting(CommitEvent::version).containsExactly(1L, 2L, 3L);
    CommitEvent recovered = events.get(2);
    assertThat(recovered.id()).isEqualTo(table.tableUuid() + ":3");
    assertThat(recovered.governed()).isTrue();
    assertThat(recovered.operation()).isEqualTo("Append");
    assertThat(recovered.transactionUuid()).isEqualTo(lost.getUuid());
    assertThat(recovered.readVersion()).isEqualTo(2);
    assertThat(recovered.fragmentsAdded()).isEqualTo(1);
    assertThat(recovered.rowsAdded()).isEqualTo(10);
    assertThat(recovered.rowsRemoved()).isZero();
    assertThat(recovered.manifestPath()).isEqualTo(answered.manifestPath());
    assertThat(recovered.tableId()).isEqualTo(table.id());
    assertThat(recovered.members()).singleElement().satisfies(m -> {
      assertThat(m.transactionUuid()).isEqualTo(lost.getUuid());
      assertThat(m.newFragmentIds()).as("read from the version's manifest, as the answer said")
          .isEqualTo(answered.newFragmentIds()).hasSize(1);
    });
    // the lane writes the transaction as the writer sent it, so a rebuilt event cannot name the caller
    assertThat(recovered.actor()).isEqualTo(CommitEvent.ANONYMOUS);
    assertThat(harness.progressOnKafka(config)).containsEntry(table.tableUuid(), 3L);
  }

  @Test
  void aVersionAppendedWithStockLanceAroundTheCoordinatorIsPublishedUngovernedInItsPlace() {
    PublicationConfig config = harness.config().build();
    TableRef table = harness.declareTable("lake", "clicks");
    Publication publication = harness.startPublication(config);
    LaneCommitService commits = harness.commitService(publication.outbox());
    long rogueVersion;
    try (LanceTables lance = LanceTables.at(table.location(), Map.of())) {
      commit(commits, table, TransactionFactory.create(LanceProtos.schema(LanceTables.ROW_SCHEMA),
          LanceProtos.fragments(lance.writeRows(0, 10))));
      rogueVersion = lance.appendWithLance(10, 5);
      // built on version 1, as the lane knows the table: it finds version 2 taken and lands on 3
      CommitResult third = commit(commits, table,
          TransactionFactory.append(1, LanceProtos.fragments(lance.writeRows(15, 7))));
      assertThat(third.version()).isEqualTo(3);
      assertThat(lance.countRows(3)).isEqualTo(22);
    }
    assertThat(rogueVersion).isEqualTo(2);

    assertThat(harness.awaitEvents(table, 3)).hasSize(3);
    publication.close();

    List<CommitEvent> events = harness.events(table);
    assertThat(events).extracting(CommitEvent::version).containsExactly(1L, 2L, 3L);
    assertThat(events).extracting(CommitEvent::governed).containsExactly(true, false, true);
    CommitEvent rogue = events.get(1);
    assertThat(rogue.actor()).isEqualTo(VersionEvents.UNKNOWN_ACTOR);
    assertThat(rogue.operation()).isEqualTo("Append");
    assertThat(rogue.rowsAdded()).isEqualTo(5);
    assertThat(rogue.fragmentsAdded()).isEqualTo(1);
    assertThat(rogue.readVersion()).isEqualTo(1);
    assertThat(rogue.transactionUuid()).isNotBlank();
    assertThat(events.get(0).actor()).isEqualTo("alice");
    assertThat(events.get(2).actor()).isEqualTo("alice");
    assertThat(events.get(2).rowsAdded()).isEqualTo(7);
  }

  @Test
  void eventsLeaveInVersionOrderWhateverInterleavesCommitsRogueWritesAndReconciliation() {
    PublicationConfig config = harness.config()
        .reconcileInterval(Duration.ofMillis(150)) // passes race with gap-driven reconciliation
        .gapReconcileDelay(Duration.ZERO)
        .liveGrace(Duration.ofSeconds(5)) // the commit that wrote a version publishes it, not the reconciler
        .build();
    TableRef table = harness.declareTable("ops", "metrics");
    Publication publication = harness.startPublication(config);
    LaneCommitService commits = harness.commitService(publication.outbox());
    commit(commits, table, harness.create());

    // 20 commits and 10 rogue writes in a shuffled order: every rogue write leaves the next commit's event waiting
    // for it, while periodic passes and gap-driven ones race to supply it
    List<Boolean> steps = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      steps.add(i < 20);
    }
    Collections.shuffle(steps, new Random(42));
    for (boolean throughCoordinator : steps) {
      if (throughCoordinator) {
        commit(commits, table, harness.append(1));
      } else {
        harness.writeAround(table, PublicationHarness.ROGUE_WRITER);
      }
    }

    TableOperations storage = harness.storage(table);
    TableVersions listing = storage.versions();
    assertThat(listing.versions()).hasSize(31);
    assertThat(harness.awaitEvents(table, 31)).hasSize(31);
    publication.close();

    List<CommitEvent> events = harness.events(table);
    assertThat(events).extracting(CommitEvent::version)
        .containsExactlyElementsOf(LongStream.rangeClosed(1, 31).boxed().toList());
    for (CommitEvent event : events) {
      boolean byCoordinator = WriterVersions.writtenByCoordinator(
          storage.readManifest(event.version(), listing.scheme().orElseThrow()).orElseThrow().manifest());
      assertThat(event.governed()).as("version %s", event.version()).isEqualTo(byCoordinator);
    }
    assertThat(events).filteredOn(e -> !e.governed()).hasSize(10)
        .allSatisfy(e -> assertThat(e.actor()).isEqualTo(VersionEvents.UNKNOWN_ACTOR));
    // the live events won: none of the coordinator's versions was rebuilt from storage without its actor
    assertThat(events).filteredOn(CommitEvent::governed).hasSize(21)
        .allSatisfy(e -> assertThat(e.actor()).isEqualTo("alice"));
  }

  @Test
  void versionsCleanedUpBeforeTheyWerePublishedDoNotHoldBackTheRest() {
    PublicationConfig config = harness.config().build();
    TableRef table = harness.declareTable("hist", "cleaned");
    // history written while nothing published: versions 1..5, then Lance-style cleanup removes 1 and 2
    commit(harness.commitService(CommitEventSink.discard()), table, harness.create());
    for (int i = 0; i < 4; i++) {
      harness.writeAround(table, PublicationHarness.ROGUE_WRITER);
    }
    for (long version = 1; version <= 2; version++) {
      harness.removeVersion(table, version);
    }
    assertThat(harness.storage(table).versions().versions()).containsExactly(3L, 4L, 5L);

    Publication publication = harness.startPublication(config);
    LaneCommitService commits = harness.commitService(publication.outbox());
    CommitResult sixth = commit(commits, table, harness.append(5));
    assertThat(sixth.version()).isEqualTo(6);
    assertThat(harness.awaitEvents(table, 4)).hasSize(4);
    publication.close();

    List<CommitEvent> events = harness.events(table);
    assertThat(events).extracting(CommitEvent::version).containsExactly(3L, 4L, 5L, 6L);
    assertThat(events).extracting(CommitEvent::governed).containsExactly(false, false, false, true);
    assertThat(harness.progressOnKafka(config)).containsEntry(table.tableUuid(), 6L);
  }

  @Test
  void aBranchIsPublishedAsAStreamOfItsOwnAndVersionsWrittenAroundItAreReconciled() {
    PublicationConfig config = harness.config().build();
    TableRef table = harness.declareTable("lake", "branched");
    Publication publication = harness.startPublication(config);
    LaneCommitService commits = harness.commitService(publication.outbox());
    commit(commits, table, harness.create());
    commit(commits, table, harness.append(1));
    Branches branches = new Branches(harness.stores::resolve, commits, new RefLocks(), ForkJoinPool.commonPool(),
        java.time.Clock.systemUTC());
    branches.create(table, "dev", null, java.util.OptionalLong.of(1), "alice").join(); // dev@1, the Clone
    TableRef dev = table.onBranch("dev");
    long around = harness.writeAround(dev, PublicationHarness.ROGUE_WRITER); // dev@2, around the coordinator
    assertThat(around).isEqualTo(2);
    commit(commits, dev, harness.append(2)); // dev@3, through the branch's lane: the outbox waits for dev@2
    commit(commits, table, harness.append(2)); // main@3

    publication.reconciler().reconcileAllNow(WAIT);
    assertThat(harness.awaitEvents(table, 6)).hasSize(6);
    publication.close();

    List<CommitEvent> events = harness.events(table);
    assertThat(events.stream().filter(e -> e.branch() == null)).extracting(CommitEvent::id)
        .containsExactly(table.tableUuid() + ":1", table.tableUuid() + ":2", table.tableUuid() + ":3");
    List<CommitEvent> onDev = events.stream().filter(e -> "dev".equals(e.branch())).toList();
    assertThat(onDev).extracting(CommitEvent::id).containsExactly(table.tableUuid() + "@dev:1",
        table.tableUuid() + "@dev:2", table.tableUuid() + "@dev:3");
    assertThat(onDev).extracting(CommitEvent::operation).containsExactly("Clone", "Append", "Append");
    assertThat(onDev).extracting(CommitEvent::governed).containsExactly(true, false, true);
    assertThat(onDev).allMatch(e -> e.manifestPath().contains("/tree/dev/_versions/"));
    assertThat(onDev).allMatch(e -> e.location().equals(table.location()));
    assertThat(harness.progressOnKafka(config)).containsEntry(table.tableUuid(), 3L)
        .containsEntry(table.tableUuid() + "@dev", 3L);
  }

  @Test
  void aRebuiltGovernedEventNamesTheActorTheCoordinatorRecordedInTheTransaction() {
    PublicationConfig config = harness.config().build();
    TableRef table = harness.declareTable("audit", "recorded");
    commit(harness.commitService(CommitEventSink.discard()), table, harness.create());
    harness.writeAround(table, WriterVersions.coordinator(), Map.of(VersionEvents.ACTOR_PROPERTY, "bob"));
    harness.writeAround(table, PublicationHarness.ROGUE_WRITER, Map.of(VersionEvents.ACTOR_PROPERTY, "mallory"));

    Publication publication = harness.startPublication(config);
    publication.reconciler().reconcileAllNow(WAIT);
    assertThat(harness.awaitEvents(table, 3)).hasSize(3);
    publication.close();

    List<CommitEvent> events = harness.events(table);
    assertThat(events).extracting(CommitEvent::version).containsExactly(1L, 2L, 3L);
    assertThat(events).extracting(CommitEvent::actor)
        .containsExactly(CommitEvent.ANONYMOUS, "bob", VersionEvents.UNKNOWN_ACTOR);
    assertThat(events).extracting(CommitEvent::governed).containsExactly(true, true, false);
  }

  @Test
  void aRebuiltGovernedEventNamesTheBatchRecordedInTheTransactionAndARogueOneDoesNot() {
    PublicationConfig config = harness.config().build();
    TableRef table = harness.declareTable("audit", "batched");
    commit(harness.commitService(CommitEventSink.discard()), table, harness.create());
    harness.writeAround(table, WriterVersions.coordinator(), Map.of(VersionEvents.BATCH_PROPERTY, "batch-7"));
    harness.writeAround(table, PublicationHarness.ROGUE_WRITER, Map.of(VersionEvents.BATCH_PROPERTY, "forged"));

    Publication publication = harness.startPublication(config);
    publication.reconciler().reconcileAllNow(WAIT);
    assertThat(harness.awaitEvents(table, 3)).hasSize(3);
    publication.close();

    assertThat(harness.events(table)).extracting(CommitEvent::version, CommitEvent::batchId)
        .containsExactly(tuple(1L, null), tuple(2L, "batch-7"), tuple(3L, null));
  }

  @Test
  void everyCataloguedTableIsReconciledAndAnUnchangedTablePublishesNothingMore() {
    PublicationConfig config = harness.config().build();
    List<TableRef> tables = new ArrayList<>();
    for (int t = 0; t < 3; t++) {
      TableRef table = harness.declareTable("many", "t" + t);
      commit(harness.commitService(CommitEventSink.discard()), table, harness.create());
      for (int i = 0; i < t; i++) {
        harness.writeAround(table, PublicationHarness.ROGUE_WRITER);
      }
      tables.add(table);
    }
    harness.declareTable("many", "empty"); // declared, never written: nothing to publish

    Publication publication = harness.startPublication(config);
    for (TableRef table : tables) {
      assertThat(harness.awaitEvents(table, tables.indexOf(table) + 1)).hasSize(tables.indexOf(table) + 1);
    }
    publication.reconciler().reconcileAllNow(WAIT); // a second pass finds everything published
    publication.close();

    for (TableRef table : tables) {
      int expected = tables.indexOf(table) + 1;
      assertThat(harness.events(table)).extracting(CommitEvent::version)
          .containsExactlyElementsOf(LongStream.rangeClosed(1, expected).boxed().toList());
      assertThat(harness.progressOnKafka(config)).containsEntry(table.tableUuid(), (long) expected);
    }
  }

  /**
   * Publication of a table whose history starts where its Clone source was (version 3 here, not 1): the live event
   * of the clone leaves although versions 1 and 2 never exist, and the reconciler publishes what storage has from
   * the first existing version on, ungoverned versions written around the coordinator included.
   */
  @Nested
  class CloneHistories {
    @Test
    void theCloneEventLeavesLiveAndALostOneIsRecoveredFromTheFirstExistingVersion() {
      // No gap reconciliation in this test's time: the clone's event must not wait for versions 1 and 2.
      PublicationConfig config = harness.config().gapReconcileDelay(Duration.ofHours(1)).build();
      TableRef source = sourceWithThreeVersions();
      TableRef clone = harness.declareTable("dst", "live");

      Publication first = harness.startPublication(config);
      LaneCommitService commits = harness.commitService(first.outbox());
      Transaction cloneTxn = clone(source, 3);
      assertThat(commit(commits, clone, cloneTxn).version()).isEqualTo(3);
      assertThat(commit(commits, clone, harness.append(3)).version()).isEqualTo(4);
      assertThat(harness.awaitEvents(clone, 2)).extracting(CommitEvent::version).containsExactly(3L, 4L);
      await().atMost(WAIT).until(() -> harness.progressOnKafka(config).getOrDefault(clone.tableUuid(), 0L) == 4L);

      first.halt(); // the coordinator dies; the next version's event is lost with it
      assertThat(commit(commits, clone, harness.append(4)).version()).isEqualTo(5);
      long rogue = harness.writeAround(clone, PublicationHarness.ROGUE_WRITER);
      assertThat(rogue).isEqualTo(6);

      Publication second = harness.startPublication(config);
      harness.awaitEvents(clone, 4);
      second.close();
      List<CommitEvent> events = harness.events(clone);
      assertThat(events).extracting(CommitEvent::version).containsExactly(3L, 4L, 5L, 6L);
      assertThat(events).extracting(CommitEvent::governed).containsExactly(true, true, true, false);
      CommitEvent created = events.get(0);
      assertThat(created.operation()).isEqualTo("Clone");
      assertThat(created.transactionUuid()).isEqualTo(cloneTxn.getUuid());
      assertThat(created.rowsAdded()).isEqualTo(30);
      assertThat(harness.progressOnKafka(config)).containsEntry(clone.tableUuid(), 6L);
    }

    @Test
    void aCloneWhoseEventWasNeverPublishedIsPublishedByTheReconcilerAsTheTablesFirstVersion() {
      PublicationConfig config = harness.config().build();
      TableRef source = sourceWithThreeVersions();
      TableRef clone = harness.declareTable("dst", "quiet");
      LaneCommitService quiet = harness.commitService(CommitEventSink.discard());
      Transaction cloneTxn = clone(source, 2);
      assertThat(commit(quiet, clone, cloneTxn).version()).isEqualTo(2);
      assertThat(harness.storage(clone).versions().versions()).containsExactly(2L);

      Publication publication = harness.startPublication(config);
      harness.awaitEvents(clone, 1);
      publication.close();
      List<CommitEvent> events = harness.events(clone);
      assertThat(events).extracting(CommitEvent::version).containsExactly(2L);
      CommitEvent recovered = events.get(0);
      assertThat(recovered.operation()).isEqualTo("Clone");
      assertThat(recovered.governed()).isTrue();
      assertThat(recovered.transactionUuid()).isEqualTo(cloneTxn.getUuid());
      assertThat(recovered.readVersion()).isEqualTo(2);
      assertThat(recovered.fragmentsAdded()).isEqualTo(2);
      assertThat(recovered.rowsAdded()).isEqualTo(20);
      assertThat(recovered.rowsRemoved()).isZero();
      // the source keeps its own history
      assertThat(harness.storage(source).versions().versions()).containsExactly(1L, 2L, 3L);
      assertThat(harness.progressOnKafka(config)).containsEntry(clone.tableUuid(), 2L);
    }

    private TableRef sourceWithThreeVersions() {
      TableRef source = harness.declareTable("src", "t" + UUID.randomUUID().toString().substring(0, 8));
      LaneCommitService quiet = harness.commitService(CommitEventSink.discard());
      commit(quiet, source, harness.create());
      commit(quiet, source, harness.append(1));
      commit(quiet, source, harness.append(2));
      return source;
    }

    private static Transaction clone(TableRef source, long version) {
      return Transaction.newBuilder()
          .setReadVersion(version)
          .setUuid(UUID.randomUUID().toString())
          .setClone(Transaction.Clone.newBuilder().setIsShallow(true).setRefPath(source.location())
              .setRefVersion(version))
          .build();
    }
  }

  /**
   * On an object store that lists in key order (s3proxy, V2 names) a pass finds the newest version from the first
   * keys of {@code _versions/} and reads the numbers above the published one, never listing the whole directory: what
   * a pass costs does not grow with the table's history. A table too far behind is listed, as on a local disk.
   */
  @Nested
  class OnAnObjectStore {
    @RegisterExtension static final S3ProxyFixture s3 = new S3ProxyFixture();
    private PublicationHarness onS3;

    @BeforeEach
    void setUp() {
      onS3 = new PublicationHarness(new ObjectStores(s3.s3Config()), s3.uri("wh-" + UUID.randomUUID()),
          broker.bootstrapServers(), true);
    }

    @AfterEach
    void tearDown() throws Exception {
      onS3.close();
    }

    @Test
    void aPassFindsNewVersionsWithoutListingEveryVersionAndReadsACleanedOneAsGone() {
      PublicationConfig config = onS3.config().build();
      TableRef table = onS3.declareTable("quiet", "long");
      VersionListings listings = new VersionListings(onS3);
      Publication publication = onS3.startPublication(config, listings::resolve);
      LaneCommitService commits = onS3.commitService(publication.outbox());
      commit(commits, table, onS3.create());
      for (int i = 1; i <= 20; i++) {
        commit(commits, table, onS3.append(i));
      }
      assertThat(onS3.awaitEvents(table, 21)).hasSize(21);

      listings.reset();
      publication.reconciler().reconcileAllNow(WAIT); // nothing new
      for (int i = 0; i < 4; i++) {
        onS3.writeAround(table, PublicationHarness.ROGUE_WRITER); // versions 22..25
      }
      onS3.removeVersion(table, 23);
      publication.reconciler().reconcileAllNow(WAIT);
      assertThat(onS3.awaitEvents(table, 24)).hasSize(24);
      publication.close();

      assertThat(listings.whole).as("whole listings of _versions/ by the reconciler").hasValue(0);
      assertThat(listings.first).as("first keys of _versions/ listed by the reconciler").hasValue(2);
      List<Long> expected = new ArrayList<>(LongStream.rangeClosed(1, 22).boxed().toList());
      expected.addAll(List.of(24L, 25L));
      assertThat(onS3.events(table)).extracting(CommitEvent::version).containsExactlyElementsOf(expected);
      assertThat(onS3.events(table).subList(21, 24)).extracting(CommitEvent::governed).containsOnly(false);
      assertThat(onS3.progressOnKafka(config)).containsEntry(table.tableUuid(), 25L);
    }

    @Test
    void aTableFarBehindItsEventsIsListedAndPublishedInOrder() {
      PublicationConfig config = onS3.config().build();
      TableRef table = onS3.declareTable("hist", "far-behind");
      commit(onS3.commitService(CommitEventSink.discard()), table, onS3.create());
      int around = Reconciler.MAX_VERSIONS_READ_UNLISTED + 4;
      for (int i = 0; i < around; i++) {
        onS3.writeAround(table, PublicationHarness.ROGUE_WRITER);
      }
      for (long version = 2; version <= 5; version++) {
        onS3.removeVersion(table, version);
      }
      long latest = 1 + around;

      VersionListings listings = new VersionListings(onS3);
      Publication publication = onS3.startPublication(config, listings::resolve);
      assertThat(onS3.awaitEvents(table, (int) latest - 4)).hasSize((int) latest - 4);
      publication.close();

      assertThat(listings.whole.get()).as("whole listings of _versions/ by the reconciler").isPositive();
      List<Long> expected = new ArrayList<>(List.of(1L));
      expected.addAll(LongStream.rangeClosed(6, latest).boxed().toList());
      assertThat(onS3.events(table)).extracting(CommitEvent::version).containsExactlyElementsOf(expected);
      assertThat(onS3.progressOnKafka(config)).containsEntry(table.tableUuid(), latest);
    }
  }

  /** A harness's stores, counting the listings under a {@code _versions} directory: whole ones and first keys. */
  private static final class VersionListings {
    final AtomicInteger whole = new AtomicInteger();
    final AtomicInteger first = new AtomicInteger();
    private final PublicationHarness harness;

    VersionListings(PublicationHarness harness) {
      this.harness = harness;
    }

    void reset() {
      whole.set(0);
      first.set(0);
    }

    StorageLocation resolve(String location) {
      StorageLocation real = harness.stores.resolve(location);
      return new StorageLocation(new ForwardingObjectStore(real.store()) {
        @Override
        public List<ObjectInfo> list(String prefix) {
          counted(whole, prefix);
          return super.list(prefix);
        }

        @Override
        public List<ObjectInfo> listFirst(String prefix, int maxKeys) {
          counted(first, prefix);
          return super.listFirst(prefix, maxKeys);
        }

        @Override
        public List<String> listDirectory(String prefix) {
          counted(whole, prefix);
          return super.listDirectory(prefix);
        }

        @Override
        public boolean requestsAreRoundTrips() {
          return delegate.requestsAreRoundTrips();
        }
      }, real.rootKey());
    }

    private static void counted(AtomicInteger counter, String prefix) {
      if (prefix.contains("_versions")) {
        counter.incrementAndGet();
      }
    }
  }
}
