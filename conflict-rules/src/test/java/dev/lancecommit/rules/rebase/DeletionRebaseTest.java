package dev.lancecommit.rules.rebase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.deletion.CorruptDeletionFileException;
import dev.lancecommit.format.deletion.DeletionVectors;
import dev.lancecommit.format.deletion.NewDeletionFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.DeletionFile.DeletionFileType;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.InvalidTransactionException;
import dev.lancecommit.rules.OperationKind;
import dev.lancecommit.rules.conflict.CommitConflictException;
import dev.lancecommit.rules.conflict.ConflictOutcome;
import dev.lancecommit.rules.conflict.ConflictOutcome.Kind;
import dev.lancecommit.rules.conflict.ConflictResolver;
import dev.lancecommit.rules.conflict.RebaseInputs;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

/**
 * Rebasing Deletes and Updates over concurrent Deletes and Updates of the same fragments, end to end in pure code:
 * writers build their transactions from the same read version, the conflict check decides, the rebase merges the
 * deletion vectors and the next manifest is built from the rebased transaction.
 */
class DeletionRebaseTest {

  private static RebaseInputs inputs(MemoryTable table, MemoryTable.Write write) {
    return RebaseInputs.builder()
        .affectedRows(write.affectedRows())
        .initialFragments(table.version(write.txn().getReadVersion()).manifest().getFragmentsList())
        .build();
  }

  private static ConflictOutcome check(MemoryTable table, MemoryTable.Write ours) {
    return ConflictResolver.checkAll(ours.txn(), table.since(ours.txn().getReadVersion()), inputs(table, ours));
  }

  private static RebasePlan rebase(MemoryTable table, MemoryTable.Write ours) {
    return DeletionRebase.rebase(ours.txn(), check(table, ours), inputs(table, ours), table.latest(),
        table::deletionVector);
  }

  private static List<Long> ids(TableState state) {
    return state.manifest().getFragmentsList().stream().map(DataFragment::getId).toList();
  }

  @Test
  void twoDeletesOfDifferentRowsInOneFragmentBothLand() {
    MemoryTable table = new MemoryTable(100, 50);
    MemoryTable.Write theirs = table.delete(1, 0, 5, 6);
    MemoryTable.Write ours = table.delete(1, 0, 1, 2);
    table.commit(theirs.txn());

    ConflictOutcome outcome = check(table, ours);
    assertThat(outcome.kind()).isEqualTo(Kind.REBASE);
    assertThat(outcome.rebaseFragments()).containsExactly(0L);

    ArrayDeque<Long> ids = new ArrayDeque<>(List.of(0L, 77L));
    RebasePlan plan = DeletionRebase.rebase(ours.txn(), outcome, inputs(table, ours), table.latest(),
        table::deletionVector, ids::removeFirst);

    assertThat(plan.readVersion()).isEqualTo(2);
    assertThat(plan.transaction().getUuid()).isEqualTo(ours.txn().getUuid());
    assertThat(plan.removedFragmentIds()).isEmpty();
    assertThat(plan.deletionFiles()).hasSize(1);
    NewDeletionFile file = plan.deletionFiles().get(0);
    assertThat(file.fragmentId()).isZero();
    assertThat(file.meta().getReadVersion()).isEqualTo(2);
    assertThat(file.meta().getId()).as("a zero id is drawn again").isEqualTo(77);
    assertThat(file.meta().getFileType()).isEqualTo(DeletionFileType.BITMAP);
    assertThat(file.meta().getNumDeletedRows()).isEqualTo(4);
    assertThat(file.relativePath()).isEqualTo("_deletions/0-2-77.bin");
    assertThat(plan.filesToWrite()).containsOnlyKeys("_deletions/0-2-77.bin");
    assertThat(DeletionVectors.read(file.meta(), plan.filesToWrite().get(file.relativePath())))
        .isEqualTo(RoaringBitmap.bitmapOf(1, 2, 5, 6));
    assertThat(table.reads()).as("only the latest deletion file of fragment 0 is read")
        .containsExactly(DeletionVectors.relativePath(0, table.fragment(2, 0).getDeletionFile()));

    Transaction.Delete delete = plan.transaction().getDelete();
    assertThat(delete.getUpdatedFragmentsCount()).isEqualTo(1);
    assertThat(delete.getUpdatedFragments(0)).isEqualTo(ours.txn().getDelete().getUpdatedFragments(0).toBuilder()
        .setDeletionFile(file.meta()).build());
    assertThat(delete.getDeletedFragmentIdsList()).isEmpty();
    assertThat(delete.getPredicate()).isEqualTo("test delete");

    // the rebased transaction is on the latest version, commits, and the table holds both deletes
    assertThat(ConflictResolver.checkAll(plan.transaction(), table.since(plan.readVersion()), inputs(table, ours))
        .kind()).isEqualTo(Kind.COMPATIBLE);
    TableState v3 = table.commit(plan);
    assertThat(table.deletionVector(table.fragment(3, 0))).isEqualTo(RoaringBitmap.bitmapOf(1, 2, 5, 6));
    assertThat(table.fragment(3, 1)).isEqualTo(table.fragment(1, 1));
    assertThat(ids(v3)).containsExactly(0L, 1L);
  }

  @Test
  void twoDeletesOfTheSameRowIsRetryableAndWritesNothing() {
    MemoryTable table = new MemoryTable(100);
    MemoryTable.Write theirs = table.delete(1, 0, 5, 6);
    MemoryTable.Write ours = table.delete(1, 0, 6, 7);
    table.commit(theirs.txn());
    ConflictOutcome outcome = check(table, ours);
    assertThat(outcome.kind()).isEqualTo(Kind.REBASE);

    assertThatThrownBy(() -> DeletionRebase.rebase(ours.txn(), outcome, inputs(table, ours), table.latest(),
        table::deletionVector))
        .isInstanceOfSatisfying(CommitConflictException.class, e -> {
          assertThat(e.retryable()).isTrue();
          assertThat(e.conflictingVersion()).isEqualTo(2);
          assertThat(e.conflictingOperation()).isEqualTo("Delete");
          assertThat(e.rule()).isEqualTo("du");
        })
        .hasMessageContaining("both modified rows at addresses [6]")
        .hasMessageContaining(ours.txn().getUuid())
        .hasMessageContaining("version 2");
  }

  @Test
  void theConflictMessageSamplesFiveAddressesAcrossFragments() {
    MemoryTable table = new MemoryTable(100, 100);
    MemoryTable.Write theirs = table.delete(1, 1, 1, 2, 3, 4, 5, 6, 7);
    table.commit(theirs.txn());
    Transaction.Builder ours = table.delete(1, 1, 1, 2, 3, 4, 5, 6, 7).txn().toBuilder();
    Roaring64NavigableMap affected = MemoryTable.addresses(1, 1, 2, 3, 4, 5, 6, 7);
    RebaseInputs inputs = RebaseInputs.builder().affectedRows(affected)
        .initialFragments(table.version(1).manifest().getFragmentsList()).build();
    ConflictOutcome outcome = ConflictResolver.checkAll(ours.build(), table.since(1), inputs);

    long base = 1L << 32;
    assertThatThrownBy(() -> DeletionRebase.rebase(ours.build(), outcome, inputs, table.latest(),
        table::deletionVector))
        .isInstanceOf(CommitConflictException.class)
        .hasMessageContaining("addresses [" + (base + 1) + ", " + (base + 2) + ", " + (base + 3) + ", "
            + (base + 4) + ", " + (base + 5) + "] (7 rows in all)");
  }

  @Test
  void anUpdateRebasesOverADeleteAndADeleteOverAnUpdate() {
    MemoryTable table = new MemoryTable(100);
    MemoryTable.Write theirs = table.delete(1, 0, 5);
    MemoryTable.Write ours = table.update(1, 0, 10, 11);
    table.commit(theirs.txn());

    RebasePlan plan = rebase(table, ours);
    Transaction.Update update = plan.transaction().getUpdate();
    assertThat(update.getNewFragmentsList()).isEqualTo(ours.txn().getUpdate().getNewFragmentsList());
    assertThat(update.getFieldsModifiedList()).containsExactly(0);
    assertThat(update.getUpdatedFragments(0).getDeletionFile()).isEqualTo(plan.deletionFiles().get(0).meta());
    TableState v3 = table.commit(plan);
    assertThat(ids(v3)).containsExactly(0L, 1L);
    assertThat(table.deletionVector(table.fragment(3, 0))).isEqualTo(RoaringBitmap.bitmapOf(5, 10, 11));

    // and a Delete from version 1 rebases over both
    MemoryTable.Write late = table.delete(1, 0, 20);
    RebasePlan latePlan = rebase(table, late);
    assertThat(latePlan.readVersion()).isEqualTo(3);
    table.commit(latePlan);
    assertThat(table.deletionVector(table.fragment(4, 0))).isEqualTo(RoaringBitmap.bitmapOf(5, 10, 11, 20));
  }

  @Test
  void rebasingOverSeveralVersionsMergesEveryFragmentTheyTouched() {
    MemoryTable table = new MemoryTable(100, 40);
    MemoryTable.Write ours = table.delete(1, 0, 1);
    Transaction both = ours.txn().toBuilder().setDelete(ours.txn().getDelete().toBuilder()
        .addUpdatedFragments(table.withDeletions(1, 1, 2))).build();
    Roaring64NavigableMap affected = MemoryTable.addresses(0, 1);
    affected.or(MemoryTable.addresses(1, 2));
    MemoryTable.Write oursBoth = new MemoryTable.Write(both, affected);

    table.commit(table.delete(1, 0, 5).txn());
    table.commit(table.delete(2, 0, 7).txn());
    table.commit(table.delete(3, 1, 3).txn());
    table.commit(TransactionFactory.reserve(4, 2));

    ConflictOutcome outcome = check(table, oursBoth);
    assertThat(outcome.kind()).isEqualTo(Kind.REBASE);
    assertThat(outcome.rebaseFragments()).containsExactly(0L, 1L);
    assertThat(outcome.theirVersion()).isEqualTo(5);
    RebasePlan plan = rebase(table, oursBoth);
    assertThat(plan.readVersion()).isEqualTo(5);
    assertThat(plan.deletionFiles()).extracting(NewDeletionFile::fragmentId).containsExactly(0L, 1L);
    table.commit(plan);
    assertThat(table.deletionVector(table.fragment(6, 0))).isEqualTo(RoaringBitmap.bitmapOf(1, 5, 7));
    assertThat(table.deletionVector(table.fragment(6, 1))).isEqualTo(RoaringBitmap.bitmapOf(2, 3));
  }

  @Test
  void aFragmentWhoseRowsAreAllDeletedMovesToTheDeletedIds() {
    MemoryTable table = new MemoryTable(100, 10);
    int[] first = {0, 1, 2, 3, 4, 5, 6};
    MemoryTable.Write theirs = table.delete(1, 1, first);
    MemoryTable.Write ours = table.delete(1, 1, 7, 8, 9);
    table.commit(theirs.txn());
    int filesBefore = table.fileCount();

    RebasePlan plan = rebase(table, ours);
    assertThat(plan.removedFragmentIds()).containsExactly(1L);
    assertThat(plan.deletionFiles()).isEmpty();
    assertThat(plan.transaction().getDelete().getUpdatedFragmentsList()).isEmpty();
    assertThat(plan.transaction().getDelete().getDeletedFragmentIdsList()).containsExactly(1L);
    TableState v3 = table.commit(plan);
    assertThat(ids(v3)).containsExactly(0L);
    assertThat(table.fileCount()).isEqualTo(filesBefore);
  }

  @Test
  void anUpdateWhoseFragmentEmptiesMovesItToTheRemovedIds() {
    MemoryTable table = new MemoryTable(3, 5);
    MemoryTable.Write theirs = table.delete(1, 0, 0);
    MemoryTable.Write ours = table.update(1, 0, 1, 2);
    table.commit(theirs.txn());

    RebasePlan plan = rebase(table, ours);
    assertThat(plan.transaction().getUpdate().getRemovedFragmentIdsList()).containsExactly(0L);
    assertThat(plan.transaction().getUpdate().getUpdatedFragmentsList()).isEmpty();
    TableState v3 = table.commit(plan);
    assertThat(ids(v3)).containsExactly(1L, 2L);
  }

  @Test
  void aFragmentOursRemovesWholeIsOnlyCheckedForSharedRows() {
    MemoryTable table = new MemoryTable(10, 10);
    MemoryTable.Write theirs = table.delete(1, 0, 3);
    table.commit(theirs.txn());
    Transaction ours = TransactionFactory.delete(1, List.of(table.withDeletions(1, 1, 4)), List.of(0L));

    RebaseInputs disjoint = RebaseInputs.builder().affectedRows(MemoryTable.addresses(1, 4))
        .initialFragments(table.version(1).manifest().getFragmentsList()).build();
    ConflictOutcome outcome = ConflictResolver.checkAll(ours, table.since(1), disjoint);
    assertThat(outcome.rebaseFragments()).containsExactly(0L);
    RebasePlan plan = DeletionRebase.rebase(ours, outcome, disjoint, table.latest(), table::deletionVector);
    assertThat(plan.deletionFiles()).isEmpty();
    assertThat(plan.transaction()).isEqualTo(ours.toBuilder().setReadVersion(2).build());
    assertThat(ids(table.commit(plan))).containsExactly(1L);

    Roaring64NavigableMap wholeFragment = MemoryTable.addresses(0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
    wholeFragment.or(MemoryTable.addresses(1, 4));
    RebaseInputs shared = disjoint.toBuilder().affectedRows(wholeFragment).build();
    assertThatThrownBy(() -> DeletionRebase.rebase(ours, outcome, shared, table.version(2), table::deletionVector))
        .isInstanceOf(CommitConflictException.class).hasMessageContaining("addresses [3]");
  }

  @Test
  void aCompatibleOutcomeOnlyMovesTheReadVersion() {
    MemoryTable table = new MemoryTable(100, 100);
    MemoryTable.Write theirs = table.delete(1, 0, 5);
    MemoryTable.Write ours = table.delete(1, 1, 5);
    table.commit(theirs.txn());
    ConflictOutcome outcome = check(table, ours);
    assertThat(outcome.kind()).isEqualTo(Kind.COMPATIBLE);

    RebasePlan plan = DeletionRebase.rebase(ours.txn(), outcome, inputs(table, ours), table.latest(),
        table::deletionVector);
    assertThat(plan.transaction()).isEqualTo(ours.txn().toBuilder().setReadVersion(2).build());
    assertThat(plan.deletionFiles()).isEmpty();
    assertThat(table.reads()).isEmpty();
  }

  @Test
  void withoutAffectedRowsTheResolverAndTheRebaseAnswerRetryable() {
    MemoryTable table = new MemoryTable(100);
    MemoryTable.Write theirs = table.delete(1, 0, 5);
    MemoryTable.Write ours = table.delete(1, 0, 6);
    table.commit(theirs.txn());
    RebaseInputs none = RebaseInputs.builder()
        .initialFragments(table.version(1).manifest().getFragmentsList()).build();
    assertThat(ConflictResolver.checkAll(ours.txn(), table.since(1), none).kind()).isEqualTo(Kind.RETRYABLE);

    ConflictOutcome outcome = check(table, ours);
    assertThatThrownBy(() -> DeletionRebase.rebase(ours.txn(), outcome, none, table.latest(), table::deletionVector))
        .isInstanceOfSatisfying(CommitConflictException.class, e -> assertThat(e.retryable()).isTrue())
        .hasMessageContaining("no affected rows");
  }

  @Test
  void affectedRowsThatContradictOurDeletionFileAreRefused() {
    MemoryTable table = new MemoryTable(100);
    table.commit(table.delete(1, 0, 5).txn());
    MemoryTable.Write ours = table.delete(1, 0, 6, 7);
    RebaseInputs missingOne = inputs(table, ours).toBuilder().affectedRows(MemoryTable.addresses(0, 6)).build();
    ConflictOutcome outcome = ConflictResolver.checkAll(ours.txn(), table.since(1), missingOne);
    assertThat(outcome.kind()).isEqualTo(Kind.REBASE);

    assertThatThrownBy(() -> DeletionRebase.rebase(ours.txn(), outcome, missingOne, table.latest(),
        table::deletionVector))
        .isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining("name 1 rows of fragment 0")
        .hasMessageContaining("from 0 to 2 deleted rows");
  }

  @Test
  void rowsBeyondTheFragmentAreRefused() {
    MemoryTable table = new MemoryTable(10);
    table.commit(table.delete(1, 0, 5).txn());
    MemoryTable.Write ours = table.delete(1, 0, 12);
    assertThatThrownBy(() -> rebase(table, ours))
        .isInstanceOf(InvalidTransactionException.class).hasMessageContaining("offset 12 of fragment 0, which has 10");

    MemoryTable corrupt = new MemoryTable(10);
    corrupt.commit(corrupt.delete(1, 0, 11).txn());
    MemoryTable.Write mine = corrupt.delete(1, 0, 2);
    assertThatThrownBy(() -> rebase(corrupt, mine))
        .isInstanceOf(CorruptDeletionFileException.class).hasMessageContaining("deletes offset 11");
  }

  @Test
  void argumentsThatDoNotBelongTogetherAreRefused() {
    MemoryTable table = new MemoryTable(100, 100);
    MemoryTable.Write theirs = table.delete(1, 0, 5);
    MemoryTable.Write ours = table.delete(1, 0, 6);
    table.commit(theirs.txn());
    ConflictOutcome outcome = check(table, ours);
    RebaseInputs inputs = inputs(table, ours);

    assertThatThrownBy(() -> DeletionRebase.rebase(ours.txn(), outcome, inputs, table.version(1),
        table::deletionVector))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("latest version is 1");
    ConflictOutcome retryable = ConflictOutcome.of(Kind.RETRYABLE, "du", 2, OperationKind.DELETE, "no");
    assertThatThrownBy(() -> DeletionRebase.rebase(ours.txn(), retryable, inputs, table.latest(),
        table::deletionVector))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("RETRYABLE outcome cannot be rebased");
    ConflictOutcome otherFragment = new ConflictOutcome(Kind.REBASE, "du", 2, OperationKind.DELETE, "x", Set.of(1L));
    assertThatThrownBy(() -> DeletionRebase.rebase(ours.txn(), otherFragment, inputs, table.latest(),
        table::deletionVector))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not modify");
    Transaction append = TransactionFactory.append(1, List.of());
    assertThatThrownBy(() -> DeletionRebase.rebase(append, outcome, inputs, table.latest(), table::deletionVector))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a Append");
  }

  @Test
  void aFragmentGoneFromTheLatestVersionIsRetryable() {
    MemoryTable table = new MemoryTable(100, 100);
    MemoryTable.Write ours = table.delete(1, 0, 6);
    table.commit(table.delete(1, 0, 5).txn());
    ConflictOutcome outcome = check(table, ours);
    table.commit(TransactionFactory.delete(2, List.of(), List.of(0L)));
    ConflictOutcome stale = new ConflictOutcome(Kind.REBASE, outcome.rule(), 3, OperationKind.DELETE,
        outcome.reason(), outcome.rebaseFragments());

    assertThatThrownBy(() -> DeletionRebase.rebase(ours.txn(), stale, inputs(table, ours), table.latest(),
        table::deletionVector))
        .isInstanceOfSatisfying(CommitConflictException.class, e -> assertThat(e.retryable()).isTrue())
        .hasMessageContaining("fragment 0 no longer exists in version 3");
  }

  @Test
  void aColumnRewritingUpdateIsNotRebased() {
    MemoryTable table = new MemoryTable(100);
    MemoryTable.Write theirs = table.delete(1, 0, 5);
    MemoryTable.Write rows = table.update(1, 0, 10);
    Transaction columns = rows.txn().toBuilder().setUpdate(rows.txn().getUpdate().toBuilder()
        .setUpdateMode(Transaction.UpdateMode.REWRITE_COLUMNS)).build();
    MemoryTable.Write ours = new MemoryTable.Write(columns, rows.affectedRows());
    table.commit(theirs.txn());
    ConflictOutcome outcome = check(table, ours);
    assertThat(outcome.kind()).isEqualTo(Kind.REBASE);

    assertThatThrownBy(() -> rebase(table, ours))
        .isInstanceOfSatisfying(CommitConflictException.class, e -> assertThat(e.retryable()).isTrue())
        .hasMessageContaining("rewrites columns in place");
  }
}
