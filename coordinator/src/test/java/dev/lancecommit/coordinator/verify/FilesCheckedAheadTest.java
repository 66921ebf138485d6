package dev.lancecommit.coordinator.verify;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.coordinator.storage.LocalObjectStore;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.DeletionFile;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.FaultInjectingObjectStore;
import dev.lancecommit.testing.FaultInjectingObjectStore.Call;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A commit's files checked while it waits: what its version then skips, what it still checks, and that the lane
 * never waits for a check nobody started.
 */
class FilesCheckedAheadTest {
  @TempDir Path root;
  private FaultInjectingObjectStore store;
  private StorageLocation table;
  private ExecutorService pool;
  private FileVerifier verifier;

  @BeforeEach
  void setUp() {
    store = new FaultInjectingObjectStore(new LocalObjectStore(root));
    table = new StorageLocation(store, "wh/t.lance");
    pool = Executors.newFixedThreadPool(4);
    verifier = new FileVerifier(uri -> {
      throw new IllegalArgumentException("no base paths here: " + uri);
    }, pool, 4);
  }

  @AfterEach
  void tearDown() throws Exception {
    pool.shutdownNow();
    pool.awaitTermination(5, TimeUnit.SECONDS);
  }

  @Test
  void aFileFoundRightIsNotAskedForAgainByTheVersionThatAddsIt() {
    store.put(table.key("data/a.lance"), new byte[10]);
    Transaction append = append(fragment(0, file("a.lance", 10)));
    FilesCheckedAhead.Found found = FilesCheckedAhead.start(verifier, table, () -> append, Runnable::run).claim();
    assertThat(store.calls(Call.HEAD)).isEqualTo(1);

    // the version gives the fragment its id; the file is the same reference
    TableState previous = new TableState(Manifest.getDefaultInstance(), List.of());
    TableState next = new TableState(Manifest.newBuilder().addFragments(fragment(7, file("a.lance", 10))).build(),
        List.of());
    assertThat(verifier.checkAdded(table, previous, next, found)).isEmpty();
    assertThat(store.calls(Call.HEAD)).isEqualTo(1);

    // what was found is what the version skips: without it the same version asks again and sees the file is gone
    store.delegate().delete(table.key("data/a.lance"));
    assertThat(verifier.checkAdded(table, previous, next, found)).isEmpty();
    assertThat(verifier.checkAdded(table, previous, next)).singleElement()
        .satisfies(p -> assertThat(p.reason()).isEqualTo("is not there"));
  }

  @Test
  void aFileFoundWrongOrNotFoundIsCheckedAgainByItsVersion() {
    Transaction append = append(fragment(0, file("late.lance", 10)), fragment(0, file("short.lance", 99)));
    store.put(table.key("data/short.lance"), new byte[10]);
    FilesCheckedAhead.Found found = FilesCheckedAhead.start(verifier, table, () -> append, Runnable::run).claim();
    store.put(table.key("data/late.lance"), new byte[10]); // written after the check ahead looked

    TableState next = new TableState(Manifest.newBuilder().addFragments(fragment(1, file("late.lance", 10)))
        .addFragments(fragment(2, file("short.lance", 99))).build(), List.of());
    int heads = store.calls(Call.HEAD);
    assertThat(verifier.checkAdded(table, null, next, found)).singleElement().satisfies(p -> {
      assertThat(p.what()).isEqualTo("data file short.lance of fragment 2");
      assertThat(p.reason()).isEqualTo("has 10 bytes, but the version states 99");
    });
    assertThat(store.calls(Call.HEAD) - heads).isEqualTo(2);
  }

  @Test
  void aCheckNotStartedWhenTheLaneClaimsItNeverStarts() {
    store.put(table.key("data/a.lance"), new byte[10]);
    List<Runnable> parked = new ArrayList<>();
    FilesCheckedAhead ahead = FilesCheckedAhead.start(verifier, table,
        () -> append(fragment(0, file("a.lance", 10))), parked::add);
    FilesCheckedAhead.Found found = ahead.claim();
    assertThat(found.isEmpty()).isTrue();
    parked.forEach(Runnable::run); // the thread comes at last: nothing is asked
    assertThat(store.calls(Call.HEAD)).isZero();
    assertThat(ahead.claim()).isSameAs(found);
  }

  @Test
  void aCheckUnderWayIsWaitedFor() throws Exception {
    store.put(table.key("data/a.lance"), new byte[10]);
    FaultInjectingObjectStore.Hold head = store.holdNext(Call.HEAD, table.key("data/a.lance")::equals);
    FilesCheckedAhead ahead = FilesCheckedAhead.start(verifier, table,
        () -> append(fragment(0, file("a.lance", 10))), pool);
    assertThat(head.awaitHeld(Duration.ofSeconds(20))).isTrue();
    CompletableFuture<FilesCheckedAhead.Found> claimed = CompletableFuture.supplyAsync(ahead::claim, pool);
    Thread.sleep(200);
    assertThat(claimed).isNotDone();
    head.release();
    FilesCheckedAhead.Found found = claimed.get(20, TimeUnit.SECONDS);
    TableState next = new TableState(Manifest.newBuilder().addFragments(fragment(3, file("a.lance", 10))).build(),
        List.of());
    assertThat(verifier.checkAdded(table, null, next, found)).isEmpty();
    assertThat(store.calls(Call.HEAD)).isEqualTo(1);
  }

  @Test
  void aBusyPoolOrATransactionThatDoesNotDecodeLeavesEveryFileToTheVersion() {
    FilesCheckedAhead refused = FilesCheckedAhead.start(verifier, table,
        () -> append(fragment(0, file("a.lance", 10))), task -> {
          throw new RejectedExecutionException("all busy");
        });
    assertThat(refused.claim().isEmpty()).isTrue();
    FilesCheckedAhead undecodable = FilesCheckedAhead.start(verifier, table, () -> {
      throw new IllegalArgumentException("not a transaction");
    }, Runnable::run);
    assertThat(undecodable.claim().isEmpty()).isTrue();
    assertThat(store.calls(Call.HEAD)).isZero();
  }

  @Test
  void ofAFragmentThatLosesRowsOnlyTheNewDeletionFileIsChecked() {
    DeletionFile deletions = DeletionFile.newBuilder().setFileType(DeletionFile.DeletionFileType.BITMAP)
        .setReadVersion(3).setId(9).setNumDeletedRows(1).build();
    DataFragment updated = fragment(4, file("old.lance", 10)).toBuilder().setDeletionFile(deletions).build();
    DataFragment added = fragment(0, file("new.lance", 10));
    Transaction update = Transaction.newBuilder().setReadVersion(3).setUuid("u")
        .setUpdate(Transaction.Update.newBuilder().addUpdatedFragments(updated).addNewFragments(added)).build();
    List<DataFragment> named = FilesCheckedAhead.fragmentsNamed(update);
    assertThat(named).hasSize(2);
    assertThat(named.get(0).getFilesCount()).isZero();
    assertThat(named.get(0).getDeletionFile()).isEqualTo(deletions);
    assertThat(named.get(0).getId()).isEqualTo(4);
    assertThat(named.get(1)).isEqualTo(added);
    Transaction config = Transaction.newBuilder().setReadVersion(3).setUuid("c")
        .setUpdateConfig(Transaction.UpdateConfig.getDefaultInstance()).build();
    assertThat(FilesCheckedAhead.fragmentsNamed(config)).isEmpty();
  }

  private static Transaction append(DataFragment... fragments) {
    return Transaction.newBuilder().setReadVersion(1).setUuid("a")
        .setAppend(Transaction.Append.newBuilder().addAllFragments(List.of(fragments))).build();
  }

  private static DataFragment fragment(long id, DataFile file) {
    return DataFragment.newBuilder().setId(id).setPhysicalRows(1).addFiles(file).build();
  }

  /** A legacy (0.1) data file: checked for presence and size only, so test bytes will do. */
  private static DataFile file(String path, long size) {
    return DataFile.newBuilder().setPath(path).addFields(0).setFileSizeBytes(size).build();
  }
}
