package dev.lancecommit.rules.conflict;

import static dev.lancecommit.rules.conflict.ConflictOutcome.Kind.COMPATIBLE;
import static dev.lancecommit.rules.conflict.ConflictOutcome.Kind.INCOMPATIBLE;
import static dev.lancecommit.rules.conflict.ConflictOutcome.Kind.RETRYABLE;
import static dev.lancecommit.rules.conflict.Txns.createIndex;
import static dev.lancecommit.rules.conflict.Txns.index;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Transaction;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** f1 (index names), i1 i3 (rewrite vs index bitmaps, frag-reuse index), i2 (indexed fields), i4 (2026 pruning). */
class IndexConditionsTest {
  private static final RebaseInputs NONE = RebaseInputs.defaults();
  private static final int[] A = {0};
  private static final int[] B = {1};

  private static IndexMetadata idx(String name, int uuid) {
    return index(name, uuid, A, new long[] {0, 1});
  }

  private static Transaction create(IndexMetadata... indices) {
    return createIndex(List.of(indices), List.of());
  }

  @Nested
  class IndexNamesF1 {
    @Test
    void twoFragReuseIndicesRetry() {
      Transaction ours = createIndex(List.of(idx(IndexRules.FRAG_REUSE, 1)), List.of(idx(IndexRules.FRAG_REUSE, 9)));
      Transaction theirs = createIndex(List.of(idx(IndexRules.FRAG_REUSE, 2)), List.of(idx(IndexRules.FRAG_REUSE, 9)));
      assertThat(Conditions.F1.evaluate(ours, theirs, NONE).detail()).contains("fragment-reuse");
    }

    @Test
    void twoMemWalIndicesRetry() {
      assertThat(Conditions.F1.decide(create(idx(IndexRules.MEM_WAL, 1)), create(idx(IndexRules.MEM_WAL, 2)), NONE))
          .isEqualTo(RETRYABLE);
    }

    @Test
    void sameRegularNameRetriesDifferentNamesAreCompatible() {
      assertThat(Conditions.F1.evaluate(create(idx("a_idx", 1)), create(idx("a_idx", 2)), NONE).detail())
          .isEqualTo("both create indices named [a_idx]");
      assertThat(Conditions.F1.decide(create(idx("a_idx", 1)), create(idx("b_idx", 2)), NONE)).isEqualTo(COMPATIBLE);
    }

    @Test
    void appendingToAnIndexTheOtherDroppedRetries() {
      Transaction drop = createIndex(List.of(), List.of(idx("a_idx", 5)));
      Transaction appendSegment = create(idx("a_idx", 6));
      assertThat(Conditions.F1.decide(appendSegment, drop, NONE)).isEqualTo(RETRYABLE);
      assertThat(Conditions.F1.decide(drop, appendSegment, NONE)).isEqualTo(RETRYABLE);
      Transaction replaceOther = createIndex(List.of(idx("a_idx", 7)), List.of(idx("a_idx", 4)));
      Transaction dropOther = createIndex(List.of(), List.of(idx("a_idx", 5)));
      assertThat(Conditions.F1.decide(replaceOther, dropOther, NONE)).isEqualTo(COMPATIBLE);
    }

    @Test
    void replacingTheSameSourceSegmentRetriesPureRemovalsDoNot() {
      Transaction replace = createIndex(List.of(idx("a_idx", 7)), List.of(idx("a_idx", 5)));
      Transaction drop = createIndex(List.of(), List.of(idx("a_idx", 5)));
      assertThat(Conditions.F1.evaluate(replace, drop, NONE).detail()).contains("same source segment");
      assertThat(Conditions.F1.decide(drop, createIndex(List.of(), List.of(idx("a_idx", 5))), NONE))
          .isEqualTo(COMPATIBLE);
    }
  }

  @Nested
  class CreateIndexVsRewriteI1 {
    @Test
    void rewriteOfCoveredFragmentRetries() {
      Transaction ours = create(index("a_idx", 1, A, new long[] {1, 2}));
      assertThat(Conditions.I1.evaluate(ours, Txns.rewrite(2, 3), NONE).detail()).contains("[2]");
    }

    @Test
    void indexWithoutBitmapRetries() {
      Transaction ours = create(index("a_idx", 1, A, null));
      assertThat(Conditions.I1.decide(ours, Txns.rewrite(7), NONE)).isEqualTo(RETRYABLE);
    }

    @Test
    void undecodableBitmapCountsAsUnknown() {
      IndexMetadata garbled = index("a_idx", 1, A, null).toBuilder()
          .setFragmentBitmap(ByteString.copyFromUtf8("not a bitmap")).build();
      assertThat(Conditions.I1.decide(create(garbled), Txns.rewrite(7), NONE)).isEqualTo(RETRYABLE);
    }

    @Test
    void rewriteOfUncoveredFragmentsIsCompatible() {
      Transaction ours = create(index("a_idx", 1, A, new long[] {1, 2}));
      assertThat(Conditions.I1.decide(ours, Txns.rewrite(3, 4), NONE)).isEqualTo(COMPATIBLE);
    }
  }

  @Nested
  class RewriteVsCreateIndexI3 {
    @Test
    void committedIndexCoveringOurFragmentsRetries() {
      Transaction theirs = create(index("a_idx", 1, A, new long[] {3}));
      assertThat(Conditions.I3.decide(Txns.rewrite(3), theirs, NONE)).isEqualTo(RETRYABLE);
      assertThat(Conditions.I3.decide(Txns.rewrite(4), theirs, NONE)).isEqualTo(COMPATIBLE);
    }

    @Test
    void committedIndexWithoutBitmapRetries() {
      assertThat(Conditions.I3.decide(Txns.rewrite(4), create(index("a_idx", 1, A, null)), NONE))
          .isEqualTo(RETRYABLE);
    }

    @Test
    void committedFragReuseCleanupIsCompatibleMixedIsIncompatible() {
      Transaction cleanup = createIndex(List.of(idx(IndexRules.FRAG_REUSE, 2)), List.of(idx(IndexRules.FRAG_REUSE, 1)));
      assertThat(Conditions.I3.decide(Txns.rewrite(0), cleanup, NONE)).isEqualTo(COMPATIBLE);
      Transaction mixed = createIndex(List.of(idx(IndexRules.FRAG_REUSE, 2), idx("a_idx", 3)),
          List.of(idx(IndexRules.FRAG_REUSE, 1)));
      assertThat(Conditions.I3.decide(Txns.rewrite(0), mixed, NONE)).isEqualTo(INCOMPATIBLE);
    }
  }

  @Nested
  class IndexedFieldsI2 {
    @Test
    void replacingAnIndexedFieldRetriesBothWays() {
      Transaction ci = create(index("a_idx", 1, new int[] {1}, new long[] {0}));
      Transaction dr = Txns.dataReplacement(0, 1, 2);
      assertThat(Conditions.I2.decide(ci, dr, NONE)).isEqualTo(RETRYABLE);
      assertThat(Conditions.I2.decide(dr, ci, NONE)).isEqualTo(RETRYABLE);
    }

    @Test
    void replacingOtherFieldsIsCompatible() {
      Transaction ci = create(index("a_idx", 1, new int[] {1}, new long[] {0}));
      Transaction dr = Txns.dataReplacement(0, 2, 3);
      assertThat(Conditions.I2.decide(ci, dr, NONE)).isEqualTo(COMPATIBLE);
      assertThat(Conditions.I2.decide(dr, ci, NONE)).isEqualTo(COMPATIBLE);
    }
  }

  @Nested
  class CreateIndexVsUpdateI4 {
    private final Transaction updateField1OfFragment2 = Txns.update(u -> u
        .addUpdatedFragments(Txns.fragment(2)).addFieldsModified(1)
        .setUpdateMode(Transaction.UpdateMode.REWRITE_COLUMNS));

    @Test
    void updatedIndexedFieldInCoveredFragmentRetries() {
      Transaction ours = create(index("b_idx", 1, B, new long[] {2, 3}));
      assertThat(Conditions.I4.evaluate(ours, updateField1OfFragment2, NONE).detail())
          .contains("fields [1]").contains("fragments [2]");
    }

    @Test
    void unknownBitmapWithIndexedFieldRetries() {
      assertThat(Conditions.I4.decide(create(index("b_idx", 1, B, null)), updateField1OfFragment2, NONE))
          .isEqualTo(RETRYABLE);
    }

    @Test
    void otherFieldOrUncoveredFragmentIsCompatible() {
      assertThat(Conditions.I4.decide(create(index("a_idx", 1, A, null)), updateField1OfFragment2, NONE))
          .isEqualTo(COMPATIBLE);
      assertThat(Conditions.I4.decide(create(index("b_idx", 1, B, new long[] {5})), updateField1OfFragment2, NONE))
          .isEqualTo(COMPATIBLE);
    }
  }
}
