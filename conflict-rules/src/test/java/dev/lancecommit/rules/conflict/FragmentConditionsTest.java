package dev.lancecommit.rules.conflict;

import static dev.lancecommit.rules.conflict.ConflictOutcome.Kind.COMPATIBLE;
import static dev.lancecommit.rules.conflict.ConflictOutcome.Kind.REBASE;
import static dev.lancecommit.rules.conflict.ConflictOutcome.Kind.RETRYABLE;
import static dev.lancecommit.rules.conflict.Txns.delete;
import static dev.lancecommit.rules.conflict.Txns.fragment;
import static dev.lancecommit.rules.conflict.Txns.update;
import static dev.lancecommit.rules.conflict.Txns.withDeletions;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.conflict.ConflictCondition.Verdict;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

/** o1 (fragment overlap), r1 (rewrite vs rewrite) and du (the D/U-rebase rule). */
class FragmentConditionsTest {
  private static final RebaseInputs NONE = RebaseInputs.defaults();

  @Nested
  class FragmentOverlapO1 {
    @Test
    void deleteVsRewriteOfTheSameFragmentRetries() {
      Transaction ours = delete(List.of(withDeletions(fragment(3), 7)));
      Verdict verdict = Conditions.O1.evaluate(ours, Txns.rewrite(3, 4), NONE);
      assertThat(verdict.kind()).isEqualTo(RETRYABLE);
      assertThat(verdict.detail()).isEqualTo("both touch fragments [3]");
    }

    @Test
    void deleteVsRewriteOfOtherFragmentsIsCompatible() {
      Transaction ours = delete(List.of(withDeletions(fragment(3), 7)), 5);
      assertThat(Conditions.O1.decide(ours, Txns.rewrite(1, 2), NONE)).isEqualTo(COMPATIBLE);
    }

    @Test
    void wholeFragmentDeletesCountAsModified() {
      assertThat(Conditions.O1.decide(delete(List.of(), 2), Txns.rewrite(2), NONE)).isEqualTo(RETRYABLE);
    }

    @Test
    void rewriteVsDataReplacementUsesReplacedFragments() {
      assertThat(Conditions.O1.decide(Txns.rewrite(1, 2), Txns.dataReplacement(2, 0), NONE)).isEqualTo(RETRYABLE);
      assertThat(Conditions.O1.decide(Txns.rewrite(1, 2), Txns.dataReplacement(9, 0), NONE)).isEqualTo(COMPATIBLE);
    }

    @Test
    void deprecatedSingleRewriteGroupIsReadWhenGroupsAreEmpty() {
      Transaction rewrite = Txns.base().setRewrite(Transaction.Rewrite.newBuilder()
          .addOldFragments(fragment(6)).addNewFragments(fragment(0))).build();
      assertThat(Conditions.O1.decide(update(List.of(fragment(6))), rewrite, NONE)).isEqualTo(RETRYABLE);
      assertThat(Conditions.O1.decide(rewrite, update(List.of(fragment(6))), NONE)).isEqualTo(RETRYABLE);
    }
  }

  @Nested
  class RewriteVsRewriteR1 {
    @Test
    void sharedOldFragmentRetries() {
      assertThat(Conditions.R1.evaluate(Txns.rewrite(1, 2), Txns.rewrite(2, 3), NONE).detail())
          .isEqualTo("both rewrite fragments [2]");
      assertThat(Conditions.R1.decide(Txns.rewrite(1, 2), Txns.rewrite(2, 3), NONE)).isEqualTo(RETRYABLE);
    }

    @Test
    void disjointRewritesAreCompatible() {
      assertThat(Conditions.R1.decide(Txns.rewrite(1, 2), Txns.rewrite(3, 4), NONE)).isEqualTo(COMPATIBLE);
    }
  }

  @Nested
  class DeleteUpdateRebaseDu {
    private final DataFragment initial3 = withDeletions(fragment(3), 1);
    private final Roaring64NavigableMap rows = Roaring64NavigableMap.bitmapOf((3L << 32) | 4);

    private RebaseInputs full() {
      return RebaseInputs.builder().affectedRows(rows).initialFragments(List.of(initial3, fragment(4))).build();
    }

    /** Ours deletes row 4 of fragment 3: a new deletion file on fragment 3. */
    private Transaction ours() {
      return delete(List.of(withDeletions(fragment(3), 2)));
    }

    @Test
    void noOverlapIsCompatible() {
      Transaction theirs = delete(List.of(withDeletions(fragment(8), 5)));
      assertThat(Conditions.DU.decide(ours(), theirs, full())).isEqualTo(COMPATIBLE);
    }

    @Test
    void changedDeletionVectorNeedsRebase() {
      Transaction theirs = update(List.of(withDeletions(fragment(3), 9)));
      Verdict verdict = Conditions.DU.evaluate(ours(), theirs, full());
      assertThat(verdict.kind()).isEqualTo(REBASE);
      assertThat(verdict.rebaseFragments()).containsExactly(3L);
    }

    @Test
    void overlapWithoutAffectedRowsRetries() {
      Transaction theirs = delete(List.of(withDeletions(fragment(3), 9)));
      RebaseInputs noRows = RebaseInputs.builder().initialFragments(List.of(initial3)).build();
      Verdict verdict = Conditions.DU.evaluate(ours(), theirs, noRows);
      assertThat(verdict.kind()).isEqualTo(RETRYABLE);
      assertThat(verdict.detail()).contains("no affected rows");
    }

    @Test
    void overlapWithoutInitialFragmentsRetries() {
      Transaction theirs = delete(List.of(withDeletions(fragment(3), 9)));
      RebaseInputs noFragments = RebaseInputs.builder().affectedRows(rows).build();
      assertThat(Conditions.DU.evaluate(ours(), theirs, noFragments).detail())
          .contains("fragments as of the read version were not supplied");
    }

    @Test
    void overlapMissingFromTheSuppliedInitialFragmentsRetries() {
      Transaction theirs = delete(List.of(withDeletions(fragment(3), 9)));
      RebaseInputs partial = RebaseInputs.builder().affectedRows(rows).initialFragments(List.of(fragment(4))).build();
      assertThat(Conditions.DU.evaluate(ours(), theirs, partial).detail()).contains("fragments [3] are missing");
    }

    @Test
    void oursRemovingWholeFragmentsRetriesEvenWithAffectedRows() {
      Transaction wholeFragment = delete(List.of(), 3);
      Transaction theirs = delete(List.of(withDeletions(fragment(3), 9)));
      assertThat(Conditions.DU.decide(wholeFragment, theirs, full())).isEqualTo(RETRYABLE);
    }

    @Test
    void rewrittenDataFilesRetry() {
      DataFragment rewritten = withDeletions(fragment(3), 9).toBuilder()
          .setFiles(0, Txns.file("3-new.lance", 0, 1)).build();
      Verdict verdict = Conditions.DU.evaluate(ours(), update(List.of(rewritten)), full());
      assertThat(verdict.kind()).isEqualTo(RETRYABLE);
      assertThat(verdict.detail()).isEqualTo("fragment 3 had its data files rewritten");
    }

    @Test
    void unknownFileSizeMatchesAnySize() {
      DataFragment sizeUnknown = withDeletions(fragment(3), 9).toBuilder()
          .setFiles(0, Txns.file("3.lance", 0, 1).toBuilder().setFileSizeBytes(0)).build();
      assertThat(Conditions.DU.decide(ours(), update(List.of(sizeUnknown)), full())).isEqualTo(REBASE);
      DataFragment sizeDiffers = withDeletions(fragment(3), 9).toBuilder()
          .setFiles(0, Txns.file("3.lance", 0, 1).toBuilder().setFileSizeBytes(999)).build();
      assertThat(Conditions.DU.decide(ours(), update(List.of(sizeDiffers)), full())).isEqualTo(RETRYABLE);
    }

    @Test
    void removedFragmentRetries() {
      Transaction theirs = update(List.of(), 3);
      assertThat(Conditions.DU.evaluate(ours(), theirs, full()).detail()).isEqualTo("fragment 3 was removed");
    }

    @Test
    void overlapWithUnchangedDeletionFileIsCompatible() {
      Transaction theirs = update(List.of(initial3));
      assertThat(Conditions.DU.decide(ours(), theirs, full())).isEqualTo(COMPATIBLE);
    }

    @Test
    void rebaseNamesOnlyFragmentsWhoseDeletionVectorChanged() {
      Transaction oursTwo = delete(List.of(withDeletions(fragment(3), 2), withDeletions(fragment(4), 2)));
      Transaction theirs = delete(List.of(withDeletions(fragment(3), 9), fragment(4)));
      Verdict verdict = Conditions.DU.evaluate(oursTwo, theirs, full());
      assertThat(verdict.kind()).isEqualTo(REBASE);
      assertThat(verdict.rebaseFragments()).containsExactly(3L);
    }
  }
}
