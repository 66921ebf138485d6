package dev.lancecommit.coordinator.commit;

import dev.lancecommit.coordinator.table.CommitStateUnknownException;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.coordinator.storage.LocalObjectStore;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.storage.StoreUnavailableException;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.coordinator.table.TableVersions;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.WriterVersions;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.CommitContext;
import dev.lancecommit.rules.InvalidTransactionException;
import dev.lancecommit.rules.ManifestBuilder;
import dev.lancecommit.rules.conflict.CommitConflictException;
import dev.lancecommit.testing.FaultInjectingObjectStore;
import dev.lancecommit.testing.FaultInjectingObjectStore.Call;
import dev.lancecommit.testing.FaultInjectingObjectStore.When;
import dev.lancecommit.testing.HandMadeTransactions;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The commit lane against a real local store, with faults injected into the store and the event sink. */
class CommitLaneTest {
  private static final String TABLE_KEY = "wh/ns/t.lance";
  /** Faults aimed at manifest writes only (a version's .txn is created with put-if-absent too). */
  private static final java.util.function.Predicate<String> MANIFESTS = key -> key.contains("/_versions/");

  @TempDir Path root;
  private FaultInjectingObjectStore store;
  private StorageLocation table;
  private RecordingPublisher events;
  private ExecutorService executor;
  private LaneCommitService service;
  private TableRef ref;
  private final HandMadeTransactions transactions = new HandMadeTransactions();

  @BeforeEach
  void setUp() {
    store = new FaultInjectingObjectStore(new LocalObjectStore(root));
    table = new StorageLocation(store, TABLE_KEY);
    events = new RecordingPublisher();
    executor = Executors.newFixedThreadPool(4);
    service = newService(settings(1000));
    ref = new TableRef(List.of("ns", "t"), table.uri(), UUID.randomUUID().toString());
  }

  @AfterEach
  void tearDown() throws Exception {
    executor.shutdownNow();
    executor.awaitTermination(5, TimeUnit.SECONDS);
  }

  private LaneCommitService newService(CommitSettings settings) {
    return new LaneCommitService(location -> table, settings, events, executor, Clock.systemUTC(),
        Duration.ofMinutes(10));
  }

  private static CommitSettings settings(int maxQueued) {
    // Hand-made transactions name data files that are never written: the file checks are CommitFileCheckTest's.
    return new CommitSettings(maxQueued, 20, 3, 64, WriterVersions.coordinator(), "2.1", ManifestNaming.Scheme.V2)
        .withVerifyFiles(false);
  }

  @Test
  void createsTheTableThenAppendsInOrderAndPublishesOneEventPerVersion() {
    CommitResult created = commit(create());
    assertThat(created.version()).isEqualTo(1);
    assertThat(created.readVersion()).isZero();
    assertThat(created.operation()).isEqualTo("Overwrite");
    assertThat(created.manifestPath()).endsWith("_versions/18446744073709551614.manifest");

    for (int i = 0; i < 5; i++) {
      CommitResult appended = commit(append(1 + i));
      assertThat(appended.version()).isEqualTo(2 + i);
    }
    TableState latest = latestOnDisk();
    assertThat(latest.version()).isEqualTo(6);
    assertThat(latest.manifest().getFragmentsList()).extracting(DataFragment::getId)
        .containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
    events.awaitVersions(1L, 2L, 3L, 4L, 5L, 6L);
    assertThat(events.events.get(1).rowsAdded()).isEqualTo(10);
    assertThat(events.events.get(1).fragmentsAdded()).isEqualTo(1);
  }

  @Test
  void concurrentAppendsFromOneReadVersionAllLandContiguouslyOneVersionEachWithGroupingOff() {
    service = newService(settings(1000).withGroupLimits(1, Long.MAX_VALUE));
    commit(create());
    List<CompletableFuture<CommitResult>> futures = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      futures.add(service.commit(ref, request(append(1))));
    }
    List<CommitResult> results = futures.stream().map(CompletableFuture::join).toList();
    List<Long> versions = results.stream().map(CommitResult::version).sorted().toList();
    assertThat(versions).hasSize(50).doesNotHaveDuplicates();
    assertThat(versions.get(0)).isEqualTo(2);
    assertThat(versions.get(49)).isEqualTo(51);
    assertThat(results).allSatisfy(r -> assertThat(r.groupSize()).isEqualTo(1));
    assertThat(latestOnDisk().manifest().getFragmentsCount()).isEqualTo(51);
    await().atMost(Duration.ofSeconds(10)).until(() -> events.versions().size() == 51);
    assertThat(events.versions()).isSorted();
  }

  @Test
  void concurrentAppendsShareVersionsAndEveryOneLandsExactlyOnce() {
    commit(create());
    List<Transaction> sent = new ArrayList<>();
    List<CompletableFuture<CommitResult>> futures = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      Transaction txn = append(1);
      sent.add(txn);
      futures.add(service.commit(ref, request(txn)));
    }
    List<CommitResult> results = futures.stream().map(CompletableFuture::join).toList();
    long latest = latestOnDisk().version();
    assertThat(latestOnDisk().manifest().getFragmentsCount()).isEqualTo(51);
    // every answer names a version whose group size is the number of answers naming it
    java.util.Map<Long, List<CommitResult>> byVersion = results.stream()
        .collect(java.util.stream.Collectors.groupingBy(CommitResult::version));
    byVersion.forEach((version, shared) ->
        assertThat(shared).allSatisfy(r -> assertThat(r.groupSize()).isEqualTo(shared.size())));
    assertThat(byVersion.keySet()).containsExactlyInAnyOrderElementsOf(
        java.util.stream.LongStream.rangeClosed(2, latest).boxed().toList());
    TableOperations storage = TableOperations.of(new StorageLocation(store.delegate(), TABLE_KEY));
    for (int i = 0; i < sent.size(); i++) {
      long version = results.get(i).version();
      Transaction recorded = storage.transactionOf(storage.readManifest(version, ManifestNaming.Scheme.V2)
          .orElseThrow());
      assertThat(dev.lancecommit.rules.group.GroupMembers.madeBy(recorded, sent.get(i).getUuid()))
          .as("version %s records transaction %s", version, sent.get(i).getUuid()).isTrue();
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> events.versions().size() == latest);
    assertThat(events.events.stream().mapToInt(CommitEvent::groupSize).sum()).isEqualTo(51);
  }

  @Test
  void resubmittingACommittedTransactionAnswersTheSameAndWritesNothing() {
    commit(create());
    Transaction txn = append(1);
    CommitResult first = commit(txn);
    commit(append(2));
    int manifestsBefore = manifestCount();

    CommitResult again = commit(txn);
    assertThat(again).isEqualTo(first.answer());
    assertThat(manifestCount()).isEqualTo(manifestsBefore);
    assertThat(latestOnDisk().version()).isEqualTo(3);
  }

  @Test
  void aWriteWhoseResponseWasLostIsSettledByReadingItBack() {
    commit(create());
    // the manifest lands, then the "network" fails: the lane must find its own commit, not write another
    store.failNext(Call.PUT_IF_ABSENT, 1, When.AFTER, MANIFESTS, FaultInjectingObjectStore.outcomeUnknown());
    CommitResult result = commit(append(1));
    assertThat(result.version()).isEqualTo(2);
    assertThat(manifestCount()).isEqualTo(2);
    assertThat(commit(append(2)).version()).isEqualTo(3);
  }

  @Test
  void aWriteThatNeverLandedIsRetriedOnceTheOutcomeIsKnown() {
    commit(create());
    store.failNext(Call.PUT_IF_ABSENT, 1, When.BEFORE, MANIFESTS, FaultInjectingObjectStore.outcomeUnknown());
    CommitResult result = commit(append(1));
    assertThat(result.version()).isEqualTo(2);
    assertThat(latestOnDisk().version()).isEqualTo(2);
  }

  @Test
  void anUnsettledWriteIsReportedAsUnknownAndResubmittingFinishesIt() {
    commit(create());
    Transaction txn = append(1);
    // every create and every read-back fails: nothing can be said about the outcome
    store.failNext(Call.PUT_IF_ABSENT, 1, When.AFTER, MANIFESTS, FaultInjectingObjectStore.outcomeUnknown());
    store.failNext(Call.PUT_IF_ABSENT, 10, When.BEFORE, MANIFESTS, FaultInjectingObjectStore.outcomeUnknown());
    store.failNext(Call.GET, 10, When.BEFORE, FaultInjectingObjectStore.unavailable());
    assertThatThrownBy(() -> commit(txn)).hasCauseInstanceOf(CommitStateUnknownException.class);
    store.clearFaults();

    CommitResult settled = commit(txn);
    assertThat(settled.version()).isEqualTo(2);
    assertThat(manifestCount()).isEqualTo(2);
  }

  @Test
  void aStoreThatIsDownFailsTheCommitWithoutWritingAManifest() {
    commit(create());
    store.failNext(Call.PUT_IF_ABSENT, 1, When.BEFORE, MANIFESTS, FaultInjectingObjectStore.unavailable());
    assertThatThrownBy(() -> commit(append(1))).hasCauseInstanceOf(StoreUnavailableException.class);
    assertThat(manifestCount()).isEqualTo(1);
  }

  @Test
  void aVersionTakenByAWriterOutsideTheLaneIsReloadedAndCheckedAgain() {
    commit(create());
    commit(append(1)); // the lane now caches version 2
    // a writer bypassing the coordinator commits version 3 directly on the store
    TableState v2 = latestOnDisk();
    Transaction rogue = append(2);
    TableState v3 = ManifestBuilder.build(v2, rogue,
        CommitContext.of(3, Instant.now(), "2-rogue.txn", WriterVersions.coordinator()));
    writeAroundTheLane(3, new ManifestFile(v3.manifest(), v3.indices(), Optional.of(rogue)).encode());

    CommitResult result = commit(append(2));
    assertThat(result.version()).isEqualTo(4);
    assertThat(latestOnDisk().manifest().getFragmentsCount()).isEqualTo(4);
  }

  @Test
  void aWriterThatSawAVersionWrittenAroundTheLaneIsNotRefused() {
    commit(create());
    commit(append(1)); // the lane caches version 2
    TableState v2 = latestOnDisk();
    Transaction rogue = append(2);
    TableState v3 = ManifestBuilder.build(v2, rogue,
        CommitContext.of(3, Instant.now(), "2-rogue.txn", WriterVersions.coordinator()));
    writeAroundTheLane(3, new ManifestFile(v3.manifest(), v3.indices(), Optional.of(rogue)).encode());

    // read_version 3 is ahead of the lane's cache but not of the table
    CommitResult result = commit(append(3));
    assertThat(result.version()).isEqualTo(4);
    assertThat(result.readVersion()).isEqualTo(3);
  }

  @Test
  void theTransactionLandsExactlyAsTheWriterSentIt() {
    commit(create());
    Transaction sent = append(1).toBuilder().putTransactionProperties("__lance_commit_message", "hello").build();
    commit(sent);
    TableOperations storage = TableOperations.of(new StorageLocation(store.delegate(), TABLE_KEY));
    // a stock writer verifying a lost answer compares the landed transaction with its own
    assertThat(storage.transactionOf(storage.readManifest(2, ManifestNaming.Scheme.V2).orElseThrow())).isEqualTo(sent);
  }

  @Test
  void conflictsNameTheCommittedVersionAndOperation() {
    commit(create());
    commit(append(1));
    Transaction overwrite = create().toBuilder().setReadVersion(2).setUuid(UUID.randomUUID().toString()).build();
    commit(overwrite); // version 3 overwrites the table
    assertThatThrownBy(() -> commit(append(2)))
        .cause()
        .isInstanceOf(CommitConflictException.class)
        .satisfies(e -> {
          CommitConflictException conflict = (CommitConflictException) e;
          assertThat(conflict.conflictingVersion()).isEqualTo(3);
          assertThat(conflict.conflictingOperation()).isEqualTo("Overwrite");
        });
    assertThat(latestOnDisk().version()).isEqualTo(3);
  }

  @Test
  void badInputIsRefusedAndChangesNothing() {
    commit(create());
    int before = manifestCount();
    assertThatThrownBy(() -> service.commit(ref, new CommitRequest(new byte[] {1, 2, 3, 4, 5}, Optional.empty(),
        true, "tester")).join()).hasCauseInstanceOf(InvalidTransactionException.class);
    assertThatThrownBy(() -> commit(append(7))) // read version ahead of the table
        .hasCauseInstanceOf(InvalidTransactionException.class);
    // a u64 read_version of 2^63 or more is ahead too, not stale (found by the fuzz suite as a 500)
    assertThatThrownBy(() -> commit(append(-1))).hasCauseInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining("is ahead of the latest version");
    assertThatThrownBy(() -> commit(append(Long.MIN_VALUE))).hasCauseInstanceOf(InvalidTransactionException.class);
    assertThat(manifestCount()).isEqualTo(before);
  }

  @Test
  void aSinkThatFailsCannotFailACommitThatLanded() {
    commit(create());
    events.awaitVersions(1L);
    Transaction txn = append(1);
    events.failNext = true;
    assertThat(commit(txn).version()).as("the version landed: its answer does not depend on the event")
        .isEqualTo(2);
    assertThat(latestOnDisk().version()).isEqualTo(2);
    await().atMost(Duration.ofSeconds(10)).until(() -> !events.failNext);
    assertThat(events.versions()).containsExactly(1L);

    CommitResult again = commit(txn);
    assertThat(again.version()).isEqualTo(2);
    events.awaitVersions(1L, 2L);
  }

  @Test
  void aFullLaneThrottles() {
    service = newService(settings(1));
    commit(create());
    store.failNext(Call.PUT_IF_ABSENT, 1, When.BEFORE, key -> key.contains("/_transactions/"), () -> {
      sleep(500); // hold the lane busy on its .txn write, which then fails
      return new StoreUnavailableException("slow store", null);
    });
    CompletableFuture<CommitResult> first = service.commit(ref, request(append(1)));
    sleep(100);
    CompletableFuture<CommitResult> second = service.commit(ref, request(append(1)));
    CompletableFuture<CommitResult> third = service.commit(ref, request(append(1)));
    assertThat(List.of(second, third)).anySatisfy(f ->
        assertThatThrownBy(f::join).hasCauseInstanceOf(CommitThrottledException.class));
    assertThatThrownBy(first::join).hasCauseInstanceOf(StoreUnavailableException.class);
  }

  @Test
  void aTransactionFileItsWriterWroteIsReadInsteadOfCreatedAgainAndOneItDidNotIsCreated() throws Exception {
    commit(create());
    java.util.function.Predicate<String> transactionFiles = key -> key.contains("/_transactions/");
    Transaction written = append(1);
    byte[] bytes = dev.lancecommit.format.TransactionFiles.encode(written);
    Path file = root.resolve(TABLE_KEY).resolve(dev.lancecommit.format.TransactionFiles.path(written));
    java.nio.file.Files.write(file, bytes); // as Lance writes it before it stages the manifest that names it
    // a create of the .txn would fail the commit: the lane must not attempt one for a file its writer wrote
    store.failNext(Call.PUT_IF_ABSENT, 1, When.BEFORE, transactionFiles, FaultInjectingObjectStore.unavailable());

    CommitResult landed = service.commit(ref, writerWroteItsFile(written)).get(30, TimeUnit.SECONDS);

    assertThat(landed.version()).isEqualTo(2);
    assertThat(store.pendingFaults(Call.PUT_IF_ABSENT)).as("no create of the writer's .txn").isEqualTo(1);
    assertThat(java.nio.file.Files.readAllBytes(file)).isEqualTo(bytes);
    store.clearFaults();

    // said but not done: the lane writes the file, and the version names it
    Transaction unwritten = append(2);
    assertThat(service.commit(ref, writerWroteItsFile(unwritten)).get(30, TimeUnit.SECONDS).version()).isEqualTo(3);
    assertThat(java.nio.file.Files.readAllBytes(root.resolve(TABLE_KEY)
        .resolve(dev.lancecommit.format.TransactionFiles.path(unwritten))))
        .isEqualTo(dev.lancecommit.format.TransactionFiles.encode(unwritten));
  }

  @Test
  void aStagedTransactionReadFromItsFileIsNeitherReadAgainNorWrittenByTheLane() throws Exception {
    commit(create());
    Transaction txn = append(1);
    CreateTableVersion versions = new CreateTableVersion(service, location -> table);
    Path txnFile = writeTransactionFile(txn);
    CreateTableVersion.Request request = stagedWithoutInlineTransaction(txn, 2, false);
    int readsBefore = store.calls(Call.GET);
    CreateTableVersion.Staged staged = versions.stage(ref, request);
    assertThat(store.calls(Call.GET) - readsBefore).as("the staged manifest, then its .txn").isEqualTo(2);
    assertThat(CreateTableVersion.request(staged, "tester").transactionFile())
        .isEqualTo(CommitRequest.TransactionFile.READ_AS_SENT);
    // a second read or a create of the .txn would fail the commit
    java.util.function.Predicate<String> transactionFiles = key -> key.contains("/_transactions/");
    store.failNext(Call.GET, 1, When.BEFORE, transactionFiles, FaultInjectingObjectStore.unavailable());
    store.failNext(Call.PUT_IF_ABSENT, 1, When.BEFORE, transactionFiles, FaultInjectingObjectStore.unavailable());

    CommitResult committed = versions.commit(staged, "tester").get(30, TimeUnit.SECONDS);

    assertThat(committed.version()).isEqualTo(2);
    assertThat(store.pendingFaults(Call.GET)).as("no second read of the .txn").isEqualTo(1);
    assertThat(store.pendingFaults(Call.PUT_IF_ABSENT)).as("no create of the .txn").isEqualTo(1);
    ManifestFile landed = latestManifestOnDisk();
    assertThat(landed.manifest().getTransactionFile()).isEqualTo(txnFile.getFileName().toString());
    assertThat(TableOperations.of(table).transactionOf(landed)).isEqualTo(txn);
  }

  @Test
  void aStagedAppendMovedToTheLatestVersionIsRecordedAsSentUnderItsWritersFile() throws Exception {
    commit(create());
    Transaction txn = append(1); // read version 1, staged as version 2
    Path txnFile = writeTransactionFile(txn);
    CreateTableVersion.Request request = stagedWithoutInlineTransaction(txn, 2, true);
    commit(append(1)); // version 2 taken meanwhile
    CreateTableVersion versions = new CreateTableVersion(service, location -> table);
    CreateTableVersion.Staged staged = versions.stage(ref, request);
    java.util.function.Predicate<String> transactionFiles = key -> key.contains("/_transactions/");
    store.failNext(Call.GET, 1, When.BEFORE, transactionFiles, FaultInjectingObjectStore.unavailable());
    store.failNext(Call.PUT_IF_ABSENT, 1, When.BEFORE, transactionFiles, FaultInjectingObjectStore.unavailable());

    CommitResult committed = versions.commit(staged, "tester").get(30, TimeUnit.SECONDS);

    assertThat(committed.version()).as("appends on the latest version").isEqualTo(3);
    assertThat(store.pendingFaults(Call.GET) + store.pendingFaults(Call.PUT_IF_ABSENT)).isEqualTo(2);
    ManifestFile landed = latestManifestOnDisk();
    assertThat(landed.manifest().getTransactionFile()).isEqualTo(txnFile.getFileName().toString());
    assertThat(TableOperations.of(table).transactionOf(landed)).as("recorded as sent").isEqualTo(txn);
  }

  @Test
  void aLandedAnswerSaysTheManifestAsWrittenAndAResubmissionsAnswerDoesNot() throws Exception {
    commit(create());
    Transaction txn = append(1);

    CommitResult landed = commit(txn);

    Path manifest = root.resolve(TABLE_KEY).resolve(ManifestNaming.path(ManifestNaming.Scheme.V2, 2));
    com.google.protobuf.Timestamp recorded = ManifestFile.decode(java.nio.file.Files.readAllBytes(manifest))
        .manifest().getTimestamp();
    assertThat(landed.written()).contains(new CommitResult.WrittenManifest(java.nio.file.Files.size(manifest),
        Instant.ofEpochSecond(recorded.getSeconds(), recorded.getNanos())));
    CommitResult again = commit(txn);
    assertThat(again.written()).as("the version landed before: nothing was written").isEmpty();
    assertThat(again).isEqualTo(landed.answer());
  }

  @Test
  void aStagedVersionIsDescribedFromWhatItsCommitWroteWithoutAskingTheStore() throws Exception {
    commit(create());
    Transaction txn = append(1);
    ManifestFile latest = ManifestFile.decode(java.nio.file.Files.readAllBytes(
        root.resolve(TABLE_KEY).resolve(ManifestNaming.path(ManifestNaming.Scheme.V2, 1))));
    String stagedName = ManifestNaming.fileName(ManifestNaming.Scheme.V2, 2) + "-" + UUID.randomUUID();
    Path stagedFile = root.resolve(TABLE_KEY).resolve("_versions").resolve(stagedName);
    java.nio.file.Files.write(stagedFile, new ManifestFile(latest.manifest().toBuilder().setVersion(2).build(),
        latest.indices(), Optional.of(txn)).encode());
    CreateTableVersion versions = new CreateTableVersion(service, location -> table);
    CreateTableVersion.Staged staged = versions.stage(ref, new CreateTableVersion.Request(stagedName,
        stagedFile.toString(), 2, java.util.OptionalLong.empty(), ManifestNaming.Scheme.V2, false));
    // the answer must not need a HEAD of the manifest: one would fail
    java.util.function.Predicate<String> manifests = key -> key.contains("/_versions/");
    store.failNext(Call.HEAD, 1, When.BEFORE, manifests, FaultInjectingObjectStore.unavailable());

    CommitResult committed = versions.commit(staged, "tester").get(30, TimeUnit.SECONDS);
    CreateTableVersion.Created created = versions.describe(staged, committed);

    Path manifest = root.resolve(TABLE_KEY).resolve(ManifestNaming.path(ManifestNaming.Scheme.V2, 2));
    assertThat(store.pendingFaults(Call.HEAD)).as("no HEAD of the manifest").isEqualTo(1);
    assertThat(created.version()).isEqualTo(2);
    assertThat(created.manifestSize()).isEqualTo(java.nio.file.Files.size(manifest));
    com.google.protobuf.Timestamp recorded = ManifestFile.decode(java.nio.file.Files.readAllBytes(manifest))
        .manifest().getTimestamp();
    assertThat(created.committedAt()).isEqualTo(Instant.ofEpochSecond(recorded.getSeconds(), recorded.getNanos()));
    // a version that landed before (the request made again) is described from the store
    assertThatThrownBy(() -> versions.describe(staged, committed.answer()))
        .isInstanceOf(StoreUnavailableException.class);
    assertThat(versions.describe(staged, committed.answer()).manifestSize())
        .isEqualTo(java.nio.file.Files.size(manifest));
  }

  /** Its {@code .txn}, as a stock client writes it before it stages the manifest that names it. */
  private Path writeTransactionFile(Transaction txn) throws java.io.IOException {
    Path file = root.resolve(TABLE_KEY).resolve(dev.lancecommit.format.TransactionFiles.path(txn));
    java.nio.file.Files.write(file, dev.lancecommit.format.TransactionFiles.encode(txn));
    return file;
  }

  /**
   * Stages version {@code version} as pylance 14 does: the latest manifest with the next version number, naming the
   * transaction's {@code .txn} and carrying no inline copy of it.
   */
  private CreateTableVersion.Request stagedWithoutInlineTransaction(Transaction txn, long version,
      boolean appendsOnLatest) throws java.io.IOException {
    ManifestFile latest = latestManifestOnDisk();
    String stagedName = ManifestNaming.fileName(ManifestNaming.Scheme.V2, version) + "-" + UUID.randomUUID();
    Path stagedFile = root.resolve(TABLE_KEY).resolve("_versions").resolve(stagedName);
    java.nio.file.Files.write(stagedFile, new ManifestFile(latest.manifest().toBuilder().setVersion(version)
        .setTransactionFile(dev.lancecommit.format.TransactionFiles.fileName(txn)).build(), latest.indices(),
        Optional.empty()).encode());
    return new CreateTableVersion.Request(stagedName, stagedFile.toString(), version, java.util.OptionalLong.empty(),
        ManifestNaming.Scheme.V2, appendsOnLatest);
  }

  private static CommitRequest writerWroteItsFile(Transaction txn) {
    return new CommitRequest(txn.toByteArray(), Optional.empty(), true, "tester", false, false, 0,
        CommitRequest.TransactionFile.WRITTEN);
  }

  private CommitResult commit(Transaction txn) {
    try {
      return service.commit(ref, request(txn)).get(30, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new CompletionException(e.getCause());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static CommitRequest request(Transaction txn) {
    return new CommitRequest(txn.toByteArray(), Optional.empty(), true, "tester");
  }

  private Transaction create() {
    return transactions.create();
  }

  private Transaction append(long readVersion) {
    return transactions.append(readVersion);
  }

  private TableState latestOnDisk() {
    return latestManifestOnDisk().tableState();
  }

  private ManifestFile latestManifestOnDisk() {
    TableOperations storage = TableOperations.of(new StorageLocation(store.delegate(), TABLE_KEY));
    TableVersions listing = storage.versions();
    return storage.readManifest(listing.latest().orElseThrow(), listing.scheme().orElseThrow()).orElseThrow();
  }

  private int manifestCount() {
    return TableOperations.of(new StorageLocation(store.delegate(), TABLE_KEY)).versions().size();
  }

  /** A writer bypassing the coordinator creates a version directly on the store. */
  private void writeAroundTheLane(long version, byte[] manifestFile) {
    store.delegate().putIfAbsent(table.key(ManifestNaming.path(ManifestNaming.Scheme.V2, version)), manifestFile);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Records events; can be told to throw on the next one, standing in for a broken sink. */
  static final class RecordingPublisher implements CommitEventSink {
    final List<CommitEvent> events = Collections.synchronizedList(new ArrayList<>());
    volatile boolean failNext;

    @Override
    public void accept(CommitEvent event) {
      if (failNext) {
        failNext = false;
        throw new IllegalStateException("the sink is broken");
      }
      synchronized (events) {
        if (events.stream().noneMatch(e -> e.id().equals(event.id()))) {
          events.add(event);
        }
      }
    }

    List<Long> versions() {
      synchronized (events) {
        return events.stream().map(CommitEvent::version).toList();
      }
    }

    /** Events are handed over after the answer: waits until exactly these versions were received. */
    void awaitVersions(Long... expected) {
      await().atMost(Duration.ofSeconds(10)).until(() -> versions().equals(List.of(expected)));
    }
  }
}
