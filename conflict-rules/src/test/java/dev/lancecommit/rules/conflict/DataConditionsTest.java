package dev.lancecommit.rules.conflict;

import static dev.lancecommit.rules.conflict.ConflictOutcome.Kind.COMPATIBLE;
import static dev.lancecommit.rules.conflict.ConflictOutcome.Kind.INCOMPATIBLE;
import static dev.lancecommit.rules.conflict.ConflictOutcome.Kind.RETRYABLE;
import static dev.lancecommit.rules.conflict.Txns.dataReplacement;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.lancecommit.format.pb.Transaction;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** d1 d2 (DataReplacement), n1 (nullability) and p1 (primary-key filters). */
class DataConditionsTest {
  private static final RebaseInputs NONE = RebaseInputs.defaults();

  @Nested
  class ReplacementVsReplacementD1 {
    @Test
    void sameFragmentAndFieldRetries() {
      assertThat(Conditions.D1.evaluate(dataReplacement(3, 1, 2), dataReplacement(3, 2), NONE).detail())
          .isEqualTo("both replace fields [2] of fragment 3");
    }

    @Test
    void otherFragmentOrOtherFieldsAreCompatible() {
      assertThat(Conditions.D1.decide(dataReplacement(3, 1), dataReplacement(4, 1), NONE)).isEqualTo(COMPATIBLE);
      assertThat(Conditions.D1.decide(dataReplacement(3, 1), dataReplacement(3, 2), NONE)).isEqualTo(COMPATIBLE);
    }
  }

  @Nested
  class ReplacementTargetsD2 {
    @Test
    void deletedTargetFragmentIsIncompatibleTombstonesAreNot() {
      assertThat(Conditions.D2.decide(dataReplacement(3, 1), Txns.delete(List.of(), 3), NONE))
          .isEqualTo(INCOMPATIBLE);
      assertThat(Conditions.D2.decide(dataReplacement(3, 1),
          Txns.delete(List.of(Txns.withDeletions(Txns.fragment(3), 4))), NONE)).isEqualTo(COMPATIBLE);
    }

    @Test
    void updateRemovingTargetIsIncompatible() {
      assertThat(Conditions.D2.decide(dataReplacement(3, 1), Txns.update(List.of(), 3), NONE))
          .isEqualTo(INCOMPATIBLE);
    }

    @Test
    void updateMovingRowsOutOfTargetRetries() {
      Transaction moved = Txns.update(u -> u.addUpdatedFragments(Txns.fragment(3))
          .addNewFragments(Txns.fragment(0)).setUpdateMode(Transaction.UpdateMode.REWRITE_ROWS));
      assertThat(Conditions.D2.evaluate(dataReplacement(3, 1), moved, NONE).detail()).contains("moved rows");
    }

    @Test
    void updateRewritingReplacedFieldRetriesOtherFieldsDoNot() {
      Transaction rewroteField1 = Txns.update(u -> u.addUpdatedFragments(Txns.fragment(3)).addFieldsModified(1)
          .setUpdateMode(Transaction.UpdateMode.REWRITE_COLUMNS));
      assertThat(Conditions.D2.decide(dataReplacement(3, 1), rewroteField1, NONE)).isEqualTo(RETRYABLE);
      assertThat(Conditions.D2.decide(dataReplacement(3, 2), rewroteField1, NONE)).isEqualTo(COMPATIBLE);
      assertThat(Conditions.D2.decide(dataReplacement(4, 1), rewroteField1, NONE)).isEqualTo(COMPATIBLE);
    }

    @Test
    void projectDroppingReplacedFieldIsIncompatible() {
      assertThat(Conditions.D2.decide(dataReplacement(3, 1, 2), Txns.project(true, 0, 1), NONE))
          .isEqualTo(INCOMPATIBLE);
      assertThat(Conditions.D2.decide(dataReplacement(3, 1, 2), Txns.project(true, 0, 1, 2), NONE))
          .isEqualTo(COMPATIBLE);
    }
  }

  @Nested
  class NullabilityN1 {
    @Test
    void projectWithoutPreservesNullabilityVsValueWritersRetriesBothWays() {
      Transaction project = Txns.project(false, 0);
      for (Transaction writer : List.of(Txns.append(0), Txns.update(List.of(Txns.fragment(1))),
          dataReplacement(1, 0), Txns.minimal(dev.lancecommit.rules.OperationKind.DATA_OVERLAY))) {
        assertThat(Conditions.N1.decide(project, writer, NONE)).as(writer.getOperationCase().name())
            .isEqualTo(RETRYABLE);
        assertThat(Conditions.N1.decide(writer, project, NONE)).isEqualTo(RETRYABLE);
      }
    }

    @Test
    void preservedNullabilityIsCompatible() {
      assertThat(Conditions.N1.decide(Txns.project(true, 0), Txns.append(0), NONE)).isEqualTo(COMPATIBLE);
      assertThat(Conditions.N1.decide(Txns.append(0), Txns.merge(true, 0), NONE)).isEqualTo(COMPATIBLE);
    }

    @Test
    void mergeWithoutPreservesNullabilityCounts() {
      assertThat(Conditions.N1.decide(Txns.append(0), Txns.merge(false, 0), NONE)).isEqualTo(RETRYABLE);
    }

    @Test
    void throughTheResolverTheDataReplacementCellChecksNullabilityThenFields() {
      ConflictOutcome nullability = ConflictResolver.check(dataReplacement(3, 1), Txns.project(false, 0, 1), 2, NONE);
      assertThat(nullability.kind()).isEqualTo(RETRYABLE);
      assertThat(nullability.rule()).isEqualTo("n1");
      ConflictOutcome dropped = ConflictResolver.check(dataReplacement(3, 1), Txns.project(true, 0), 2, NONE);
      assertThat(dropped.kind()).isEqualTo(INCOMPATIBLE);
      assertThat(dropped.rule()).isEqualTo("d2");
      ConflictOutcome kept = ConflictResolver.check(dataReplacement(3, 1), Txns.project(true, 0, 1), 2, NONE);
      assertThat(kept.kind()).isEqualTo(COMPATIBLE);
      assertThat(kept.rule()).isEqualTo("n1+d2");
    }
  }

  @Nested
  class PrimaryKeyFilterP1 {
    private final Transaction withFilter = Txns.update(u -> u.setInsertedRows(ByteString.copyFromUtf8("bloom")));

    @Test
    void filteredUpdateVsAppendOrUpdateRetries() {
      assertThat(Conditions.P1.decide(withFilter, Txns.append(5), NONE)).isEqualTo(RETRYABLE);
      assertThat(Conditions.P1.evaluate(withFilter, Txns.update(List.of()), NONE).detail()).contains("no key filter");
      assertThat(Conditions.P1.decide(withFilter,
          Txns.update(u -> u.setInsertedRows(ByteString.copyFromUtf8("other"))), NONE)).isEqualTo(RETRYABLE);
    }

    @Test
    void updateWithoutFilterIsCompatible() {
      assertThat(Conditions.P1.decide(Txns.update(List.of()), Txns.append(5), NONE)).isEqualTo(COMPATIBLE);
    }

    @Test
    void updateVsUpdateChecksTheFilterBeforeTheRebaseRule() {
      ConflictOutcome outcome = ConflictResolver.check(withFilter, Txns.update(List.of()), 2, NONE);
      assertThat(outcome.kind()).isEqualTo(RETRYABLE);
      assertThat(outcome.rule()).isEqualTo("p1");
      assertThat(ConflictResolver.check(Txns.update(List.of()), Txns.update(List.of()), 2, NONE).kind())
          .isEqualTo(COMPATIBLE);
    }
  }
}
