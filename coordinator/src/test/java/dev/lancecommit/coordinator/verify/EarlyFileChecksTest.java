package dev.lancecommit.coordinator.verify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.coordinator.storage.LocalObjectStore;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.FaultInjectingObjectStore;
import dev.lancecommit.testing.FaultInjectingObjectStore.Call;
import dev.lancecommit.testing.lance.LanceTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The data files of a waiting commit are checked early, and the lane's own check then reads none of them again; an
 * early check that found a problem, has not started, or comes too late never stands in for the lane's. Counted in
 * store requests on a real Lance data file.
 */
class EarlyFileChecksTest {
  private static final String TABLE_KEY = "wh/ns/t.lance";

  @TempDir Path root;
  private FaultInjectingObjectStore store;
  private StorageLocation table;
  private Function<String, StorageLocation> stores;
  private Transaction append;

  @BeforeEach
  void setUp() {
    store = new FaultInjectingObjectStore(new LocalObjectStore(root));
    table = new StorageLocation(store, TABLE_KEY);
    stores = uri -> table;
    try (LanceTables lance = LanceTables.local(root.resolve(TABLE_KEY))) {
      append = TransactionFactory.append(1, LanceProtos.fragments(lance.writeRows(0, 5)));
    }
  }

  /** The data file as the lane names it in the built version: the fragment has its final id there. */
  private NamedFile asTheLaneSeesIt(Transaction txn, long fragmentId) {
    DataFragment built = txn.getAppend().getFragments(0).toBuilder().setId(fragmentId).build();
    TableState version = new TableState(Manifest.newBuilder().addFragments(built).build(), List.of());
    return VersionFiles.of(version, table, stores).stream().filter(f -> f instanceof NamedFile.Data).findFirst()
        .orElseThrow();
  }

  @Test
  void aFileFoundRightEarlyIsNotReadAgainAndTheResultIsUsedOnce() {
    EarlyFileChecks early = new EarlyFileChecks(stores, Runnable::run, 4);
    early.start(table, () -> append);
    assertThat(store.calls(Call.GET_TAIL)).isEqualTo(1);

    NamedFile file = asTheLaneSeesIt(append, 42);
    assertThat(early.passed(file)).isTrue();
    assertThat(store.calls(Call.GET_TAIL)).isEqualTo(1);
    assertThat(early.passed(file)).as("used once").isFalse();
  }

  @Test
  void aFileMissingWhenCheckedEarlyIsLeftToTheLane() {
    Transaction missing = TransactionFactory.append(1, List.of(append.getAppend().getFragments(0).toBuilder()
        .setFiles(0, append.getAppend().getFragments(0).getFiles(0).toBuilder().setPath("never-written.lance"))
        .build()));
    EarlyFileChecks early = new EarlyFileChecks(stores, Runnable::run, 4);
    early.start(table, () -> missing);
    assertThat(early.passed(asTheLaneSeesIt(missing, 3))).isFalse();
  }

  @Test
  void aCheckThatHasNotStartedIsTakenBackAndNeverRunsAfterwards() {
    List<Runnable> queued = new ArrayList<>();
    EarlyFileChecks early = new EarlyFileChecks(stores, queued::add, 4);
    early.start(table, () -> append);
    assertThat(early.passed(asTheLaneSeesIt(append, 1))).isFalse(); // the lane checks it itself

    queued.forEach(Runnable::run); // the early check's turn comes after the lane had the file in hand
    assertThat(store.calls(Call.GET_TAIL)).isZero();
  }

  @Test
  void theLaneWaitsForACheckThatIsRunningInsteadOfReadingTheFileTwice() throws Exception {
    FaultInjectingObjectStore.Hold hold = store.holdNext(Call.GET_TAIL, key -> key.contains("/data/"));
    Executor background = task -> new Thread(task, "early-check").start();
    EarlyFileChecks early = new EarlyFileChecks(stores, background, 4);
    early.start(table, () -> append);
    assertThat(hold.awaitHeld(Duration.ofSeconds(10))).isTrue();

    CompletableFuture<Boolean> lane = CompletableFuture.supplyAsync(() -> early.passed(asTheLaneSeesIt(append, 5)));
    Thread.sleep(200);
    assertThat(lane).as("waits for the read in flight").isNotDone();
    hold.release();
    assertThat(lane.get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(store.calls(Call.GET_TAIL)).isEqualTo(1);
  }

  @Test
  void pastItsSlotsATableChecksNothingEarly() {
    List<Runnable> queued = new ArrayList<>();
    EarlyFileChecks early = new EarlyFileChecks(stores, queued::add, 1);
    early.start(table, () -> append);
    early.start(table, () -> append);
    assertThat(queued).hasSize(1);
    queued.forEach(Runnable::run);
    early.start(table, () -> append); // the slot is free again
    assertThat(queued).hasSize(2);
  }

  @Test
  void onlyTheFragmentsATransactionAddsAreCheckedEarly() {
    EarlyFileChecks early = new EarlyFileChecks(stores, Runnable::run, 4);
    early.start(table, () -> TransactionFactory.updateConfig(1, java.util.Map.of("k", "v"), List.of()));
    early.start(table, () -> {
      throw new IllegalArgumentException("not a transaction"); // the lane answers 400 for it
    });
    assertThat(store.calls(Call.GET_TAIL)).isZero();
  }
}
