package dev.lancecommit.coordinator.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.coordinator.commit.CheckedCommit;
import dev.lancecommit.coordinator.commit.CommitEventSink;
import dev.lancecommit.coordinator.commit.HeldLane;
import dev.lancecommit.coordinator.commit.CommitObserver;
import dev.lancecommit.coordinator.commit.CommitPermit;
import dev.lancecommit.coordinator.commit.CommitRequest;
import dev.lancecommit.coordinator.commit.CommitResult;
import dev.lancecommit.coordinator.commit.CommitSettings;
import dev.lancecommit.coordinator.commit.LaneCommitService;
import dev.lancecommit.coordinator.commit.LaneOpening;
import dev.lancecommit.coordinator.storage.LocalObjectStore;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.storage.StoreUnavailableException;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.WriterVersions;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.FaultInjectingObjectStore;
import dev.lancecommit.testing.FaultInjectingObjectStore.Call;
import dev.lancecommit.testing.FaultInjectingObjectStore.When;
import dev.lancecommit.testing.HandMadeTransactions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table's new lane in cluster mode settles the atomic batches another instance may have left holding its next
 * version before it serves a commit: the member of a recorded batch is written first, an announced batch without a
 * record is fenced, and a store that cannot tell fails the commits (503/17) instead of letting them through. Real
 * local store, real lanes.
 */
class LaneTakeoverTest {
  private static final String SELF = "http://new-owner:1";

  @TempDir Path dir;
  private FaultInjectingObjectStore store;
  private StorageLocation warehouse;
  private StorageLocation table;
  private TableRef ref;
  private ExecutorService executor;
  private final HandMadeTransactions transactions = new HandMadeTransactions();

  @BeforeEach
  void setUp() throws Exception {
    store = new FaultInjectingObjectStore(new LocalObjectStore(dir));
    warehouse = new StorageLocation(store, "");
    table = new StorageLocation(store, "ns/t.lance");
    ref = new TableRef(List.of("ns", "t"), table.uri(), UUID.randomUUID().toString());
    executor = Executors.newFixedThreadPool(4);
    // the table exists at version 1, made by the previous owner
    assertThat(commit(service(LaneOpening.NONE), transactions.create()).version()).isEqualTo(1);
  }

  @AfterEach
  void tearDown() throws Exception {
    executor.shutdownNow();
    executor.awaitTermination(5, TimeUnit.SECONDS);
  }

  private LaneCommitService service(LaneOpening opening) {
    return service(opening, CommitPermit.ALWAYS);
  }

  private LaneCommitService service(LaneOpening opening, CommitPermit permit) {
    return new LaneCommitService(location -> table, new CommitSettings(100, 20, 3, 64, WriterVersions.coordinator(),
        "2.1", ManifestNaming.Scheme.V2).withVerifyFiles(false), CommitEventSink.discard(), executor,
        Clock.systemUTC(), Duration.ofMinutes(10), CommitObserver.NONE, permit, opening);
  }

  /** This instance taking the table over: a service whose lanes are all new. */
  private LaneCommitService takenOver() {
    return service(new LaneTakeover(warehouse, new PendingBatches(), Clock.systemUTC(), SELF));
  }

  private CommitResult commit(LaneCommitService service, Transaction txn) throws Exception {
    return service.commit(ref, new CommitRequest(txn.toByteArray(), Optional.empty(), true, "tester"))
        .get(30, TimeUnit.SECONDS);
  }

  private BatchRecord record(String batchId, Transaction member, long version) {
    return new BatchRecord(BatchRecord.FORMAT, batchId, Instant.now().toString(), "BatchCreateTableVersions", "alice",
        List.of(new BatchRecord.Member(0, ref.id(), ref.tableUuid(), ref.location(), version, member.getUuid(),
            member.toByteArray(), false),
            new BatchRecord.Member(1, List.of("ns", "other"), UUID.randomUUID().toString(), "/elsewhere/other.lance",
                4, UUID.randomUUID().toString(), new byte[] {1}, false)));
  }

  private BatchIntent intent(String batchId, TableRef... tables) {
    return new BatchIntent(BatchRecord.FORMAT, batchId, Instant.now().toString(),
        java.util.Arrays.stream(tables).map(BatchIntent.Member::of).toList());
  }

  @Test
  void aRecordedMemberTheOldOwnerNeverWroteIsWrittenBeforeTheFirstCommit() throws Exception {
    BatchLog log = new BatchLog(warehouse);
    String batchId = UUID.randomUUID().toString();
    Transaction member = transactions.append(1);
    log.announce(intent(batchId, ref));
    assertThat(log.write(record(batchId, member, 2))).isEqualTo(BatchLog.Written.WRITTEN);

    LaneCommitService service = takenOver();
    CommitResult single = commit(service, transactions.append(1));
    assertThat(single.version()).as("the member keeps version 2").isEqualTo(3);
    // the member's transaction made version 2: resubmitting it answers that version and writes nothing
    assertThat(commit(service, member).version()).isEqualTo(2);
    assertThat(store.calls(Call.LIST)).isPositive();
  }

  @Test
  void anAnnouncedBatchWithoutRecordIsFencedAndItsRecordCanNoLongerBeWritten() throws Exception {
    BatchLog log = new BatchLog(warehouse);
    String mine = UUID.randomUUID().toString();
    String notMine = UUID.randomUUID().toString();
    log.announce(intent(mine, ref));
    log.announce(intent(notMine, new TableRef(List.of("ns", "other"), "/elsewhere/other.lance",
        UUID.randomUUID().toString())));

    assertThat(commit(takenOver(), transactions.append(1)).version()).isEqualTo(2);
    Path batches = dir.resolve("_catalog/batches");
    assertThat(Files.readString(batches.resolve(mine + ".json"))).contains("aborted_by").contains(SELF);
    assertThat(batches.resolve(notMine + ".json")).as("another table's batch is left alone").doesNotExist();
    // the coordinating instance, late, finds its batch fenced: nothing of it can be applied
    assertThat(log.write(record(mine, transactions.append(1), 2))).isEqualTo(BatchLog.Written.ABORTED);
  }

  @Test
  void aStoreThatCannotTellFailsTheCommitsUntilTheBatchesAreSettled() throws Exception {
    BatchLog log = new BatchLog(warehouse);
    String batchId = UUID.randomUUID().toString();
    log.announce(intent(batchId, ref));
    store.failNext(Call.LIST, 1, When.BEFORE, key -> key.contains("_catalog/batches"),
        FaultInjectingObjectStore.unavailable());

    LaneCommitService service = takenOver();
    Transaction first = transactions.append(1);
    assertThatThrownBy(() -> commit(service, first)).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOf(StoreUnavailableException.class).hasMessageContaining("could not be settled");
    assertThat(dir.resolve("_catalog/batches/" + batchId + ".json")).doesNotExist();
    // nothing was written: the same commit again makes the lane again, which fences the batch, then commits
    assertThat(commit(service, first).version()).isEqualTo(2);
    assertThat(Files.readString(dir.resolve("_catalog/batches/" + batchId + ".json"))).contains(SELF);
  }

  /**
   * The old owner was paused, not dead: it still holds the lane with the member checked when the new owner rolls the
   * recorded batch forward and serves a commit after it. Its late apply writes nothing: its put-if-absent finds the
   * version made by this very transaction and answers it as landed.
   */
  @Test
  void aPausedOldOwnersLateApplyWritesNothingAfterTheNewOwnerRolledTheMemberForward() throws Exception {
    LaneCommitService old = service(LaneOpening.NONE);
    BatchLog log = new BatchLog(warehouse);
    String batchId = UUID.randomUUID().toString();
    Transaction member = transactions.append(1);
    log.announce(intent(batchId, ref));
    HeldLane held = old.hold(ref).get(30, TimeUnit.SECONDS);
    CheckedCommit checked = held.check(new CommitRequest(member.toByteArray(), Optional.empty(), false, "alice"));
    assertThat(checked.version()).isEqualTo(2);
    assertThat(log.write(record(batchId, member, 2))).isEqualTo(BatchLog.Written.WRITTEN);

    assertThat(commit(takenOver(), transactions.append(1)).version()).isEqualTo(3);
    Path versions = dir.resolve("ns/t.lance/_versions");
    List<String> manifests = manifests(versions);
    byte[] memberManifest = Files.readAllBytes(versions.resolve(ManifestNaming.path(ManifestNaming.Scheme.V2, 2)
        .substring("_versions/".length())));

    assertThat(held.apply(checked, batchId).version()).isEqualTo(2);
    held.release(false);
    assertThat(manifests(versions)).as("nothing written by the old owner").isEqualTo(manifests).hasSize(3);
    assertThat(Files.readAllBytes(versions.resolve(ManifestNaming.path(ManifestNaming.Scheme.V2, 2)
        .substring("_versions/".length())))).isEqualTo(memberManifest);
  }

  private static List<String> manifests(Path versions) throws java.io.IOException {
    try (var files = Files.list(versions)) {
      return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".manifest")).sorted().toList();
    }
  }

  @Test
  void aSingleCoordinatorListsNothing() throws Exception {
    int before = store.calls(Call.LIST);
    LaneCommitService service = service(LaneOpening.NONE);
    commit(service, transactions.append(1));
    assertThat(store.calls(Call.LIST)).as("no listing of _catalog/batches").isEqualTo(before);
  }
}
