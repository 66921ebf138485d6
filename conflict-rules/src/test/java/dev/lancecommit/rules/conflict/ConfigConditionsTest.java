package dev.lancecommit.rules.conflict;

import static dev.lancecommit.rules.conflict.ConflictOutcome.Kind.COMPATIBLE;
import static dev.lancecommit.rules.conflict.ConflictOutcome.Kind.INCOMPATIBLE;
import static dev.lancecommit.rules.conflict.ConflictOutcome.Kind.RETRYABLE;
import static dev.lancecommit.rules.conflict.Txns.configUpdates;
import static dev.lancecommit.rules.conflict.Txns.overwrite;
import static dev.lancecommit.rules.conflict.Txns.updateConfig;
import static dev.lancecommit.rules.conflict.Txns.updateMap;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.format.pb.Transaction;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** k1 k2 k3 k4 (config keys and metadata) and s1 (Merge with schema/field metadata). */
class ConfigConditionsTest {
  private static final RebaseInputs NONE = RebaseInputs.defaults();

  @Nested
  class OverwriteVsUpdateConfigK1 {
    @Test
    void sameKeyIsIncompatibleWhereLanceNov2025DecodesTheOverwriteKeysInvertedAndLetsItThrough() {
      assertThat(Conditions.K1.evaluate(overwrite("a=1"), configUpdates("a=2"), NONE).detail())
          .isEqualTo("both change config keys [a]");
      assertThat(Conditions.K1.decide(overwrite("a=1"), configUpdates("a"), NONE)).isEqualTo(INCOMPATIBLE);
    }

    @Test
    void differentKeysAreCompatible() {
      assertThat(Conditions.K1.decide(overwrite("a=1"), configUpdates("b=2", "c"), NONE)).isEqualTo(COMPATIBLE);
    }

    @Test
    void deprecatedUpsertAndDeleteKeysCount() {
      Transaction deprecated = updateConfig(u -> u.putUpsertValues("b", "1").addDeleteKeys("a"));
      assertThat(Conditions.K1.decide(overwrite("a=1"), deprecated, NONE)).isEqualTo(INCOMPATIBLE);
      assertThat(Conditions.K1.decide(overwrite("z=1"), deprecated, NONE)).isEqualTo(COMPATIBLE);
    }

    @Test
    void replacingTheWholeConfigConflictsWithAnyConfigChange() {
      Transaction replace = updateConfig(u -> u.setConfigUpdates(updateMap(true, "x=1")));
      assertThat(Conditions.K1.decide(overwrite("a=1"), replace, NONE)).isEqualTo(INCOMPATIBLE);
      assertThat(Conditions.K1.decide(overwrite(), replace, NONE)).isEqualTo(COMPATIBLE);
    }
  }

  @Nested
  class OverwriteVsOverwriteK4 {
    @Test
    void sameConfigKeyIsIncompatible() {
      assertThat(Conditions.K4.decide(overwrite("a=1"), overwrite("a=2"), NONE)).isEqualTo(INCOMPATIBLE);
    }

    @Test
    void otherwiseRetryable() {
      assertThat(Conditions.K4.decide(overwrite("a=1"), overwrite("b=2"), NONE)).isEqualTo(RETRYABLE);
      assertThat(Conditions.K4.decide(overwrite(), overwrite(), NONE)).isEqualTo(RETRYABLE);
    }
  }

  @Nested
  class UpdateConfigVsOverwriteK2 {
    @Test
    void schemaMetadataUpdateIsIncompatible() {
      Transaction ours = updateConfig(u -> u.setSchemaMetadataUpdates(updateMap(false, "s=1")));
      assertThat(Conditions.K2.decide(ours, overwrite(), NONE)).isEqualTo(INCOMPATIBLE);
    }

    @Test
    void deprecatedFieldMetadataIsIncompatible() {
      Transaction ours = updateConfig(u -> u.putFieldMetadata(3,
          Transaction.FieldMetadataUpdate.newBuilder().putMetadata("m", "1").build()));
      assertThat(Conditions.K2.evaluate(ours, overwrite(), NONE).detail()).contains("field ids [3]");
    }

    @Test
    void configKeyConflictIsIncompatible() {
      assertThat(Conditions.K2.decide(configUpdates("a=1"), overwrite("a=9"), NONE)).isEqualTo(INCOMPATIBLE);
    }

    @Test
    void unrelatedConfigKeysAreCompatible() {
      assertThat(Conditions.K2.decide(configUpdates("a=1"), overwrite("b=9"), NONE)).isEqualTo(COMPATIBLE);
    }
  }

  @Nested
  class UpdateConfigVsUpdateConfigK3 {
    @Test
    void upsertVsDeleteOfSameKeyIsIncompatible() {
      assertThat(Conditions.K3.decide(configUpdates("a=1"), configUpdates("a"), NONE)).isEqualTo(INCOMPATIBLE);
    }

    @Test
    void twoDeletesOfTheSameKeyAreCompatible() {
      assertThat(Conditions.K3.decide(configUpdates("a"), configUpdates("a"), NONE)).isEqualTo(COMPATIBLE);
    }

    @Test
    void bothSchemaMetadataUpdatesAreIncompatible() {
      Transaction a = updateConfig(u -> u.setSchemaMetadataUpdates(updateMap(false, "x=1")));
      Transaction b = updateConfig(u -> u.setSchemaMetadataUpdates(updateMap(false, "y=1")));
      assertThat(Conditions.K3.decide(a, b, NONE)).isEqualTo(INCOMPATIBLE);
    }

    @Test
    void sameFieldMetadataIsIncompatibleOtherFieldsAreNot() {
      Transaction a = updateConfig(u -> u.putFieldMetadataUpdates(1, updateMap(false, "x=1")));
      Transaction b = updateConfig(u -> u.putFieldMetadataUpdates(1, updateMap(false, "y=1")));
      Transaction c = updateConfig(u -> u.putFieldMetadataUpdates(2, updateMap(false, "x=1")));
      assertThat(Conditions.K3.decide(a, b, NONE)).isEqualTo(INCOMPATIBLE);
      assertThat(Conditions.K3.decide(a, c, NONE)).isEqualTo(COMPATIBLE);
    }

    @Test
    void tableMetadataSameKeyOrReplaceIsIncompatible() {
      Transaction a = updateConfig(u -> u.setTableMetadataUpdates(updateMap(false, "owner=ann")));
      Transaction b = updateConfig(u -> u.setTableMetadataUpdates(updateMap(false, "owner")));
      Transaction other = updateConfig(u -> u.setTableMetadataUpdates(updateMap(false, "team=x")));
      Transaction replace = updateConfig(u -> u.setTableMetadataUpdates(updateMap(true)));
      assertThat(Conditions.K3.decide(a, b, NONE)).isEqualTo(INCOMPATIBLE);
      assertThat(Conditions.K3.decide(a, other, NONE)).isEqualTo(COMPATIBLE);
      assertThat(Conditions.K3.evaluate(other, replace, NONE).detail()).contains("replaces it whole");
      assertThat(Conditions.K3.decide(configUpdates("k=1"), replace, NONE)).isEqualTo(COMPATIBLE);
    }
  }

  @Nested
  class MergeVsMetadataS1 {
    @Test
    void mergeVsSchemaMetadataRetriesBothWays() {
      Transaction metadata = updateConfig(u -> u.setSchemaMetadataUpdates(updateMap(false, "x=1")));
      Transaction merge = Txns.merge(true, 0);
      assertThat(Conditions.S1.decide(merge, metadata, NONE)).isEqualTo(RETRYABLE);
      assertThat(Conditions.S1.decide(metadata, merge, NONE)).isEqualTo(RETRYABLE);
    }

    @Test
    void fieldMetadataReplaceCountsEvenWhenEmpty() {
      Transaction metadata = updateConfig(u -> u.putFieldMetadataUpdates(4, updateMap(true)));
      assertThat(Conditions.S1.decide(Txns.merge(true, 0), metadata, NONE)).isEqualTo(RETRYABLE);
    }

    @Test
    void configAndTableMetadataOrEmptyUpdatesAreCompatible() {
      Transaction merge = Txns.merge(true, 0);
      assertThat(Conditions.S1.decide(merge, configUpdates("a=1"), NONE)).isEqualTo(COMPATIBLE);
      assertThat(Conditions.S1.decide(merge,
          updateConfig(u -> u.setTableMetadataUpdates(updateMap(false, "t=1"))), NONE)).isEqualTo(COMPATIBLE);
      assertThat(Conditions.S1.decide(merge,
          updateConfig(u -> u.setSchemaMetadataUpdates(updateMap(false))), NONE)).isEqualTo(COMPATIBLE);
    }

    @Test
    void deprecatedSchemaMetadataCounts() {
      Transaction deprecated = updateConfig(u -> u.putSchemaMetadata("x", "1"));
      assertThat(Conditions.S1.decide(deprecated, Txns.merge(false, 0), NONE)).isEqualTo(RETRYABLE);
    }
  }
}
