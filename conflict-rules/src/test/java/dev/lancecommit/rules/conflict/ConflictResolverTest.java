package dev.lancecommit.rules.conflict;

import static dev.lancecommit.rules.conflict.Txns.delete;
import static dev.lancecommit.rules.conflict.Txns.fragment;
import static dev.lancecommit.rules.conflict.Txns.withDeletions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.InvalidTransactionException;
import dev.lancecommit.rules.OperationKind;
import dev.lancecommit.rules.conflict.ConflictOutcome.Kind;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

class ConflictResolverTest {
  private static final RebaseInputs NONE = RebaseInputs.defaults();

  private static Transaction at(long readVersion, Transaction txn) {
    return txn.toBuilder().setReadVersion(readVersion).build();
  }

  @Test
  void retryableReasonNamesBothSidesAndVersions() {
    Transaction ours = at(4, delete(List.of(withDeletions(fragment(3), 2))));
    ConflictOutcome outcome = ConflictResolver.check(ours, Txns.rewrite(3), 6, NONE);
    assertThat(outcome.kind()).isEqualTo(Kind.RETRYABLE);
    assertThat(outcome.rule()).isEqualTo("o1");
    assertThat(outcome.theirVersion()).isEqualTo(6);
    assertThat(outcome.theirOperation()).isEqualTo(OperationKind.REWRITE);
    assertThat(outcome.reason()).startsWith(
        "Delete at read version 4 conflicts with Rewrite committed at version 6: both touch fragments [3]");
    CommitConflictException e = outcome.toException();
    assertThat(e.retryable()).isTrue();
    assertThat(e.conflictingVersion()).isEqualTo(6);
    assertThat(e.conflictingOperation()).isEqualTo("Rewrite");
    assertThat(e.rule()).isEqualTo("o1");
    assertThat(e.getMessage()).isEqualTo(outcome.reason());
  }

  @Test
  void incompatibleBecomesANonRetryableException() {
    ConflictOutcome outcome = ConflictResolver.check(Txns.append(1), Txns.minimal(OperationKind.OVERWRITE), 2, NONE);
    assertThat(outcome.kind()).isEqualTo(Kind.INCOMPATIBLE);
    assertThat(outcome.rule()).isEqualTo("append-vs-overwrite");
    assertThat(outcome.reason()).startsWith("Append at read version 1 is incompatible with Overwrite committed at"
        + " version 2");
    assertThat(outcome.toException().retryable()).isFalse();
  }

  @Test
  void compatibleOutcomesAreNotExceptions() {
    ConflictOutcome outcome = ConflictResolver.check(Txns.append(1), Txns.append(2), 2, NONE);
    assertThat(outcome.kind()).isEqualTo(Kind.COMPATIBLE);
    assertThat(outcome.isConflict()).isFalse();
    assertThatThrownBy(outcome::toException).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void sameUuidIsAlreadyCommitted() {
    Transaction ours = Txns.append(1);
    Transaction committedCopy = ours.toBuilder().setReadVersion(1).build();
    ConflictOutcome outcome = ConflictResolver.checkAll(ours,
        List.of(new CommittedTransaction(2, Txns.append(5)), new CommittedTransaction(3, committedCopy)), NONE);
    assertThat(outcome.kind()).isEqualTo(Kind.ALREADY_COMMITTED);
    assertThat(outcome.theirVersion()).isEqualTo(3);
    assertThat(outcome.rule()).isEqualTo("already-committed");
  }

  @Test
  void alreadyCommittedWinsEvenWithRebaseDisabledAndOverAnEarlierConflict() {
    Transaction ours = Txns.append(1);
    ConflictOutcome outcome = ConflictResolver.checkAll(ours, List.of(
        new CommittedTransaction(2, Txns.minimal(OperationKind.OVERWRITE)), new CommittedTransaction(3, ours)),
        RebaseInputs.noRebase());
    assertThat(outcome.kind()).isEqualTo(Kind.ALREADY_COMMITTED);
    assertThat(outcome.theirVersion()).isEqualTo(3);
  }

  @Test
  void sameUuidOnAnotherOperationIsUuidReuse() {
    Transaction ours = Txns.append(1);
    Transaction other = Txns.minimal(OperationKind.DELETE).toBuilder().setUuid(ours.getUuid()).build();
    ConflictOutcome outcome = ConflictResolver.check(ours, other, 2, NONE);
    assertThat(outcome.kind()).isEqualTo(Kind.INCOMPATIBLE);
    assertThat(outcome.rule()).isEqualTo("uuid-reuse");
  }

  @Test
  void rebaseDisabledMakesEvenACompatibleCommitRetryable() {
    ConflictOutcome outcome = ConflictResolver.checkAll(Txns.append(1),
        List.of(new CommittedTransaction(2, Txns.append(2))), RebaseInputs.noRebase());
    assertThat(outcome.kind()).isEqualTo(Kind.RETRYABLE);
    assertThat(outcome.rule()).isEqualTo("no-rebase");
    assertThat(outcome.theirVersion()).isEqualTo(2);
    assertThat(outcome.reason()).contains("rebasing is disabled").contains("append-vs-append");
    assertThat(outcome.toException().retryable()).isTrue();
  }

  @Test
  void rebaseDisabledWithNothingCommittedIsUpToDate() {
    ConflictOutcome outcome = ConflictResolver.checkAll(Txns.append(1), List.of(), RebaseInputs.noRebase());
    assertThat(outcome.kind()).isEqualTo(Kind.COMPATIBLE);
    assertThat(outcome.rule()).isEqualTo("up-to-date");
    assertThat(outcome.theirVersion()).isEqualTo(1);
    assertThat(outcome.theirOperation()).isNull();
  }

  @Test
  void checkAllReturnsTheFirstConflictInVersionOrderWhateverTheListOrder() {
    Transaction ours = Txns.append(1);
    ConflictOutcome outcome = ConflictResolver.checkAll(ours, List.of(
        new CommittedTransaction(5, Txns.minimal(OperationKind.RESTORE)),
        new CommittedTransaction(3, Txns.minimal(OperationKind.OVERWRITE)),
        new CommittedTransaction(2, Txns.append(9))), NONE);
    assertThat(outcome.kind()).isEqualTo(Kind.INCOMPATIBLE);
    assertThat(outcome.theirVersion()).isEqualTo(3);
    assertThat(outcome.theirOperation()).isEqualTo(OperationKind.OVERWRITE);
  }

  @Test
  void checkAllCombinesCompatibleVersions() {
    ConflictOutcome outcome = ConflictResolver.checkAll(Txns.append(1), List.of(
        new CommittedTransaction(2, Txns.append(2)), new CommittedTransaction(3, Txns.minimal(OperationKind.CLONE))),
        NONE);
    assertThat(outcome.kind()).isEqualTo(Kind.COMPATIBLE);
    assertThat(outcome.rule()).isEqualTo("compatible-with-all");
    assertThat(outcome.theirVersion()).isEqualTo(3);
    assertThat(outcome.theirOperation()).isEqualTo(OperationKind.CLONE);
  }

  @Test
  void checkAllUnitesRebasesAcrossVersions() {
    Transaction ours = delete(List.of(withDeletions(fragment(3), 2), withDeletions(fragment(4), 2)));
    RebaseInputs inputs = RebaseInputs.builder()
        .affectedRows(Roaring64NavigableMap.bitmapOf(3L << 32, 4L << 32))
        .initialFragments(List.of(fragment(3), fragment(4))).build();
    ConflictOutcome outcome = ConflictResolver.checkAll(ours, List.of(
        new CommittedTransaction(2, delete(List.of(withDeletions(fragment(3), 8)))),
        new CommittedTransaction(3, Txns.append(7)),
        new CommittedTransaction(4, Txns.update(List.of(withDeletions(fragment(4), 9))))), inputs);
    assertThat(outcome.kind()).isEqualTo(Kind.REBASE);
    assertThat(outcome.rule()).isEqualTo("du");
    assertThat(outcome.rebaseFragments()).containsExactly(3L, 4L);
    assertThat(outcome.theirVersion()).isEqualTo(4);
    assertThat(outcome.isConflict()).isFalse();
  }

  @Test
  void aRetryAfterARebaseStillWins() {
    Transaction ours = delete(List.of(withDeletions(fragment(3), 2)));
    RebaseInputs inputs = RebaseInputs.builder().affectedRows(Roaring64NavigableMap.bitmapOf(3L << 32))
        .initialFragments(List.of(fragment(3))).build();
    ConflictOutcome outcome = ConflictResolver.checkAll(ours, List.of(
        new CommittedTransaction(2, delete(List.of(withDeletions(fragment(3), 8)))),
        new CommittedTransaction(3, Txns.rewrite(3))), inputs);
    assertThat(outcome.kind()).isEqualTo(Kind.RETRYABLE);
    assertThat(outcome.theirVersion()).isEqualTo(3);
  }

  @Test
  void badVersionsAreRefused() {
    Transaction ours = at(5, Txns.append(1));
    assertThatThrownBy(() -> ConflictResolver.check(ours, Txns.append(2), 5, NONE))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not after read version 5");
    assertThatThrownBy(() -> ConflictResolver.checkAll(ours,
        List.of(new CommittedTransaction(6, Txns.append(2)), new CommittedTransaction(6, Txns.append(3))), NONE))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("listed twice");
    assertThatThrownBy(() -> new CommittedTransaction(0, Txns.append(2)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void transactionWithoutOperationIsInvalid() {
    Transaction empty = Txns.base().build();
    assertThatThrownBy(() -> ConflictResolver.check(empty, Txns.append(2), 2, NONE))
        .isInstanceOf(InvalidTransactionException.class);
  }

  @Test
  void outcomeRefusesInconsistentRebaseFragments() {
    assertThatThrownBy(() -> new ConflictOutcome(Kind.REBASE, "du", 2, OperationKind.DELETE, "r", java.util.Set.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ConflictOutcome(Kind.RETRYABLE, "o1", 2, OperationKind.DELETE, "r",
        java.util.Set.of(1L))).isInstanceOf(IllegalArgumentException.class);
  }
}
