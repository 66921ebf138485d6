package dev.lancecommit.coordinator.commit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.coordinator.storage.LocalObjectStore;
import dev.lancecommit.coordinator.storage.ObjectInfo;
import dev.lancecommit.coordinator.storage.ObjectAlreadyExistsException;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.storage.StoreUnavailableException;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.TransactionFiles;
import dev.lancecommit.format.WriterVersions;
import dev.lancecommit.format.pb.BasePath;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.CommitContext;
import dev.lancecommit.rules.InvalidTransactionException;
import dev.lancecommit.rules.ManifestBuilder;
import dev.lancecommit.testing.FaultInjectingObjectStore;
import dev.lancecommit.testing.FaultInjectingObjectStore.Call;
import dev.lancecommit.testing.FaultInjectingObjectStore.When;
import dev.lancecommit.testing.HandMadeTransactions;
import dev.lancecommit.testing.lance.TestIndexes;
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
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clone through the commit lane on a real local store: the source read from another location (a branch root
 * included), a table whose history starts at the cloned version, source outages, resubmits after the lane is gone,
 * and a clone that loses its version to a writer outside the lane.
 */
class CloneLaneTest {
  @TempDir Path root;
  private FaultInjectingObjectStore store;
  private StorageLocation source;
  private StorageLocation branch;
  private StorageLocation target;
  private Recorder events;
  private ExecutorService executor;
  private TableRef sourceRef;
  private TableRef branchRef;
  private TableRef targetRef;
  private final HandMadeTransactions transactions = new HandMadeTransactions();

  @BeforeEach
  void setUp() {
    store = new FaultInjectingObjectStore(new LocalObjectStore(root));
    source = new StorageLocation(store, "wh/ns/src.lance");
    branch = source.resolve("tree/dev");
    target = new StorageLocation(store, "wh/ns/dst.lance");
    events = new Recorder();
    executor = Executors.newFixedThreadPool(2);
    sourceRef = new TableRef(List.of("ns", "src"), source.uri(), UUID.randomUUID().toString());
    branchRef = new TableRef(List.of("ns", "src_dev"), branch.uri(), UUID.randomUUID().toString());
    targetRef = new TableRef(List.of("ns", "dst"), target.uri(), UUID.randomUUID().toString());
  }

  @AfterEach
  void tearDown() throws Exception {
    executor.shutdownNow();
    executor.awaitTermination(5, TimeUnit.SECONDS);
  }

  /** Resolves the three locations of the test and nothing else, as ObjectStores refuses what it cannot reach. */
  private StorageLocation resolve(String uri) {
    for (StorageLocation location : List.of(source, branch, target)) {
      if (location.uri().equals(uri)) {
        return location;
      }
    }
    throw new IllegalArgumentException("unsupported storage location '" + uri + "'");
  }

  private LaneCommitService newService() {
    Function<String, StorageLocation> stores = this::resolve;
    // Hand-made transactions name data files that are never written, so file checks are off; deep clones are
    // checked either way.
    return new LaneCommitService(stores, new CommitSettings(100, 5, 3, 64, WriterVersions.coordinator(), "2.1",
        ManifestNaming.Scheme.V2).withVerifyFiles(false), events, executor, Clock.systemUTC(), Duration.ofMinutes(10));
  }

  @Test
  void aCloneOfABranchReadsTheBranchRootAndNamesTheBranchInItsNewBase() {
    LaneCommitService service = newService();
    commit(service, sourceRef, create());
    commit(service, sourceRef, append(1));
    // the branch "dev" is a dataset at {root}/tree/dev created by a Clone with branch_name, as Lance creates it
    Transaction makeBranch = clone(source.uri(), 2).toBuilder()
        .setClone(clone(source.uri(), 2).getClone().toBuilder().setBranchName("dev")).build();
    assertThat(commit(service, branchRef, makeBranch).version()).isEqualTo(2);
    assertThat(commit(service, branchRef, append(2)).version()).isEqualTo(3);

    Transaction ofBranch = clone(branch.uri(), 3).toBuilder()
        .setClone(clone(branch.uri(), 3).getClone().toBuilder().setRefName("dev")).build();
    CommitResult result = commit(service, targetRef, ofBranch);
    assertThat(result.version()).isEqualTo(3);

    TableState cloned = onDisk(target, 3);
    assertThat(cloned.manifest().getFragmentsCount()).isEqualTo(3);
    assertThat(cloned.manifest().hasBranch()).isFalse();
    assertThat(cloned.manifest().getBasePathsList()).extracting(BasePath::getId, BasePath::getPath)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(0, source.uri()),
            org.assertj.core.groups.Tuple.tuple(1, branch.uri()));
    assertThat(cloned.manifest().getBasePaths(1).getName()).isEqualTo("dev");
    // the main-line fragments stay on the main root (base 0), the branch's own fragment is reached through base 1
    assertThat(cloned.manifest().getFragmentsList()).extracting(f -> f.getFiles(0).getBaseId())
        .containsExactly(0, 0, 1);
    assertThat(TableOperations.of(source).versions().versions()).containsExactly(1L, 2L);
  }

  @Test
  void aTableMadeByACloneChecksWritersAgainstTheVersionsItHasOnly() {
    LaneCommitService service = newService();
    commit(service, sourceRef, create());
    commit(service, sourceRef, append(1));
    commit(service, sourceRef, append(2));
    assertThat(commit(service, targetRef, clone(source.uri(), 2)).version()).isEqualTo(2);

    // a read_version the table never had is refused as invalid (not a history gap, not a store failure)
    assertThatThrownBy(() -> commit(service, targetRef, append(1)))
        .isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining("older than version 2");
    // an Overwrite from scratch is checked against the versions since the first one, which is 2
    assertThat(commit(service, targetRef, create()).version()).isEqualTo(3);
    assertThat(commit(service, targetRef, append(3)).version()).isEqualTo(4);
    assertThat(TableOperations.of(target).versions().versions()).containsExactly(2L, 3L, 4L);
    events.await(targetRef, 2L, 3L, 4L);
    CommitEvent created = events.of(targetRef).stream().filter(e -> e.version() == 2).findFirst().orElseThrow();
    assertThat(created.operation()).isEqualTo("Clone");
    assertThat(created.rowsAdded()).isEqualTo(20);
    assertThat(created.fragmentsAdded()).isEqualTo(2);
    assertThat(created.fragmentsRemoved()).isZero();
  }

  @Test
  void aSourceThatIsDownIsUnavailableAndTheSameCloneThenSucceeds() {
    LaneCommitService service = newService();
    commit(service, sourceRef, create());
    Transaction txn = clone(source.uri(), 1);
    store.failNext(Call.GET, 1, When.BEFORE, key -> key.startsWith(source.key("_versions")),
        FaultInjectingObjectStore.unavailable());
    assertThatThrownBy(() -> commit(service, targetRef, txn)).isInstanceOf(StoreUnavailableException.class);
    assertThat(TableOperations.of(target).versions().versions()).isEmpty();

    assertThat(commit(service, targetRef, txn).version()).isEqualTo(1);
  }

  @Test
  void aResubmittedCloneIsAnsweredFromStorageByALaneThatNeverSawIt() {
    commit(newService(), sourceRef, create());
    commit(newService(), sourceRef, append(1));
    Transaction txn = clone(source.uri(), 2);
    CommitResult first = commit(newService(), targetRef, txn);
    commit(newService(), targetRef, append(2));

    CommitResult again = commit(newService(), targetRef, txn);
    assertThat(again).isEqualTo(first.answer());
    assertThat(TableOperations.of(target).versions().versions()).containsExactly(2L, 3L);
    events.await(targetRef, 2L, 3L, 2L);
    List<CommitEvent> cloneEvents = events.of(targetRef).stream().filter(e -> e.version() == 2).toList();
    assertThat(cloneEvents).hasSize(2); // published again: the first answer may have been lost with its event
    assertThat(cloneEvents.get(1).id()).isEqualTo(cloneEvents.get(0).id());
    assertThat(cloneEvents.get(1).rowsAdded()).isEqualTo(cloneEvents.get(0).rowsAdded()).isEqualTo(20);
  }

  @Test
  void aCloneWhoseVersionIsTakenOutsideTheLaneIsRefusedAgainstWhatLanded() {
    LaneCommitService service = newService();
    commit(service, sourceRef, create());
    Transaction theirs = clone(source.uri(), 1);
    String versionKey = target.key(ManifestNaming.path(ManifestNaming.Scheme.V2, 1));
    // another coordinator creates the table between our listing and our write
    store.failNext(Call.PUT_IF_ABSENT, 1, When.BEFORE, versionKey::equals, () -> {
      store.delegate().putIfAbsent(versionKey, cloneManifest(theirs));
      return new ObjectAlreadyExistsException(versionKey);
    });
    assertThatThrownBy(() -> commit(service, targetRef, clone(source.uri(), 1)))
        .isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining("already exists at version 1");
    // theirs, resubmitted to this coordinator, is recognised as committed
    assertThat(commit(service, targetRef, theirs).version()).isEqualTo(1);
  }

  @Test
  void aDeepCloneIsWrittenOnlyOnceEveryFileItNamesIsInTheTable() {
    LaneCommitService service = newService();
    commit(service, sourceRef, create());
    commit(service, sourceRef, append(1));
    IndexMetadata index = TestIndexes.btreeIndex("id_idx", List.of(0), 2, List.of(0, 1));
    commit(service, sourceRef, TransactionFactory.createIndex(2, List.of(index), List.of()));
    String indexDir = "_indices/" + uuidOf(index);
    store.put(source.key(indexDir + "/page_data.lance"), new byte[7]);
    store.put(source.key(indexDir + "/page_lookup.lance"), new byte[3]);
    Transaction deep = clone(source.uri(), 3).toBuilder()
        .setClone(clone(source.uri(), 3).getClone().toBuilder().setIsShallow(false)).build();

    // nothing copied yet
    assertThatThrownBy(() -> commit(service, targetRef, deep)).isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining(target.uri("data/f1.lance") + " is not there");
    store.put(target.key("data/f1.lance"), new byte[100]);
    store.put(target.key("data/f2.lance"), new byte[100]);
    store.put(target.key(indexDir + "/page_data.lance"), new byte[7]);
    // an index file short, then one cut short
    assertThatThrownBy(() -> commit(service, targetRef, deep)).isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining(target.uri(indexDir + "/page_lookup.lance") + " is not there");
    store.put(target.key(indexDir + "/page_lookup.lance"), new byte[2]);
    assertThatThrownBy(() -> commit(service, targetRef, deep)).isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining(target.uri(indexDir + "/page_lookup.lance") + " has 2 bytes")
        .hasMessageContaining("has 3");
    // the refusals wrote nothing: no version, no transaction file, no event
    assertThat(store.list(target.rootKey())).extracting(ObjectInfo::key)
        .noneMatch(k -> k.contains("/_versions/") || k.contains("/_transactions/"));
    assertThat(events.of(targetRef)).isEmpty();

    store.put(target.key(indexDir + "/page_lookup.lance"), new byte[3]);
    assertThat(commit(service, targetRef, deep).version()).isEqualTo(3);
    TableState cloned = onDisk(target, 3);
    assertThat(cloned.manifest().getBasePathsList()).isEmpty();
    assertThat(cloned.manifest().getFragmentsList()).hasSize(2)
        .allSatisfy(f -> assertThat(f.getFilesList()).noneMatch(DataFile::hasBaseId));
    assertThat(cloned.indices()).singleElement().satisfies(i -> {
      assertThat(i.hasBaseId()).isFalse();
      assertThat(i.getUuid()).isEqualTo(index.getUuid());
    });
    events.await(targetRef, 3L);
    assertThat(commit(service, targetRef, append(3)).version()).isEqualTo(4);
    // the source is as it was
    assertThat(TableOperations.of(source).versions().versions()).containsExactly(1L, 2L, 3L);
  }

  @Test
  void aDeepCloneOfACloneExpectsTheFilesItsSourceReachedThroughABaseUnderItsOwnRoot() {
    LaneCommitService service = newService();
    commit(service, sourceRef, create());
    // the branch reaches f1 through a base path to the main root, and has f2 of its own
    Transaction makeBranch = clone(source.uri(), 1).toBuilder()
        .setClone(clone(source.uri(), 1).getClone().toBuilder().setBranchName("dev")).build();
    commit(service, branchRef, makeBranch);
    commit(service, branchRef, append(1));
    Transaction deep = clone(branch.uri(), 2).toBuilder()
        .setClone(clone(branch.uri(), 2).getClone().toBuilder().setIsShallow(false).setRefName("dev")).build();

    store.put(target.key("data/f2.lance"), new byte[100]);
    assertThatThrownBy(() -> commit(service, targetRef, deep)).isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining(target.uri("data/f1.lance"));
    store.put(target.key("data/f1.lance"), new byte[100]);
    assertThat(commit(service, targetRef, deep).version()).isEqualTo(2);
    TableState cloned = onDisk(target, 2);
    assertThat(cloned.manifest().getBasePathsList()).isEmpty();
    assertThat(cloned.manifest().hasBranch()).isFalse();
    assertThat(cloned.manifest().getFragmentsList()).extracting(f -> f.getFiles(0).getPath())
        .containsExactly("f1.lance", "f2.lance");
    assertThat(cloned.manifest().getFragmentsList()).allSatisfy(f -> assertThat(f.getFiles(0).hasBaseId()).isFalse());
  }

  private static String uuidOf(IndexMetadata index) {
    java.nio.ByteBuffer bytes = index.getUuid().getUuid().asReadOnlyByteBuffer();
    return new UUID(bytes.getLong(), bytes.getLong()).toString();
  }

  private byte[] cloneManifest(Transaction txn) {
    TableOperations sourceStorage = TableOperations.of(new StorageLocation(store.delegate(), source.rootKey()));
    TableState sourceState = sourceStorage.readVersion(1).orElseThrow().tableState();
    CommitContext ctx = new CommitContext(1, Instant.now(), TransactionFiles.fileName(txn),
        WriterVersions.coordinator(), false, "2.1");
    TableState built = ManifestBuilder.buildClone(sourceState, txn, ctx);
    return new ManifestFile(built.manifest(), built.indices(), Optional.of(txn)).encode();
  }

  private static CommitResult commit(LaneCommitService service, TableRef table, Transaction txn) {
    try {
      return service.commit(table, new CommitRequest(txn.toByteArray(), Optional.empty(), true, "tester")).join();
    } catch (CompletionException e) {
      throw (RuntimeException) e.getCause();
    }
  }

  private TableState onDisk(StorageLocation table, long version) {
    return TableOperations.of(table).readVersion(version).orElseThrow().tableState();
  }

  private static Transaction clone(String refPath, long refVersion) {
    return Transaction.newBuilder()
        .setReadVersion(refVersion)
        .setUuid(UUID.randomUUID().toString())
        .setClone(Transaction.Clone.newBuilder().setIsShallow(true).setRefPath(refPath).setRefVersion(refVersion))
        .build();
  }

  private Transaction create() {
    return transactions.create();
  }

  private Transaction append(long readVersion) {
    return transactions.append(readVersion);
  }

  /** Keeps every event, republished ones included. */
  static final class Recorder implements CommitEventSink {
    private final List<CommitEvent> events = Collections.synchronizedList(new ArrayList<>());

    @Override
    public void accept(CommitEvent event) {
      events.add(event);
    }

    List<CommitEvent> of(TableRef table) {
      synchronized (events) {
        return events.stream().filter(e -> e.tableUuid().equals(table.tableUuid())).toList();
      }
    }

    List<Long> versions(TableRef table) {
      return of(table).stream().map(CommitEvent::version).toList();
    }

    /**
     * Events are handed over after the answer: waits until the table's events are exactly these versions, in any
     * order (the lanes of different services hand theirs over independently, so one answered earlier may publish
     * later).
     */
    void await(TableRef table, Long... versions) {
      List<Long> expected = java.util.Arrays.stream(versions).sorted().toList();
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
          .until(() -> versions(table).stream().sorted().toList().equals(expected));
    }
  }
}
