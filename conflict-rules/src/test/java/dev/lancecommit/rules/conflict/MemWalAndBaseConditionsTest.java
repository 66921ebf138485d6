package dev.lancecommit.rules.conflict;

import static dev.lancecommit.rules.conflict.ConflictOutcome.Kind.COMPATIBLE;
import static dev.lancecommit.rules.conflict.ConflictOutcome.Kind.INCOMPATIBLE;
import static dev.lancecommit.rules.conflict.ConflictOutcome.Kind.RETRYABLE;
import static dev.lancecommit.rules.conflict.Txns.basePath;
import static dev.lancecommit.rules.conflict.Txns.memWal;
import static dev.lancecommit.rules.conflict.Txns.updateBases;
import static dev.lancecommit.rules.conflict.Txns.updateMemWalState;
import static dev.lancecommit.rules.conflict.Txns.updateMerging;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import dev.lancecommit.format.pb.Transaction;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** m1 m2 m3 (MemWAL ids) and b1 (base paths). */
class MemWalAndBaseConditionsTest {
  private static final RebaseInputs NONE = RebaseInputs.defaults();
  /** Bytes that are not a Nov-2025 MemWal: field 9 varint, unknown to MemWal. */
  private static final ByteString FOREIGN = ByteString.copyFrom(new byte[] {0x48, 0x01});

  @Nested
  class UpdateVsMemWalStateM1 {
    @Test
    void mergingAMemWalTheOtherAddedIsIncompatible() {
      Transaction theirs = updateMemWalState(List.of(memWal("r1", 3)), List.of());
      assertThat(Conditions.M1.evaluate(updateMerging(memWal("r1", 3)), theirs, NONE).detail())
          .isEqualTo("both change MemWAL r1/3");
      Transaction updated = updateMemWalState(List.of(), List.of(memWal("r1", 3)));
      assertThat(Conditions.M1.decide(updateMerging(memWal("r1", 3)), updated, NONE)).isEqualTo(INCOMPATIBLE);
    }

    @Test
    void differentMemWalOrNoneIsCompatible() {
      Transaction theirs = updateMemWalState(List.of(memWal("r1", 3)), List.of());
      assertThat(Conditions.M1.decide(updateMerging(memWal("r1", 4)), theirs, NONE)).isEqualTo(COMPATIBLE);
      assertThat(Conditions.M1.decide(updateMerging(memWal("r2", 3)), theirs, NONE)).isEqualTo(COMPATIBLE);
      assertThat(Conditions.M1.decide(Txns.update(List.of()), theirs, NONE)).isEqualTo(COMPATIBLE);
    }

    @Test
    void undecodableEntriesRetry() {
      Transaction theirs = updateMemWalState(List.of(FOREIGN), List.of());
      assertThat(Conditions.M1.decide(updateMerging(memWal("r1", 3)), theirs, NONE)).isEqualTo(RETRYABLE);
      Transaction knownTheirs = updateMemWalState(List.of(memWal("r1", 3)), List.of());
      assertThat(Conditions.M1.decide(updateMerging(ByteString.copyFromUtf8("\u00ff garbage")), knownTheirs, NONE))
          .isEqualTo(RETRYABLE);
    }

    @Test
    void severalMemWalsAreIncompatible() {
      Transaction theirs = updateMemWalState(List.of(memWal("r1", 1), memWal("r2", 1)), List.of());
      assertThat(Conditions.M1.decide(updateMerging(memWal("r3", 1)), theirs, NONE)).isEqualTo(INCOMPATIBLE);
    }
  }

  @Nested
  class MemWalStateVsUpdateM2 {
    @Test
    void updateThatMergedAMemWalIsCompatibleOtherwiseIncompatible() {
      Transaction ours = updateMemWalState(List.of(memWal("r1", 1)), List.of());
      assertThat(Conditions.M2.decide(ours, updateMerging(memWal("r1", 0)), NONE)).isEqualTo(COMPATIBLE);
      assertThat(Conditions.M2.decide(ours, Txns.update(List.of()), NONE)).isEqualTo(INCOMPATIBLE);
    }
  }

  @Nested
  class MemWalStateVsMemWalStateM3 {
    @Test
    void trimOnlyIsCompatible() {
      Transaction trim = updateMemWalState(List.of(), List.of());
      Transaction add = updateMemWalState(List.of(memWal("r1", 1)), List.of());
      assertThat(Conditions.M3.decide(trim, add, NONE)).isEqualTo(COMPATIBLE);
      assertThat(Conditions.M3.decide(add, trim, NONE)).isEqualTo(COMPATIBLE);
    }

    @Test
    void sameMemWalIsIncompatibleDifferentRegionsAreNot() {
      Transaction a = updateMemWalState(List.of(memWal("r1", 1)), List.of());
      Transaction b = updateMemWalState(List.of(), List.of(memWal("r1", 1)));
      Transaction c = updateMemWalState(List.of(memWal("r2", 1)), List.of());
      assertThat(Conditions.M3.decide(a, b, NONE)).isEqualTo(INCOMPATIBLE);
      assertThat(Conditions.M3.decide(a, c, NONE)).isEqualTo(COMPATIBLE);
    }

    @Test
    void newLayoutWithUnknownFieldsRetries() {
      Transaction a = updateMemWalState(List.of(memWal("r1", 1)), List.of());
      Transaction.UpdateMemWalState newLayout = Transaction.UpdateMemWalState.newBuilder()
          .addAddedOrCompactedSstables(memWal("r1", 1))
          .setUnknownFields(UnknownFieldSet.newBuilder()
              .addField(2, UnknownFieldSet.Field.newBuilder().addVarint(1).build()).build())
          .build();
      Transaction b = Txns.base().setUpdateMemWalState(newLayout).build();
      assertThat(Conditions.M3.decide(a, b, NONE)).isEqualTo(RETRYABLE);
    }
  }

  @Nested
  class BasePathsB1 {
    @Test
    void sameIdNameOrPathIsIncompatible() {
      Transaction ours = updateBases(basePath(3, "hot", "s3://a"));
      assertThat(Conditions.B1.decide(ours, updateBases(basePath(3, "cold", "s3://b")), NONE)).isEqualTo(INCOMPATIBLE);
      assertThat(Conditions.B1.decide(ours, updateBases(basePath(4, "hot", "s3://b")), NONE)).isEqualTo(INCOMPATIBLE);
      assertThat(Conditions.B1.evaluate(ours, updateBases(basePath(4, "cold", "s3://a")), NONE).detail())
          .isEqualTo("both add base path s3://a");
    }

    @Test
    void zeroIdsAndMissingNamesDoNotCollide() {
      Transaction ours = updateBases(basePath(0, null, "s3://a"));
      assertThat(Conditions.B1.decide(ours, updateBases(basePath(0, null, "s3://b")), NONE)).isEqualTo(COMPATIBLE);
      assertThat(Conditions.B1.decide(updateBases(basePath(1, "x", "s3://a")), updateBases(basePath(2, "y", "s3://b")),
          NONE)).isEqualTo(COMPATIBLE);
    }
  }
}
