package dev.lancecommit.coordinator.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.lancecommit.coordinator.storage.LocalObjectStore;
import dev.lancecommit.coordinator.storage.ObjectInfo;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.table.CommitStateUnknownException;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.TraceContext;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.WriterVersions;
import dev.lancecommit.format.deletion.DeletionVectors;
import dev.lancecommit.format.deletion.NewDeletionFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.DeletionFile.DeletionFileType;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.CommitContext;
import dev.lancecommit.rules.InvalidTransactionException;
import dev.lancecommit.rules.ManifestBuilder;
import dev.lancecommit.rules.conflict.CommitConflictException;
import dev.lancecommit.rules.group.GroupMembers;
import dev.lancecommit.testing.FaultInjectingObjectStore;
import dev.lancecommit.testing.FaultInjectingObjectStore.Call;
import dev.lancecommit.testing.FaultInjectingObjectStore.Hold;
import dev.lancecommit.testing.FaultInjectingObjectStore.When;
import dev.lancecommit.testing.GatedExecutor;
import dev.lancecommit.testing.HandMadeTransactions;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.RoaringBitmap;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

/**
 * Group commit and the pipeline, made deterministic by holding a manifest write in the store
 * ({@link FaultInjectingObjectStore#holdNext}) so that commits pile up behind it, and by failing it afterwards.
 */
class PipelinedLaneTest {
  private static final String TABLE_KEY = "wh/ns/t.lance";
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir Path root;
  private FaultInjectingObjectStore store;
  private StorageLocation table;
  private Events events;
  private ExecutorService pool;
  private GatedExecutor executor;
  private LaneCommitService service;
  private TableRef ref;
  private final HandMadeTransactions transactions = new HandMadeTransactions();

  @BeforeEach
  void setUp() {
    store = new FaultInjectingObjectStore(new LocalObjectStore(root));
    table = new StorageLocation(store, TABLE_KEY);
    events = new Events();
    pool = Executors.newFixedThreadPool(4);
    executor = new GatedExecutor(pool);
    service = newService(settings());
    ref = new TableRef(List.of("ns", "t"), table.uri(), UUID.randomUUID().toString());
  }

  @AfterEach
  void tearDown() throws Exception {
    store.clearFaults();
    executor.open();
    pool.shutdownNow();
    pool.awaitTermination(5, TimeUnit.SECONDS);
  }

  private LaneCommitService newService(CommitSettings settings) {
    return new LaneCommitService(location -> table, settings, events, executor, Clock.systemUTC(),
        Duration.ofMinutes(10), TRACED);
  }

  /** Gives each commit a trace whose id is its transaction uuid without dashes (what the telemetry would carry). */
  private static final CommitObserver TRACED = observer(phase -> { }, PipelinedLaneTest::traceOf);

  /** An observer telling {@code onPhase} of each phase, with the trace {@code trace} makes of each request. */
  private static CommitObserver observer(java.util.function.Consumer<CommitPhase> onPhase,
      java.util.function.Function<CommitRequest, TraceContext> trace) {
    return (table, request) -> new CommitObserver.Observation() {
      private final TraceContext context = trace.apply(request);

      @Override
      public void phase(CommitPhase phase) {
        onPhase.accept(phase);
      }

      @Override
      public void operation(dev.lancecommit.rules.OperationKind kind) { }

      @Override
      public void alreadyCommitted() { }

      @Override
      public TraceContext trace() {
        return context;
      }

      @Override
      public void leftLane() { }

      @Override
      public void finished(CommitResult result, Throwable failure) { }
    };
  }

  private static TraceContext traceOf(CommitRequest request) {
    try {
      String uuid = Transaction.parseFrom(request.transaction()).getUuid().replace("-", "");
      return uuid.length() == 32 ? TraceContext.of("00-" + uuid + "-00f067aa0ba902b7-01", null) : null;
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      return null;
    }
  }

  /** File checks off: the hand-made transactions name data files nobody wrote. */
  /**
   * Every {@code .txn} written before its manifest: the {@code .txn} written while a version is prepared is what shows
   * these tests that it was prepared on top of the write in flight. With the default (a group's {@code .txn} written
   * beside its manifest) see {@link #aGroupsTransactionFileIsWrittenBesideItsManifestAndEachMemberHearsItsFragmentIds}.
   */
  private static CommitSettings settings() {
    return new CommitSettings(1000, 20, 3, 64, WriterVersions.coordinator(), "2.1", ManifestNaming.Scheme.V2)
        .withVerifyFiles(false).withTransactionBesideManifest(false);
  }

  /** Holds the put-if-absent of version {@code version}'s manifest. */
  private Hold holdManifest(long version) {
    return store.holdNext(Call.PUT_IF_ABSENT, manifestKey(version)::equals);
  }

  private String manifestKey(long version) {
    return table.key(ManifestNaming.path(ManifestNaming.Scheme.V2, version));
  }

  @Test
  void commitsWaitingBehindAWriteShareTheNextVersionWhichIsStagedBeforeThatWriteLands() throws Exception {
    commit(transactions.create());
    Hold v2 = holdManifest(2);
    CompletableFuture<CommitResult> first = submit(transactions.append(1), "alice");
    assertThat(v2.awaitHeld(WAIT)).isTrue();
    executor.close(); // what is submitted now waits until the gate opens: all of it, not the first, is prepared
    List<Transaction> waiting = new ArrayList<>();
    List<CompletableFuture<CommitResult>> answers = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      Transaction txn = transactions.append(1);
      waiting.add(txn);
      answers.add(submit(txn, i % 2 == 0 ? "bob" : "carol"));
    }
    executor.open();
    // the group is prepared and its .txn staged on top of version 2 while version 2 is still being written
    await().atMost(WAIT).until(() -> transactionFiles().stream().anyMatch(name -> name.startsWith("2-")));
    assertThat(first).isNotDone();
    v2.release();

    assertThat(first.get(20, TimeUnit.SECONDS)).satisfies(r -> {
      assertThat(r.version()).isEqualTo(2);
      assertThat(r.groupSize()).isEqualTo(1);
    });
    for (int i = 0; i < 4; i++) {
      CommitResult r = answers.get(i).get(20, TimeUnit.SECONDS);
      assertThat(r.version()).isEqualTo(3);
      assertThat(r.groupSize()).isEqualTo(4);
      assertThat(r.transactionUuid()).isEqualTo(waiting.get(i).getUuid());
      assertThat(r.readVersion()).isEqualTo(1);
    }
    TableOperations storage = storage();
    assertThat(storage.versions().versions()).containsExactly(1L, 2L, 3L);
    ManifestFile v3 = storage.readManifest(3, ManifestNaming.Scheme.V2).orElseThrow();
    Transaction recorded = storage.transactionOf(v3);
    assertThat(GroupMembers.of(recorded)).containsExactlyElementsOf(waiting.stream().map(Transaction::getUuid).toList());
    assertThat(recorded.getReadVersion()).isEqualTo(2);
    assertThat(recorded.getAppend().getFragmentsCount()).isEqualTo(4);
    assertThat(v3.manifest().getFragmentsList()).extracting(DataFragment::getId).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
    // its .txn is there too, as Lance writers need it
    assertThat(transactionFiles()).contains(TransactionFiles.fileName(recorded));

    events.await(1L, 2L, 3L);
    CommitEvent grouped = events.at(3);
    assertThat(grouped.transactionUuid()).isEqualTo(recorded.getUuid());
    assertThat(grouped.groupSize()).isEqualTo(4);
    assertThat(grouped.actor()).isEqualTo("bob, carol");
    assertThat(grouped.members()).extracting(CommitEvent.Member::transactionUuid)
        .containsExactlyElementsOf(waiting.stream().map(Transaction::getUuid).toList());
    assertThat(grouped.members()).extracting(CommitEvent.Member::traceId)
        .containsExactlyElementsOf(waiting.stream().map(t -> t.getUuid().replace("-", "")).toList());
    assertThat(grouped.traceId()).as("the event carries its first member's trace")
        .isEqualTo(waiting.get(0).getUuid().replace("-", ""));
    assertThat(grouped.rowsAdded()).isEqualTo(40);
    assertThat(events.at(2).members()).singleElement().satisfies(m -> assertThat(m.actor()).isEqualTo("alice"));
  }

  @Test
  void aMemberThatConflictsOrIsInvalidIsAnsweredAloneAndTheOthersShareTheVersion() throws Exception {
    commit(transactions.create());
    commit(transactions.create().toBuilder().setReadVersion(1).build()); // version 2 overwrites the table
    Hold v3 = holdManifest(3);
    CompletableFuture<CommitResult> first = submit(transactions.append(2), "a");
    assertThat(v3.awaitHeld(WAIT)).isTrue();
    executor.close();
    CompletableFuture<CommitResult> b = submit(transactions.append(2), "b");
    CompletableFuture<CommitResult> stale = submit(transactions.append(1), "c"); // Append x Overwrite: X
    CompletableFuture<CommitResult> garbage = service.commit(ref, new CommitRequest(new byte[] {9, 9, 9}, Optional.empty(),
        true, "d"));
    CompletableFuture<CommitResult> ahead = submit(transactions.append(9), "e");
    CompletableFuture<CommitResult> d = submit(transactions.append(2), "f");
    executor.open();
    v3.release();

    assertThat(first.get(20, TimeUnit.SECONDS).version()).isEqualTo(3);
    assertThat(b.get(20, TimeUnit.SECONDS)).satisfies(r -> assertThat(r.version()).isEqualTo(4));
    assertThat(d.get(20, TimeUnit.SECONDS)).satisfies(r -> {
      assertThat(r.version()).isEqualTo(4);
      assertThat(r.groupSize()).isEqualTo(2);
    });
    assertThatThrownBy(stale::join).cause().isInstanceOf(CommitConflictException.class)
        .satisfies(e -> assertThat(((CommitConflictException) e).retryable()).isFalse());
    assertThatThrownBy(garbage::join).cause().isInstanceOf(InvalidTransactionException.class);
    assertThatThrownBy(ahead::join).cause().isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining("ahead");
    assertThat(storage().versions().versions()).containsExactly(1L, 2L, 3L, 4L);
    assertThat(storage().readManifest(4, ManifestNaming.Scheme.V2).orElseThrow().manifest().getFragmentsCount())
        .isEqualTo(4);
  }

  /**
   * On an object store a group's {@code .txn} (named by a uuid the lane drew) is written while its manifest is: both
   * requests are in flight at once, and the members hear only once both are done. Each member's answer names the ids
   * its fragments got in the version, as Lance's own commit tells its writer through the dataset it returns.
   */
  @Test
  void aGroupsTransactionFileIsWrittenBesideItsManifestAndEachMemberHearsItsFragmentIds() throws Exception {
    service = newService(settings().withTransactionBesideManifest(true));
    GroupBehindVersion2 behind = groupBehindVersion2(3);
    List<Transaction> waiting = behind.waiting();
    List<CompletableFuture<CommitResult>> answers = behind.answers();
    Hold groupTxn = store.holdNext(Call.PUT_IF_ABSENT, key -> key.startsWith(table.key("_transactions/2-")));
    Hold v3 = holdManifest(3);
    executor.open();
    behind.v2().release();
    assertThat(behind.first().get(20, TimeUnit.SECONDS).newFragmentIds()).containsExactly(1L);

    assertThat(groupTxn.awaitHeld(WAIT)).isTrue();
    assertThat(v3.awaitHeld(WAIT)).as("the manifest's put starts while the .txn's is in flight").isTrue();
    v3.release();
    await().atMost(WAIT).until(() -> store.delegate().head(manifestKey(3)).isPresent());
    Thread.sleep(200);
    assertThat(answers).as("no answer before the .txn is written").noneMatch(CompletableFuture::isDone);
    groupTxn.release();

    for (int i = 0; i < 3; i++) {
      CommitResult r = answers.get(i).get(20, TimeUnit.SECONDS);
      assertThat(r.version()).isEqualTo(3);
      assertThat(r.groupSize()).isEqualTo(3);
      assertThat(r.newFragmentIds()).containsExactly(2L + i);
    }
    Transaction recorded = storage().transactionOf(storage().readManifest(3, ManifestNaming.Scheme.V2).orElseThrow());
    assertThat(transactionFiles()).contains(TransactionFiles.fileName(recorded));
    assertThat(storage().readManifest(3, ManifestNaming.Scheme.V2).orElseThrow().manifest().getFragmentsList())
        .extracting(DataFragment::getId).containsExactly(0L, 1L, 2L, 3L, 4L);
    // a member resubmitted after the version landed hears the same answer, its fragment ids included
    CommitResult again = commit(waiting.get(1));
    assertThat(again).isEqualTo(answers.get(1).get().answer());
    // the commit events name each member's fragment ids too
    events.await(1L, 2L, 3L);
    assertThat(events.at(2).members()).singleElement()
        .satisfies(m -> assertThat(m.newFragmentIds()).containsExactly(1L));
    assertThat(events.at(3).members()).extracting(CommitEvent.Member::newFragmentIds)
        .containsExactly(List.of(2L), List.of(3L), List.of(4L));
    // rebuilt from storage alone (the reconciler after a crash), the group's members read as the live event's
    assertThat(VersionEvents.members(recorded, storage().readManifest(3, ManifestNaming.Scheme.V2).orElseThrow()
        .manifest(), null)).isEqualTo(events.at(3).members()).extracting(CommitEvent.Member::actor)
        .containsOnly("bob");
    assertThat(events.at(1).members()).singleElement()
        .satisfies(m -> assertThat(m.newFragmentIds()).as("the creating Overwrite's fragment").containsExactly(0L));
  }

  /**
   * On an object store a group whose {@code .txn} cannot be written beside its manifest, nor once more after it,
   * lands with the copy inside its manifest; the lane owes the file, tries again after the version's answer and after
   * each later commit of the table, off the commits' path.
   */
  @Test
  void aGroupsTransactionFileThatFailedTwiceIsWrittenAfterTheTablesNextCommit() throws Exception {
    service = newService(settings().withTransactionBesideManifest(true));
    GroupBehindVersion2 behind = groupBehindVersion2(3);
    // the store refuses the group's file for as long as the faults last: beside the manifest, once more after it,
    // and every time the lane tries again after a commit
    store.failNext(Call.PUT_IF_ABSENT, 1_000, When.BEFORE, key -> key.startsWith(table.key("_transactions/2-")),
        FaultInjectingObjectStore.unavailable());
    executor.open();
    behind.v2().release();
    assertThat(behind.first().get(20, TimeUnit.SECONDS).version()).isEqualTo(2);
    for (CompletableFuture<CommitResult> answer : behind.answers()) {
      assertThat(answer.get(20, TimeUnit.SECONDS).version()).as("the group landed").isEqualTo(3);
      assertThat(answer.get().groupSize()).isEqualTo(3);
    }
    Transaction recorded = storage().transactionOf(storage().readManifest(3, ManifestNaming.Scheme.V2).orElseThrow());
    String groupFile = TransactionFiles.fileName(recorded);
    events.await(1L, 2L, 3L);
    Thread.sleep(200); // the lane's after-commit work of versions 2 and 3 is done
    store.clearFaults();
    Thread.sleep(200);
    assertThat(transactionFiles()).as("owed, not written while nothing commits").doesNotContain(groupFile);

    assertThat(commit(transactions.append(3)).version()).isEqualTo(4);
    await().atMost(WAIT).until(() -> transactionFiles().contains(groupFile));
    assertThat(store.delegate().get(table.key("_transactions/" + groupFile))).hasValueSatisfying(bytes ->
        assertThat(dev.lancecommit.format.TransactionFiles.decode(bytes)).isEqualTo(recorded));
  }

  /**
   * On a local disk a version prepared on top of a write in flight writes its {@code .txn} first, then stages its
   * manifest (on a thread of its own); a {@code .txn} that cannot be written answers the version's members with
   * nothing of the version staged, and a resubmission lands.
   */
  @Test
  void onALocalDiskAGroupWhoseTransactionFileFailsIsAnsweredWithNothingOfItStaged() throws Exception {
    store = new FaultInjectingObjectStore(new LocalObjectStore(root), true);
    table = new StorageLocation(store, TABLE_KEY);
    service = newService(settings());
    GroupBehindVersion2 behind = groupBehindVersion2(3);
    Predicate<String> groupFile = key -> key.startsWith(table.key("_transactions/2-"));
    Hold txn = store.holdNext(Call.PUT_IF_ABSENT, groupFile);
    store.failNext(Call.PUT_IF_ABSENT, 1_000, When.BEFORE, groupFile, FaultInjectingObjectStore.unavailable());
    executor.open();
    assertThat(txn.awaitHeld(WAIT)).isTrue();
    Thread.sleep(200); // give the lane time to (wrongly) stage the group's manifest before its .txn is written
    assertThat(stagedManifests()).as("only version 2's, staged and held in its create").isEqualTo(1);
    txn.release();

    for (CompletableFuture<CommitResult> answer : behind.answers()) {
      assertThatThrownBy(() -> answer.get(20, TimeUnit.SECONDS)).cause()
          .isInstanceOf(dev.lancecommit.coordinator.storage.StoreUnavailableException.class);
    }
    assertThat(stagedManifests()).isEqualTo(1);
    behind.v2().release();
    assertThat(behind.first().get(20, TimeUnit.SECONDS).version()).isEqualTo(2);
    await().atMost(WAIT).until(() -> stagedManifests() == 0);
    assertThat(storage().versions().versions()).containsExactly(1L, 2L);

    store.clearFaults();
    Transaction again = behind.waiting().get(0);
    assertThat(commit(again).version()).as("nothing of it landed: resubmitted, it lands").isEqualTo(3);
    assertThat(storage().transactionOf(storage().readManifest(3, ManifestNaming.Scheme.V2).orElseThrow()).getUuid())
        .isEqualTo(again.getUuid());
    // the version hint is rewritten through a temporary file of its own after each answer: awaited, not asserted
    await().atMost(WAIT).until(() -> stagedManifests() == 0);
  }

  /**
   * Temporary files under {@code _versions/}: a staged manifest not created or removed yet, or the version hint while
   * it is being rewritten.
   */
  private long stagedManifests() throws IOException {
    try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(root.resolve(TABLE_KEY).resolve("_versions"))) {
      return files.filter(f -> f.getFileName().toString()
          .startsWith(dev.lancecommit.coordinator.storage.ObjectKeys.RESERVED_SEGMENT_PREFIX)).count();
    }
  }

  @Test
  void aVersionTakenUnderTheWriteIsRebuiltWithWhatWasPreparedOnTopOfIt() throws Exception {
    commit(transactions.create());
    Hold v2 = holdManifest(2);
    Transaction a1 = transactions.append(1);
    CompletableFuture<CommitResult> first = submit(a1, "a");
    assertThat(v2.awaitHeld(WAIT)).isTrue();
    executor.close(); // what is submitted now waits until the gate opens: all of it, not the first, is prepared
    Transaction a2 = transactions.append(1);
    Transaction a3 = transactions.append(1);
    CompletableFuture<CommitResult> second = submit(a2, "a");
    CompletableFuture<CommitResult> third = submit(a3, "a");
    executor.open();
    await().atMost(WAIT).until(() -> transactionFiles().stream().anyMatch(name -> name.startsWith("2-")));
    // another writer takes version 2 while ours is in flight
    Transaction rogue = writeAroundTheLane(2);
    v2.release();

    for (CompletableFuture<CommitResult> answer : List.of(first, second, third)) {
      assertThat(answer.get(20, TimeUnit.SECONDS)).satisfies(r -> {
        assertThat(r.version()).isEqualTo(3);
        assertThat(r.groupSize()).isEqualTo(3);
      });
    }
    TableOperations storage = storage();
    assertThat(storage.versions().versions()).containsExactly(1L, 2L, 3L);
    assertThat(storage.transactionOf(storage.readManifest(2, ManifestNaming.Scheme.V2).orElseThrow()).getUuid())
        .isEqualTo(rogue.getUuid());
    Transaction v3 = storage.transactionOf(storage.readManifest(3, ManifestNaming.Scheme.V2).orElseThrow());
    assertThat(GroupMembers.of(v3)).containsExactly(a1.getUuid(), a2.getUuid(), a3.getUuid());
    assertThat(storage.readManifest(3, ManifestNaming.Scheme.V2).orElseThrow().manifest().getFragmentsCount())
        .isEqualTo(5);
  }

  @Test
  void aWriteInDoubtIsAnsweredUnknownAndWhatWasPreparedOnItIsRebuiltOnWhatIsThere() throws Exception {
    commit(transactions.create());
    Hold v2 = holdManifest(2);
    Transaction a1 = transactions.append(1);
    CompletableFuture<CommitResult> first = submit(a1, "a");
    assertThat(v2.awaitHeld(WAIT)).isTrue();
    executor.close(); // what is submitted now waits until the gate opens: all of it, not the first, is prepared
    CompletableFuture<CommitResult> second = submit(transactions.append(1), "a");
    CompletableFuture<CommitResult> third = submit(transactions.append(1), "a");
    executor.open();
    await().atMost(WAIT).until(() -> transactionFiles().stream().anyMatch(name -> name.startsWith("2-")));
    // version 2's write never lands, and nothing can tell: every create attempt and read-back fails
    Predicate<String> v2Key = manifestKey(2)::equals;
    store.failNext(Call.PUT_IF_ABSENT, 3, When.BEFORE, v2Key, FaultInjectingObjectStore.outcomeUnknown());
    store.failNext(Call.GET, 3, When.BEFORE, v2Key, FaultInjectingObjectStore.unavailable());
    v2.release();

    assertThatThrownBy(() -> first.get(20, TimeUnit.SECONDS)).cause()
        .isInstanceOf(CommitStateUnknownException.class);
    for (CompletableFuture<CommitResult> answer : List.of(second, third)) {
      assertThat(answer.get(20, TimeUnit.SECONDS)).satisfies(r -> {
        assertThat(r.version()).isEqualTo(2);
        assertThat(r.groupSize()).isEqualTo(2);
      });
    }
    // resubmitting the transaction in doubt settles it: it never landed, so it lands now
    assertThat(commit(a1).version()).isEqualTo(3);
    assertThat(commit(a1).version()).as("and only once").isEqualTo(3);
    assertThat(storage().versions().versions()).containsExactly(1L, 2L, 3L);
  }

  @Test
  void aResubmissionOfACommitInFlightGetsItsAnswerAndIsNeverAppliedTwice() throws Exception {
    commit(transactions.create());
    Hold v2 = holdManifest(2);
    Transaction a1 = transactions.append(1);
    CompletableFuture<CommitResult> first = submit(a1, "a");
    assertThat(v2.awaitHeld(WAIT)).isTrue();
    executor.close();
    CompletableFuture<CommitResult> again = submit(a1, "a");
    CompletableFuture<CommitResult> andAgain = submit(a1, "a");
    executor.open();
    Thread.sleep(300); // give the lane time to (wrongly) prepare them on top of the write in flight
    assertThat(again).as("no answer before the commit it repeats has one").isNotDone();
    // the write in flight does not land (another writer takes version 2): the answer is where a1 lands in the end
    writeAroundTheLane(2);
    v2.release();

    CommitResult answer = first.get(20, TimeUnit.SECONDS);
    assertThat(answer.version()).isEqualTo(3);
    assertThat(again.get(20, TimeUnit.SECONDS).answer()).isEqualTo(answer.answer());
    assertThat(andAgain.get(20, TimeUnit.SECONDS).answer()).isEqualTo(answer.answer());
    assertThat(storage().versions().versions()).containsExactly(1L, 2L, 3L);
    assertThat(transactionFiles()).filteredOn(name -> name.contains(a1.getUuid())).hasSize(1);
  }

  @Test
  void aResubmittedMemberOfALandedGroupGetsTheSharedVersionAlsoAfterARestart() throws Exception {
    commit(transactions.create());
    Hold v2 = holdManifest(2);
    CompletableFuture<CommitResult> first = submit(transactions.append(1), "a");
    assertThat(v2.awaitHeld(WAIT)).isTrue();
    executor.close(); // what is submitted now waits until the gate opens: all of it, not the first, is prepared
    List<Transaction> members = List.of(transactions.append(1), transactions.append(1), transactions.append(1));
    List<CompletableFuture<CommitResult>> answers = members.stream().map(t -> submit(t, "a")).toList();
    executor.open();
    v2.release();
    first.get(20, TimeUnit.SECONDS);
    CommitResult shared = answers.get(1).get(20, TimeUnit.SECONDS);
    assertThat(shared.groupSize()).isEqualTo(3);
    commit(transactions.append(3));

    LaneCommitService restarted = newService(settings());
    int writesBefore = store.calls(Call.PUT_IF_ABSENT);
    CommitResult again = restarted.commit(ref, request(members.get(1), "a")).get(20, TimeUnit.SECONDS);
    assertThat(again).isEqualTo(shared.answer());
    assertThat(store.calls(Call.PUT_IF_ABSENT)).as("no version or .txn written").isEqualTo(writesBefore);
    assertThat(storage().versions().versions()).containsExactly(1L, 2L, 3L, 4L);
  }

  @Test
  void aPreparationThatFailsUnexpectedlyAnswersItsCommitsOutcomeUnknownAndAResubmissionLands() throws Exception {
    java.util.concurrent.atomic.AtomicBoolean broken = new java.util.concurrent.atomic.AtomicBoolean();
    CommitObserver throwingOnce = observer(phase -> {
      if (phase == CommitPhase.CHECKS && broken.compareAndSet(true, false)) {
        throw new IllegalStateException("observer bug");
      }
    }, request -> null);
    service = new LaneCommitService(location -> table, settings(), events, executor, Clock.systemUTC(),
        Duration.ofMinutes(10), throwingOnce);
    commit(transactions.create());
    Transaction append = transactions.append(1);
    broken.set(true);
    CompletableFuture<CommitResult> failed = submit(append, "a");
    assertThat(failed).failsWithin(WAIT).withThrowableThat().havingCause()
        .isInstanceOf(CommitStateUnknownException.class).withMessageContaining("observer bug");
    assertThat(store.delegate().head(manifestKey(2))).isEmpty();
    assertThat(submit(append, "a").get(20, TimeUnit.SECONDS).version()).isEqualTo(2);
    assertThat(submit(transactions.append(1), "a").get(20, TimeUnit.SECONDS).version()).isEqualTo(3);
  }

  @Test
  void withGroupingOffEachWaitingCommitGetsAVersionOfItsOwn() throws Exception {
    service = newService(settings().withGroupLimits(1, Long.MAX_VALUE));
    commit(transactions.create());
    Hold v2 = holdManifest(2);
    CompletableFuture<CommitResult> first = submit(transactions.append(1), "a");
    assertThat(v2.awaitHeld(WAIT)).isTrue();
    executor.close(); // what is submitted now waits until the gate opens: all of it, not the first, is prepared
    List<CompletableFuture<CommitResult>> answers = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      answers.add(submit(transactions.append(1), "a"));
    }
    executor.open();
    v2.release();
    assertThat(first.get(20, TimeUnit.SECONDS).version()).isEqualTo(2);
    assertThat(answers.stream().map(CompletableFuture::join).map(CommitResult::version).toList())
        .containsExactly(3L, 4L, 5L);
    assertThat(answers.stream().map(CompletableFuture::join)).allSatisfy(r -> assertThat(r.groupSize()).isEqualTo(1));
  }

  @Test
  void aTransactionThatMustCommitAloneEndsTheGroupAndKeepsItsOrder() throws Exception {
    commit(transactions.create());
    Hold v2 = holdManifest(2);
    CompletableFuture<CommitResult> first = submit(transactions.append(1), "a");
    assertThat(v2.awaitHeld(WAIT)).isTrue();
    executor.close(); // what is submitted now waits until the gate opens: all of it, not the first, is prepared
    CompletableFuture<CommitResult> b = submit(transactions.append(1), "a");
    CompletableFuture<CommitResult> exact = service.commit(ref, new CommitRequest(transactions.append(2).toByteArray(),
        Optional.empty(), false, "a")); // rebase=false: committed exactly on version 2, alone
    CompletableFuture<CommitResult> c = submit(transactions.append(1), "a");
    CompletableFuture<CommitResult> d = submit(transactions.append(1), "a");
    executor.open();
    v2.release();
    assertThat(first.get(20, TimeUnit.SECONDS).version()).isEqualTo(2);
    assertThat(b.get(20, TimeUnit.SECONDS)).satisfies(r -> assertThat(r.version()).isEqualTo(3));
    // the exact one was built on version 2 but 3 landed before it: retryable, as it would be alone
    assertThatThrownBy(exact::join).cause().isInstanceOf(CommitConflictException.class);
    assertThat(c.get(20, TimeUnit.SECONDS).version()).isEqualTo(4);
    assertThat(d.get(20, TimeUnit.SECONDS)).satisfies(r -> {
      assertThat(r.version()).isEqualTo(4);
      assertThat(r.groupSize()).isEqualTo(2);
    });
  }

  @Test
  void aHoldWaitsForTheWriteInFlightAndNothingBehindItIsPreparedUntilItIsReleased() throws Exception {
    commit(transactions.create());
    Hold v2 = holdManifest(2);
    CompletableFuture<CommitResult> first = submit(transactions.append(1), "a");
    assertThat(v2.awaitHeld(WAIT)).isTrue();
    executor.close(); // queued in this order: a commit, the hold, two commits behind it
    CompletableFuture<CommitResult> before = submit(transactions.append(1), "a");
    CompletableFuture<HeldLane> hold = service.hold(ref);
    CompletableFuture<CommitResult> behind1 = submit(transactions.append(1), "b");
    CompletableFuture<CommitResult> behind2 = submit(transactions.append(1), "b");
    executor.open();
    Thread.sleep(300); // give the lane time to (wrongly) grant the hold or stage what is behind it
    assertThat(hold).as("granted only once what is before it is written").isNotDone();
    v2.release();

    HeldLane held = hold.get(20, TimeUnit.SECONDS);
    assertThat(first.get(20, TimeUnit.SECONDS).version()).isEqualTo(2);
    assertThat(before.get(20, TimeUnit.SECONDS).version()).isEqualTo(3);
    Thread.sleep(300);
    assertThat(behind1).as("nothing behind a hold commits while it is held").isNotDone();
    assertThat(storage().versions().versions()).containsExactly(1L, 2L, 3L);
    assertThat(transactionFiles()).noneMatch(name -> name.startsWith("3-")); // nothing staged on top of 3 either

    // the holder checks and writes a version of its own, then lets the lane go on
    Transaction batched = transactions.append(3);
    CheckedCommit checked = held.check(request(batched, "batch"));
    assertThat(checked.version()).isEqualTo(4);
    CommitResult applied = held.apply(checked, "batch-1");
    assertThat(applied.version()).isEqualTo(4);
    assertThat(held.check(request(batched, "batch")).alreadyCommitted()).as("checked again: it landed").isTrue();
    held.release(true);

    assertThat(behind1.get(20, TimeUnit.SECONDS)).satisfies(r -> assertThat(r.version()).isEqualTo(5));
    assertThat(behind2.get(20, TimeUnit.SECONDS)).satisfies(r -> {
      assertThat(r.version()).isEqualTo(5);
      assertThat(r.groupSize()).isEqualTo(2);
    });
    events.await(1L, 2L, 3L, 4L, 5L); // in version order, the batch's among them
    assertThat(events.at(4).batchId()).isEqualTo("batch-1");
    assertThat(events.at(4).members()).singleElement().satisfies(m -> {
      assertThat(m.transactionUuid()).isEqualTo(batched.getUuid());
      assertThat(m.actor()).isEqualTo("batch");
    });
  }

  @Test
  void upsertsOfDisjointRowsOfOneFragmentShareAVersionAndKeepEveryDeletion() throws Exception {
    commit(transactions.create()); // fragment 0, 10 rows
    Hold v2 = holdManifest(2);
    CompletableFuture<CommitResult> first = submitUpsert(upsert(1, 0), "a");
    assertThat(v2.awaitHeld(WAIT)).isTrue();
    executor.close(); // what is submitted now waits until the gate opens: all of it, not the first, is prepared
    List<CompletableFuture<CommitResult>> answers = new ArrayList<>();
    for (int row = 1; row <= 4; row++) {
      answers.add(submitUpsert(upsert(1, row), "w" + row));
    }
    CompletableFuture<CommitResult> sameRow = submitUpsert(upsert(1, 3), "late");
    executor.open();
    v2.release();

    assertThat(first.get(20, TimeUnit.SECONDS).version()).isEqualTo(2);
    for (CompletableFuture<CommitResult> answer : answers) {
      assertThat(answer.get(20, TimeUnit.SECONDS)).satisfies(r -> {
        assertThat(r.version()).isEqualTo(3);
        assertThat(r.groupSize()).isEqualTo(4);
        assertThat(r.operation()).isEqualTo("Update");
      });
    }
    assertThatThrownBy(sameRow::join).cause().isInstanceOf(CommitConflictException.class)
        .hasMessageContaining("both modified rows");

    assertThat(deletedRowsOfFragment0(3)).containsExactly(0, 1, 2, 3, 4);
    assertThat(storage().readManifest(3, ManifestNaming.Scheme.V2).orElseThrow().manifest().getFragmentsList())
        .hasSize(6); // the original and one moved row per upsert
  }

  @Test
  void aGroupMemberThatCannotBeBuiltIsRefusedAloneAndTheOthersLand() throws Exception {
    commit(transactions.create()); // fragment 0, 10 rows, 2.1 files
    Hold v2 = holdManifest(2);
    CompletableFuture<CommitResult> first = submitUpsert(upsert(1, 0), "a");
    assertThat(v2.awaitHeld(WAIT)).isTrue();
    executor.close();
    CompletableFuture<CommitResult> good = submitUpsert(upsert(1, 1), "good");
    Upsert stale = upsert(1, 2);
    Transaction.Update.Builder update = stale.txn().getUpdate().toBuilder();
    DataFragment moved = update.getNewFragments(0);
    update.setNewFragments(0, moved.toBuilder().setFiles(0, moved.getFiles(0).toBuilder().setFileMinorVersion(0)));
    Upsert oldFormat = new Upsert(stale.txn().toBuilder().setUpdate(update).build(), stale.affectedRows());
    CompletableFuture<CommitResult> bad = submitUpsert(oldFormat, "bad");
    CompletableFuture<CommitResult> after = submitUpsert(upsert(1, 3), "after");
    executor.open();
    v2.release();

    assertThat(first.get(20, TimeUnit.SECONDS).version()).isEqualTo(2);
    long goodVersion = good.get(20, TimeUnit.SECONDS).version();
    long afterVersion = after.get(20, TimeUnit.SECONDS).version();
    assertThat(goodVersion).isGreaterThan(2);
    assertThat(afterVersion).isGreaterThan(2);
    assertThatThrownBy(bad::join).cause().isInstanceOf(dev.lancecommit.rules.InvalidTransactionException.class)
        .hasMessageContaining("2.0");
    long latest = Math.max(goodVersion, afterVersion);
    assertThat(deletedRowsOfFragment0(latest)).containsExactly(0, 1, 3);
    assertThat(storage().readManifest(latest, ManifestNaming.Scheme.V2).orElseThrow().manifest().getFragmentsList())
        .hasSize(4); // the original and a moved row per landed upsert
  }

  @Test
  void anUpsertIsCheckedAgainstTheReadVersionTheLaneLandedWithoutReadingItsManifestBack() throws Exception {
    commit(transactions.create());
    Upsert first = upsert(1, 0);
    Upsert rebased = upsert(1, 5);
    assertThat(submitUpsert(first, "a").get(20, TimeUnit.SECONDS).version()).isEqualTo(2);
    // the rebase looks up fragment 0 as of version 1: a read of version 1's manifest would fail
    store.failNext(Call.GET, 1, When.BEFORE, manifestKey(1)::equals, FaultInjectingObjectStore.unavailable());

    CommitResult landed = submitUpsert(rebased, "b").get(20, TimeUnit.SECONDS);

    assertThat(landed.version()).isEqualTo(3);
    assertThat(store.pendingFaults(Call.GET)).isEqualTo(1);
    assertThat(deletedRowsOfFragment0(3)).containsExactly(0, 5);
  }

  @Test
  void aRebasedCommitResubmittedAfterItLandedTouchesNoFileOfIt() throws Exception {
    commit(transactions.create());
    Upsert first = upsert(1, 0);
    Upsert rebased = upsert(1, 5);
    assertThat(submitUpsert(first, "a").get(20, TimeUnit.SECONDS).version()).isEqualTo(2);
    CommitResult landed = submitUpsert(rebased, "b").get(20, TimeUnit.SECONDS);
    assertThat(landed.version()).isEqualTo(3);
    // rebased onto version 2: its .txn is 2-{uuid}.txn, naming a deletion file the rebase wrote
    List<String> txnFiles = transactionFiles().stream().filter(n -> n.contains(rebased.txn().getUuid())).toList();
    assertThat(txnFiles).containsExactly("2-" + rebased.txn().getUuid() + ".txn");
    java.util.Map<String, byte[]> before = new java.util.TreeMap<>();
    for (ObjectInfo info : store.delegate().list(table.rootKey())) {
      before.put(info.key(), store.delegate().get(info.key()).orElseThrow());
    }
    int writes = store.calls(Call.PUT_IF_ABSENT);

    for (LaneCommitService lanes : List.of(service, newService(settings()))) { // this lane, and after a restart
      assertThat(submitUpsertTo(lanes, rebased, "b").get(20, TimeUnit.SECONDS)).isEqualTo(landed.answer());
    }
    assertThat(store.calls(Call.PUT_IF_ABSENT)).isEqualTo(writes);
    for (ObjectInfo info : store.delegate().list(table.rootKey())) {
      if (!info.key().endsWith("latest_version_hint.json")) {
        assertThat(store.delegate().get(info.key()).orElseThrow()).as(info.key()).isEqualTo(before.get(info.key()));
      }
    }
  }

  // ------------------------------------------------------------------------------------------------ helpers

  private record Upsert(Transaction txn, byte[] affectedRows) {}

  /** An Update moving row {@code offset} of fragment 0 to a new fragment, built at {@code readVersion}. */
  private Upsert upsert(long readVersion, int offset) {
    TableState at = storage().readManifest(readVersion, ManifestNaming.Scheme.V2).orElseThrow().tableState();
    DataFragment fragment = at.manifest().getFragments(0);
    RoaringBitmap rows = fragment.hasDeletionFile()
        ? DeletionVectors.read(fragment, storage().readDeletionFile(
            DeletionVectors.relativePath(0, fragment.getDeletionFile())).orElseThrow())
        : new RoaringBitmap();
    rows.add(offset);
    NewDeletionFile file = DeletionVectors.encode(0, readVersion, 1000 + offset + 100L * readVersion,
        DeletionFileType.BITMAP, rows);
    store.delegate().put(table.key(file.relativePath()), file.bytes());
    DataFragment moved = transactions.fragment().toBuilder().setPhysicalRows(1).build();
    Transaction txn = Transaction.newBuilder().setReadVersion(readVersion).setUuid(UUID.randomUUID().toString())
        .setUpdate(Transaction.Update.newBuilder()
            .addUpdatedFragments(fragment.toBuilder().setDeletionFile(file.meta()))
            .addNewFragments(moved)
            .addFieldsModified(0)
            .setUpdateMode(Transaction.UpdateMode.REWRITE_ROWS))
        .build();
    Roaring64NavigableMap affected = new Roaring64NavigableMap();
    affected.addLong(offset);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      affected.serializePortable(out);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    return new Upsert(txn, bytes.toByteArray());
  }

  /** The rows of fragment 0 that version {@code version}'s deletion vector of it deletes. */
  private int[] deletedRowsOfFragment0(long version) {
    TableState state = storage().readManifest(version, ManifestNaming.Scheme.V2).orElseThrow().tableState();
    DataFragment original = state.manifest().getFragmentsList().stream().filter(f -> f.getId() == 0).findFirst()
        .orElseThrow();
    byte[] deletions = storage().readDeletionFile(DeletionVectors.relativePath(0, original.getDeletionFile()))
        .orElseThrow();
    return DeletionVectors.read(original, deletions).toArray();
  }

  private CompletableFuture<CommitResult> submitUpsert(Upsert upsert, String actor) {
    return submitUpsertTo(service, upsert, actor);
  }

  private CompletableFuture<CommitResult> submitUpsertTo(LaneCommitService lanes, Upsert upsert, String actor) {
    return lanes.commit(ref, new CommitRequest(upsert.txn().toByteArray(), Optional.of(upsert.affectedRows()),
        true, actor));
  }

  /**
   * A created table whose version 2 (alice's append) is held in its manifest write, with {@code count} of bob's
   * appends submitted behind it while the lane's gate is closed: opening the gate and releasing the hold commits them
   * as one group at version 3.
   */
  private GroupBehindVersion2 groupBehindVersion2(int count) throws InterruptedException {
    commit(transactions.create());
    Hold v2 = holdManifest(2);
    CompletableFuture<CommitResult> first = submit(transactions.append(1), "alice");
    assertThat(v2.awaitHeld(WAIT)).isTrue();
    executor.close();
    List<Transaction> waiting = new ArrayList<>();
    List<CompletableFuture<CommitResult>> answers = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Transaction txn = transactions.append(1);
      waiting.add(txn);
      answers.add(submit(txn, "bob"));
    }
    return new GroupBehindVersion2(v2, first, waiting, answers);
  }

  private record GroupBehindVersion2(Hold v2, CompletableFuture<CommitResult> first, List<Transaction> waiting,
      List<CompletableFuture<CommitResult>> answers) {}

  private CompletableFuture<CommitResult> submit(Transaction txn, String actor) {
    return service.commit(ref, request(txn, actor));
  }

  private static CommitRequest request(Transaction txn, String actor) {
    return new CommitRequest(txn.toByteArray(), Optional.empty(), true, actor);
  }

  private CommitResult commit(Transaction txn) {
    try {
      return service.commit(ref, request(txn, "tester")).get(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new CompletionException(e.getCause());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** A writer bypassing the coordinator appends version {@code version} directly on the store. */
  private Transaction writeAroundTheLane(long version) {
    Transaction rogue = transactions.append(version - 1);
    TableState before = storage().readManifest(version - 1, ManifestNaming.Scheme.V2).orElseThrow().tableState();
    TableState theirs = ManifestBuilder.build(before, rogue,
        CommitContext.of(version, Instant.now(), TransactionFiles.fileName(rogue), WriterVersions.coordinator()));
    store.delegate().putIfAbsent(manifestKey(version),
        new ManifestFile(theirs.manifest(), theirs.indices(), Optional.of(rogue)).encode());
    return rogue;
  }

  private TableOperations storage() {
    return TableOperations.of(new StorageLocation(store.delegate(), TABLE_KEY));
  }

  private List<String> transactionFiles() {
    String dir = table.key("_transactions");
    return store.delegate().list(dir).stream().map(ObjectInfo::key).map(k -> k.substring(dir.length() + 1)).toList();
  }

  /** Keeps the first event of each version. */
  private static final class Events implements CommitEventSink {
    private final List<CommitEvent> events = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void accept(CommitEvent event) {
      synchronized (events) {
        if (events.stream().noneMatch(e -> e.id().equals(event.id()))) {
          events.add(event);
        }
      }
    }

    CommitEvent at(long version) {
      synchronized (events) {
        return events.stream().filter(e -> e.version() == version).findFirst().orElseThrow();
      }
    }

    void await(Long... versions) {
      org.awaitility.Awaitility.await().atMost(WAIT).until(() -> {
        synchronized (events) {
          return events.stream().map(CommitEvent::version).toList().equals(List.of(versions));
        }
      });
    }
  }

  private static final class TransactionFiles {
    static String fileName(Transaction txn) {
      return dev.lancecommit.format.TransactionFiles.fileName(txn);
    }
  }
}
