package dev.lancecommit.coordinator.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.coordinator.storage.LocalObjectStore;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.storage.StoreException;
import dev.lancecommit.format.CorruptManifestException;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.TransactionFiles;
import dev.lancecommit.format.WriterVersions;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.CommitContext;
import dev.lancecommit.rules.ManifestBuilder;
import dev.lancecommit.rules.conflict.CommittedTransaction;
import dev.lancecommit.testing.FaultInjectingObjectStore;
import dev.lancecommit.testing.FaultInjectingObjectStore.Call;
import dev.lancecommit.testing.FaultInjectingObjectStore.When;
import dev.lancecommit.testing.HandMadeTransactions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The table seam on a local store: state, commit(base, next), versions, transactions and auxiliary files. */
class TableOperationsTest {
  private static final String TABLE_KEY = "ns/t.lance";

  @TempDir Path root;
  private FaultInjectingObjectStore store;
  private StorageLocation table;
  private TableOperations ops;
  private final HandMadeTransactions transactions = new HandMadeTransactions();

  @BeforeEach
  void setUp() {
    store = new FaultInjectingObjectStore(new LocalObjectStore(root));
    table = new StorageLocation(store, TABLE_KEY);
    ops = TableOperations.of(table, new TableOperations.Options("ns$t", 4, 3, ManifestNaming.Scheme.V2));
  }

  @Test
  void aTableWithoutVersionsIsAnEmptySnapshotInTheNewTableScheme() {
    TableSnapshot empty = ops.current();
    assertThat(empty.latest()).isNull();
    assertThat(empty.latestVersion()).isZero();
    assertThat(empty.firstVersion()).isZero();
    assertThat(empty.scheme()).isEqualTo(ManifestNaming.Scheme.V2);
    assertThat(ops.versions().isEmpty()).isTrue();
  }

  @Test
  void aLandedCommitIsTheNewCurrentStateWithItsTxnAndVersionHint() throws Exception {
    Transaction create = transactions.create();
    TableSnapshot base = ops.current();
    CommitOutcome outcome = ops.commit(base, next(base, create));

    assertThat(outcome).isInstanceOf(CommitOutcome.Landed.class);
    TableSnapshot landed = ((CommitOutcome.Landed) outcome).snapshot();
    assertThat(ops.current()).isSameAs(landed);
    assertThat(landed.latestVersion()).isEqualTo(1);
    assertThat(landed.firstVersion()).isEqualTo(1);
    assertThat(ops.versions().versions()).containsExactly(1L);
    Path tableDir = root.resolve(TABLE_KEY);
    assertThat(tableDir.resolve(TransactionFiles.path(create))).exists();
    assertThat(Files.readString(tableDir.resolve("_versions/latest_version_hint.json"), StandardCharsets.UTF_8))
        .isEqualTo("{\"version\":1}");
    ManifestFile written = ops.readVersion(1).orElseThrow();
    assertThat(ops.transactionOf(written)).isEqualTo(create);

    Transaction append = transactions.append(1);
    TableSnapshot second = ((CommitOutcome.Landed) ops.commit(landed, next(landed, append))).snapshot();
    assertThat(ops.committedSince(second, 0)).extracting(CommittedTransaction::version).containsExactly(1L, 2L);
    assertThat(ops.madeBy(second, 2, append.getUuid())).isTrue();
    assertThat(ops.madeBy(second, 2, create.getUuid())).isFalse();
    assertThat(landed.latestVersion()).as("a snapshot never changes").isEqualTo(1);
  }

  @Test
  void aBaseThatIsNotCurrentIsRefusedBeforeAnythingIsWritten() {
    TableSnapshot base = ops.current();
    ops.commit(base, next(base, transactions.create()));
    assertThatThrownBy(() -> ops.commit(base, next(base, transactions.create())))
        .isInstanceOf(IllegalStateException.class);
    assertThat(ops.versions().versions()).containsExactly(1L);
  }

  @Test
  void aVersionAnotherWriterHoldsIsTakenAndTheNextCurrentListsAgain() {
    TableSnapshot base = ops.current();
    base = ((CommitOutcome.Landed) ops.commit(base, next(base, transactions.create()))).snapshot();
    // a writer bypassing this seam creates version 2
    Transaction theirs = transactions.append(1);
    NextVersion around = next(base, theirs);
    store.delegate().putIfAbsent(table.key(ManifestNaming.path(ManifestNaming.Scheme.V2, 2)),
        new ManifestFile(around.state().manifest(), around.state().indices(), Optional.of(theirs)).encode());

    CommitOutcome outcome = ops.commit(base, next(base, transactions.append(1)));

    assertThat(outcome).isEqualTo(new CommitOutcome.Taken(2));
    TableSnapshot refreshed = ops.current();
    assertThat(refreshed).isNotSameAs(base);
    assertThat(refreshed.latestVersion()).isEqualTo(2);
    assertThat(ops.madeBy(refreshed, 2, theirs.getUuid())).isTrue();
  }

  @Test
  void aLostAnswerToTheManifestWriteIsSettledByReadingItBack() {
    TableSnapshot base = ops.current();
    store.failNext(Call.PUT_IF_ABSENT, 1, When.AFTER, key -> key.contains("/_versions/"),
        FaultInjectingObjectStore.outcomeUnknown());
    CommitOutcome outcome = ops.commit(base, next(base, transactions.create()));
    assertThat(outcome).isInstanceOf(CommitOutcome.Landed.class);
    assertThat(ops.versions().versions()).containsExactly(1L);
  }

  @Test
  void anOutcomeThatCannotBeSettledIsStateUnknownAndTheStateIsNotTrustedAfterwards() {
    TableSnapshot base = ops.current();
    store.failNext(Call.PUT_IF_ABSENT, 3, When.BEFORE, key -> key.contains("/_versions/"),
        FaultInjectingObjectStore.outcomeUnknown());
    store.failNext(Call.GET, 3, When.BEFORE, FaultInjectingObjectStore.unavailable());
    assertThatThrownBy(() -> ops.commit(base, next(base, transactions.create())))
        .isInstanceOf(CommitStateUnknownException.class)
        .hasMessageContaining("ns$t");
    assertThat(ops.current()).isNotSameAs(base);
  }

  @Test
  void theTransactionOfAVersionIsInlineElseItsTxnFileAndOtherwiseSaysWhyNot() throws Exception {
    Transaction txn = transactions.create();
    TableState state = ManifestBuilder.build(null, txn, CommitContext.of(1, Instant.now(),
        TransactionFiles.fileName(txn), WriterVersions.coordinator()));
    ManifestFile inline = new ManifestFile(state.manifest(), state.indices(), Optional.of(txn));
    ManifestFile byFile = new ManifestFile(state.manifest(), state.indices(), Optional.empty());

    assertThat(ops.lookupTransaction(inline).source()).isEqualTo(VersionTransaction.Source.INLINE);
    VersionTransaction missing = ops.lookupTransaction(byFile);
    assertThat(missing.source()).isEqualTo(VersionTransaction.Source.MISSING_FILE);
    assertThatThrownBy(() -> ops.transactionOf(byFile)).isInstanceOf(StoreException.class)
        .hasMessageContaining("is missing");

    Path txnFile = root.resolve(TABLE_KEY).resolve(TransactionFiles.path(txn));
    Files.createDirectories(txnFile.getParent());
    Files.write(txnFile, TransactionFiles.encode(txn));
    assertThat(ops.lookupTransaction(byFile).source()).isEqualTo(VersionTransaction.Source.FILE);
    assertThat(ops.transactionOf(byFile)).isEqualTo(txn);

    Files.write(txnFile, new byte[] {1, 2, 3});
    assertThat(ops.lookupTransaction(byFile).source()).isEqualTo(VersionTransaction.Source.UNREADABLE_FILE);
    assertThatThrownBy(() -> ops.transactionOf(byFile)).isInstanceOf(CorruptManifestException.class);

    ManifestFile none = new ManifestFile(state.manifest().toBuilder().clearTransactionFile().build(),
        state.indices(), Optional.empty());
    assertThat(ops.lookupTransaction(none).source()).isEqualTo(VersionTransaction.Source.NO_TRANSACTION);
    assertThatThrownBy(() -> ops.transactionOf(none)).isInstanceOf(StoreException.class)
        .hasMessageContaining("has no transaction");

    ManifestFile elsewhere = new ManifestFile(state.manifest().toBuilder().setTransactionFile("../../x.txn").build(),
        state.indices(), Optional.empty());
    assertThat(ops.lookupTransaction(elsewhere).source())
        .isEqualTo(VersionTransaction.Source.INVALID_FILE_NAME);
  }

  @Test
  void auxiliaryFilesStayWhereTheyBelong() {
    ops.writeDeletionFiles(Map.of("_deletions/0-1-2.bin", new byte[] {7}));
    assertThat(ops.readDeletionFile("_deletions/0-1-2.bin")).hasValueSatisfying(b -> assertThat(b).containsExactly(7));
    assertThatThrownBy(() -> ops.writeDeletionFiles(Map.of("_versions/1.manifest", new byte[] {1})))
        .isInstanceOf(IllegalArgumentException.class);

    String finalName = ManifestNaming.fileName(ManifestNaming.Scheme.V2, 1);
    assertThatThrownBy(() -> ops.deleteStagedManifest(finalName)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ops.readStagedManifest("../" + finalName + "-x"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(ops.readStagedManifest(finalName + "-abc")).isEmpty();
  }

  @Test
  void theListingFollowsLanceNamingAndRefusesMixedSchemesOnlyWhenTheSchemeIsAsked() throws Exception {
    Path versions = Files.createDirectories(root.resolve(TABLE_KEY).resolve("_versions"));
    for (String name : List.of(ManifestNaming.fileName(ManifestNaming.Scheme.V2, 3),
        ManifestNaming.fileName(ManifestNaming.Scheme.V2, 5), "latest_version_hint.json",
        ManifestNaming.fileName(ManifestNaming.Scheme.V2, 6) + "-staged", "d9223372036854775850.manifest")) {
      Files.write(versions.resolve(name), new byte[] {1});
    }
    TableVersions listing = ops.versions();
    assertThat(listing.versions()).containsExactly(3L, 5L);
    assertThat(listing.first()).hasValue(3);
    assertThat(listing.latest()).hasValue(5);
    assertThat(listing.contains(5)).isTrue();
    assertThat(listing.contains(4)).isFalse();
    assertThat(listing.scheme()).hasValue(ManifestNaming.Scheme.V2);

    Files.write(versions.resolve("4.manifest"), new byte[] {1});
    TableVersions mixed = ops.versions();
    assertThat(mixed.versions()).containsExactly(3L, 4L, 5L);
    assertThatThrownBy(mixed::scheme).isInstanceOf(CorruptManifestException.class);
  }

  @Test
  void aTransactionFileItsWriterWroteIsReadOnceNotCreatedAgainAndNeverOverwritten() throws Exception {
    landed(ops.current(), transactions.create());
    Transaction append = transactions.append(1);
    Path txnFile = root.resolve(TABLE_KEY).resolve(TransactionFiles.path(append));
    Files.createDirectories(txnFile.getParent());
    Files.write(txnFile, TransactionFiles.encode(append)); // as Lance writes it before staging its manifest
    int gets = store.calls(Call.GET);
    int creates = store.calls(Call.PUT_IF_ABSENT);

    ops.stageTransactionWrittenByWriter(append);

    assertThat(store.calls(Call.GET) - gets).as("one read").isEqualTo(1);
    assertThat(store.calls(Call.PUT_IF_ABSENT) - creates).as("no create").isZero();
    assertThat(Files.readAllBytes(txnFile)).isEqualTo(TransactionFiles.encode(append));

    // a writer that said so but did not write it: the file is created
    Transaction unwritten = transactions.append(1);
    ops.stageTransactionWrittenByWriter(unwritten);
    assertThat(Files.readAllBytes(root.resolve(TABLE_KEY).resolve(TransactionFiles.path(unwritten))))
        .isEqualTo(TransactionFiles.encode(unwritten));

    // another transaction under the same uuid and read version is refused, the file left as it was
    Transaction impostor = append.toBuilder().putTransactionProperties("who", "impostor").build();
    assertThatThrownBy(() -> ops.stageTransactionWrittenByWriter(impostor))
        .isInstanceOf(dev.lancecommit.rules.conflict.CommitConflictException.class)
        .hasMessageContaining("uuid");
    assertThat(Files.readAllBytes(txnFile)).isEqualTo(TransactionFiles.encode(append));

    // a read that fails is settled by the create, which finds the file and compares it, as without the read
    store.failNext(Call.GET, 1, When.BEFORE, key -> key.contains("/_transactions/"),
        FaultInjectingObjectStore.unavailable());
    ops.stageTransactionWrittenByWriter(append);
    assertThatThrownBy(() -> {
      store.failNext(Call.GET, 1, When.BEFORE, key -> key.contains("/_transactions/"),
          FaultInjectingObjectStore.unavailable());
      ops.stageTransactionWrittenByWriter(impostor);
    }).isInstanceOf(dev.lancecommit.rules.conflict.CommitConflictException.class);
    assertThat(Files.readAllBytes(txnFile)).isEqualTo(TransactionFiles.encode(append));
  }

  @Test
  void stagingNeverOverwritesAFileOfAnotherTransactionAndKeepsOneOfItsOwn() throws Exception {
    TableSnapshot base = landed(ops.current(), transactions.create());
    Transaction append = transactions.append(1);
    Path txnFile = root.resolve(TABLE_KEY).resolve(TransactionFiles.path(append));
    // an earlier attempt of the same transaction left its .txn: staging again keeps it
    ops.stage(base, next(base, append), Map.of());
    byte[] first = Files.readAllBytes(txnFile);
    StagedVersion staged = ops.stage(base, next(base, append), Map.of());
    assertThat(Files.readAllBytes(txnFile)).isEqualTo(first);

    // another transaction under the same uuid and read version is refused, and the file is left as it was
    Transaction impostor = append.toBuilder().putTransactionProperties("who", "impostor").build();
    assertThatThrownBy(() -> ops.stage(base, next(base, impostor), Map.of()))
        .isInstanceOf(dev.lancecommit.rules.conflict.CommitConflictException.class)
        .hasMessageContaining("uuid");
    assertThat(Files.readAllBytes(txnFile)).isEqualTo(first);

    // the same goes for the deletion files a rebase writes; a lost answer to the create is settled by comparing
    Map<String, byte[]> deletions = Map.of("_deletions/0-1-7.bin", new byte[] {1, 2, 3});
    store.failNext(Call.PUT_IF_ABSENT, 1, When.AFTER, key -> key.contains("/_deletions/"),
        FaultInjectingObjectStore.outcomeUnknown());
    ops.stage(base, next(base, append), deletions);
    assertThat(ops.readDeletionFile("_deletions/0-1-7.bin")).hasValueSatisfying(b ->
        assertThat(b).containsExactly(1, 2, 3));
    assertThatThrownBy(() -> ops.stage(base, next(base, append), Map.of("_deletions/0-1-7.bin", new byte[] {9})))
        .isInstanceOf(dev.lancecommit.rules.conflict.CommitConflictException.class);
    assertThat(ops.commit(staged)).isInstanceOf(CommitOutcome.Landed.class);
  }

  @Test
  void aVersionIsStagedOnTopOfOneStillBeingWrittenAndCommittedOnceThatLands() {
    TableSnapshot base = landed(ops.current(), transactions.create());
    StagedVersion v2 = ops.stage(base, next(base, transactions.append(1)), Map.of());
    TableSnapshot speculative = v2.after();
    assertThat(speculative.latestVersion()).isEqualTo(2);
    assertThat(ops.isCurrent(speculative)).as("not before version 2 lands").isFalse();
    StagedVersion v3 = ops.stage(speculative, next(speculative, transactions.append(2)), Map.of());
    assertThatThrownBy(() -> ops.commit(v3)).isInstanceOf(IllegalStateException.class);
    // the speculative state knows version 2's transaction for the conflict check of version 3 already
    assertThat(ops.committedSince(speculative, 1)).extracting(CommittedTransaction::version).containsExactly(2L);

    assertThat(ops.commit(v2)).isInstanceOf(CommitOutcome.Landed.class);
    assertThat(ops.isCurrent(speculative)).isTrue();
    assertThat(ops.commit(v3)).isInstanceOf(CommitOutcome.Landed.class);
    assertThat(ops.versions().versions()).containsExactly(1L, 2L, 3L);
    assertThat(ops.current().latestVersion()).isEqualTo(3);
  }

  /**
   * On a local disk staging writes the manifest under a temporary name while the version before is in flight: the
   * commit only links it. A version whose base was taken is discarded and leaves no temporary file.
   */
  @Test
  void onALocalDiskAStagedManifestIsWrittenAheadAndOnlyLinkedByTheCommit() throws Exception {
    TableOperations local = TableOperations.of(new StorageLocation(new LocalObjectStore(root), "wh/local.lance"),
        new TableOperations.Options("ns$local", 4, 3, ManifestNaming.Scheme.V2));
    TableSnapshot base = ((CommitOutcome.Landed) local.commit(local.current(),
        next(local.current(), transactions.create()))).snapshot();
    StagedVersion v2 = local.stage(base, next(base, transactions.append(1)), Map.of());
    StagedVersion v3 = local.stage(v2.after(), next(v2.after(), transactions.append(2)), Map.of());
    java.nio.file.Path versions = root.resolve("wh/local.lance/_versions");
    assertThat(temporaryFiles(versions)).hasSize(2);
    assertThatThrownBy(() -> local.commit(v3)).isInstanceOf(IllegalStateException.class);

    assertThat(local.commit(v2)).isInstanceOf(CommitOutcome.Landed.class);
    assertThat(local.commit(v3)).isInstanceOf(CommitOutcome.Landed.class);
    assertThat(local.versions().versions()).containsExactly(1L, 2L, 3L);
    assertThat(temporaryFiles(versions)).isEmpty();

    // version 4 staged, then taken by another writer: its commit says so; the one staged on top is discarded
    TableSnapshot at3 = local.current();
    StagedVersion v4 = local.stage(at3, next(at3, transactions.append(3)), Map.of());
    StagedVersion v5 = local.stage(v4.after(), next(v4.after(), transactions.append(4)), Map.of());
    Transaction other = transactions.append(3);
    new LocalObjectStore(root).putIfAbsent("wh/local.lance/" + ManifestNaming.path(ManifestNaming.Scheme.V2, 4),
        next(at3, other).manifestFile());
    assertThat(local.commit(v4)).isInstanceOf(CommitOutcome.Taken.class);
    v5.discard();
    assertThat(temporaryFiles(versions)).isEmpty();
  }

  /**
   * A version staged with its {@code .txn} beside the manifest writes nothing of it before the commit; the commit
   * writes it while it creates the manifest (here on a thread of its own) and returns once both are there. A version
   * that another writer took has its {@code .txn} removed again.
   */
  @Test
  void aTransactionFileWrittenBesideTheManifestIsThereWhenTheCommitReturnsAndGoneWhenTheVersionIsTaken()
      throws Exception {
    java.util.concurrent.ExecutorService writer = java.util.concurrent.Executors.newSingleThreadExecutor();
    try {
      TableSnapshot base = landed(ops.current(), transactions.create());
      Transaction append = transactions.append(1);
      StagedVersion v2 = ops.stagedWithTransactionBeside(base, next(base, append), null, writer);
      assertThat(store.delegate().head(txnKey(append))).as("nothing written before the commit").isEmpty();
      assertThat(ops.commit(v2)).isInstanceOf(CommitOutcome.Landed.class);
      assertThat(store.delegate().get(txnKey(append))).hasValueSatisfying(
          bytes -> assertThat(TransactionFiles.decode(bytes)).isEqualTo(append));

      TableSnapshot at2 = ops.current();
      Transaction lost = transactions.append(2);
      StagedVersion v3 = ops.stagedWithTransactionBeside(at2, next(at2, lost), null, writer);
      Transaction theirs = transactions.append(2);
      store.delegate().putIfAbsent(table.key(ManifestNaming.path(ManifestNaming.Scheme.V2, 3)),
          next(at2, theirs).manifestFile());
      assertThat(ops.commit(v3)).isEqualTo(new CommitOutcome.Taken(3));
      assertThat(store.delegate().head(txnKey(lost))).isEmpty();
    } finally {
      writer.shutdownNow();
    }
  }

  /**
   * A {@code .txn} that cannot be written beside a manifest that landed is written again; if that fails too, the
   * version stands (it landed) with the copy its manifest carries, which is what readers read first, and the table's
   * next first load (a restart, a new owner) writes the file from that copy.
   */
  @Test
  void aTransactionFileThatFailsBesideALandedManifestIsWrittenAgainAndTheVersionStandsEitherWay() {
    java.util.List<Runnable> parked = new java.util.ArrayList<>(); // no thread takes it: the commit writes it itself
    TableSnapshot base = landed(ops.current(), transactions.create());
    Transaction append = transactions.append(1);
    store.failNext(Call.PUT_IF_ABSENT, 1, When.BEFORE, key -> key.contains("/_transactions/"),
        FaultInjectingObjectStore.unavailable());
    assertThat(ops.commit(ops.stagedWithTransactionBeside(base, next(base, append), null, parked::add)))
        .isInstanceOf(CommitOutcome.Landed.class);
    assertThat(store.delegate().head(txnKey(append))).isPresent();

    TableSnapshot at2 = ops.current();
    Transaction second = transactions.append(2);
    store.failNext(Call.PUT_IF_ABSENT, 2, When.BEFORE, key -> key.contains("/_transactions/"),
        FaultInjectingObjectStore.unavailable());
    assertThat(ops.commit(ops.stagedWithTransactionBeside(at2, next(at2, second), null, parked::add)))
        .isInstanceOf(CommitOutcome.Landed.class);
    assertThat(store.delegate().head(txnKey(second))).isEmpty();
    TableOperations reader = TableOperations.of(table, new TableOperations.Options("ns$t", 4, 3,
        ManifestNaming.Scheme.V2));
    parked.forEach(Runnable::run); // the parked tasks find the work taken and do nothing
    assertThat(store.delegate().head(txnKey(second))).isEmpty();
    assertThat(reader.transactionAt(reader.current(), 3)).as("read from the manifest's inline copy").contains(second);
    assertThat(store.delegate().get(txnKey(second))).as("written again by the reader's first load")
        .hasValueSatisfying(bytes -> assertThat(TransactionFiles.decode(bytes)).isEqualTo(second));
  }

  /** A transaction file that failed twice is owed, and written by the first call that finds the store working. */
  @Test
  void aTransactionFileThatFailedTwiceIsOwedUntilItIsWritten() {
    TableSnapshot base = landed(ops.current(), transactions.create());
    assertThat(ops.owesTransactionFiles()).isFalse();
    Transaction append = transactions.append(1);
    store.failNext(Call.PUT_IF_ABSENT, 2, When.BEFORE, key -> key.contains("/_transactions/"),
        FaultInjectingObjectStore.unavailable());
    assertThat(ops.commit(ops.stagedWithTransactionBeside(base, next(base, append), null, Runnable::run)))
        .isInstanceOf(CommitOutcome.Landed.class);
    assertThat(store.delegate().head(txnKey(append))).isEmpty();
    assertThat(ops.owesTransactionFiles()).isTrue();

    store.failNext(Call.PUT_IF_ABSENT, 1, When.BEFORE, key -> key.contains("/_transactions/"),
        FaultInjectingObjectStore.unavailable());
    assertThat(ops.writeOwedTransactionFiles()).as("the store still fails: still owed").isEqualTo(1);
    assertThat(store.delegate().head(txnKey(append))).isEmpty();

    assertThat(ops.writeOwedTransactionFiles()).isZero();
    assertThat(ops.owesTransactionFiles()).isFalse();
    assertThat(store.delegate().get(txnKey(append)))
        .hasValueSatisfying(bytes -> assertThat(TransactionFiles.decode(bytes)).isEqualTo(append));
  }

  private String txnKey(Transaction txn) {
    return table.key(TransactionFiles.path(txn));
  }

  /** A manifest staged by a coordinator that stopped before linking it is removed when the table is next loaded. */
  @Test
  void aStagedManifestAbandonedLongAgoIsRemovedWhenTheTableIsLoaded() throws Exception {
    LocalObjectStore disk = new LocalObjectStore(root);
    TableOperations first = TableOperations.of(new StorageLocation(disk, "wh/kept.lance"),
        new TableOperations.Options("ns$kept", 4, 3, ManifestNaming.Scheme.V2));
    TableSnapshot base = ((CommitOutcome.Landed) first.commit(first.current(),
        next(first.current(), transactions.create()))).snapshot();
    first.stage(base, next(base, transactions.append(1)), Map.of()); // then the process stops
    java.nio.file.Path versions = root.resolve("wh/kept.lance/_versions");
    List<String> left = temporaryFiles(versions);
    assertThat(left).hasSize(1);

    TableOperations fresh = TableOperations.of(new StorageLocation(disk, "wh/kept.lance"),
        new TableOperations.Options("ns$kept", 4, 3, ManifestNaming.Scheme.V2));
    assertThat(fresh.current().latestVersion()).isEqualTo(1);
    assertThat(temporaryFiles(versions)).as("staged a moment ago: maybe still being written").hasSize(1);

    java.nio.file.Files.setLastModifiedTime(versions.resolve(left.get(0)), java.nio.file.attribute.FileTime.from(
        Instant.now().minus(TableOperations.ABANDONED_STAGING).minusSeconds(60)));
    TableOperations later = TableOperations.of(new StorageLocation(disk, "wh/kept.lance"),
        new TableOperations.Options("ns$kept", 4, 3, ManifestNaming.Scheme.V2));
    assertThat(later.current().latestVersion()).isEqualTo(1);
    assertThat(temporaryFiles(versions)).isEmpty();
  }

  private static List<String> temporaryFiles(java.nio.file.Path dir) throws java.io.IOException {
    try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.list(dir)) {
      return files.map(p -> p.getFileName().toString())
          .filter(name -> name.startsWith(dev.lancecommit.coordinator.storage.ObjectKeys.RESERVED_SEGMENT_PREFIX))
          .toList();
    }
  }

  private TableSnapshot landed(TableSnapshot base, Transaction txn) {
    return ((CommitOutcome.Landed) ops.commit(base, next(base, txn))).snapshot();
  }

  private static NextVersion next(TableSnapshot base, Transaction txn) {
    long version = base.latestVersion() + 1;
    TableState state = ManifestBuilder.build(base.latest(), txn, CommitContext.of(version, Instant.now(),
        TransactionFiles.fileName(txn), WriterVersions.coordinator()));
    return NextVersion.of(version, base.scheme(), state, txn);
  }
}
