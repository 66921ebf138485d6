package dev.lancecommit.rules.conflict;

import static dev.lancecommit.rules.conflict.ConflictOutcome.Kind.COMPATIBLE;
import static dev.lancecommit.rules.conflict.ConflictOutcome.Kind.INCOMPATIBLE;
import static dev.lancecommit.rules.conflict.ConflictOutcome.Kind.RETRYABLE;
import static dev.lancecommit.rules.conflict.Txns.memWal;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import dev.lancecommit.format.pb.CompactedSsTable;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.MemWalIndexDetails;
import dev.lancecommit.format.pb.ShardedMemWalIndexDetails;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.format.pb.UUID;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** w1 w2 w3 (2026 MemWAL shard + generation) and the m/w cells' dispatch on the MemWAL generation. */
class MemWalShardConditionsTest {
  private static final RebaseInputs NONE = RebaseInputs.defaults();
  private static final String SHARD_A = "00000000-0000-000a-0000-00000000000a";

  static UUID shard(int n) {
    return UUID.newBuilder().setUuid(ByteString.copyFrom(ByteBuffer.allocate(16).putLong(0, n).putLong(8, n)))
        .build();
  }

  static CompactedSsTable sstable(int shard, long generation) {
    return CompactedSsTable.newBuilder().setShardId(shard(shard)).setGeneration(generation).build();
  }

  static Transaction compactState(CompactedSsTable... sstables) {
    Transaction.UpdateMemWalState.Builder state = Transaction.UpdateMemWalState.newBuilder();
    for (CompactedSsTable s : sstables) {
      state.addAddedOrCompactedSstables(s.toByteString());
    }
    return Txns.base().setUpdateMemWalState(state).build();
  }

  static Transaction compactingUpdate(CompactedSsTable... sstables) {
    return Txns.update(u -> {
      for (CompactedSsTable s : sstables) {
        u.addMemWalToMergeOrCompactedSstables(s.toByteString());
      }
    });
  }

  /** A Nov-2025 MemWal that is byte for byte a CompactedSsTable of generation 0: region of 16 ASCII characters. */
  static ByteString eitherEntry() {
    return MemWalIndexDetails.MemWal.newBuilder()
        .setId(MemWalIndexDetails.MemWalId.newBuilder().setRegion("region-0123456789".substring(0, 16))).build()
        .toByteString();
  }

  static Transaction createIndex(IndexMetadata index) {
    return Txns.base().setCreateIndex(Transaction.CreateIndex.newBuilder().addNewIndices(index)).build();
  }

  static IndexMetadata memWalIndex(ByteString details) {
    return IndexMetadata.newBuilder().setName(IndexRules.MEM_WAL).setUuid(shard(99))
        .setIndexDetails(Any.newBuilder().setTypeUrl("/lance.table.MemWalIndexDetails").setValue(details)).build();
  }

  private static ConflictOutcome check(Transaction ours, Transaction theirs) {
    return ConflictResolver.check(ours, theirs, 7, NONE);
  }

  @Nested
  class ShardAndGenerationW1 {
    @Test
    void sameShardCommittedGenerationAtOrAboveOursIsIncompatible() {
      ConflictOutcome higher = check(compactState(sstable(10, 5)), compactState(sstable(10, 9)));
      assertThat(higher.kind()).isEqualTo(INCOMPATIBLE);
      assertThat(higher.rule()).isEqualTo("w1");
      assertThat(higher.reason()).contains("shard " + SHARD_A).contains("committed generation 9")
          .contains("our generation 5");
      assertThat(check(compactState(sstable(10, 5)), compactState(sstable(10, 5))).kind()).isEqualTo(INCOMPATIBLE);
    }

    @Test
    void sameShardCommittedGenerationBelowOursRetries() {
      ConflictOutcome lower = check(compactState(sstable(10, 9)), compactState(sstable(10, 5)));
      assertThat(lower.kind()).isEqualTo(RETRYABLE);
      assertThat(lower.rule()).isEqualTo("w1");
      assertThat(lower.reason()).contains("shard " + SHARD_A).contains("committed generation 5")
          .contains("our generation 9");
    }

    @Test
    void differentShardsAreCompatible() {
      assertThat(check(compactState(sstable(1, 5)), compactState(sstable(2, 9))).kind()).isEqualTo(COMPATIBLE);
    }

    @Test
    void anIncompatibleShardWinsOverARetryableOne() {
      Transaction ours = compactState(sstable(1, 6), sstable(2, 8));
      Transaction theirs = compactState(sstable(1, 5), sstable(2, 10));
      assertThat(Conditions.W1.decide(ours, theirs, NONE)).isEqualTo(INCOMPATIBLE);
    }

    @Test
    void updateAndUpdateMemWalStateCompareTheirShardsBothWays() {
      assertThat(check(compactingUpdate(sstable(3, 4)), compactState(sstable(3, 4))).kind()).isEqualTo(INCOMPATIBLE);
      assertThat(check(compactingUpdate(sstable(3, 5)), compactState(sstable(3, 4))).kind()).isEqualTo(RETRYABLE);
      assertThat(check(compactingUpdate(sstable(3, 5)), compactState(sstable(4, 9))).kind()).isEqualTo(COMPATIBLE);
      assertThat(check(compactState(sstable(3, 4)), compactingUpdate(sstable(3, 7))).kind()).isEqualTo(INCOMPATIBLE);
      assertThat(check(compactState(sstable(3, 8)), compactingUpdate(sstable(3, 7))).kind()).isEqualTo(RETRYABLE);
    }

    @Test
    void a2026StateIsCompatibleWithAnUpdateThatCompactsNothing() {
      // Nov-2025 (m2) answered X here; 2026 Lance only compares shards.
      ConflictOutcome outcome = check(compactState(sstable(3, 4)), Txns.update(List.of()));
      assertThat(outcome.kind()).isEqualTo(COMPATIBLE);
      assertThat(check(Txns.update(List.of()), compactState(sstable(3, 4))).kind()).isEqualTo(COMPATIBLE);
    }

    @Test
    void theV11BetaCatchUpFlagMarksA2026State() {
      Transaction flagged = Txns.base().setUpdateMemWalState(parse(Transaction.UpdateMemWalState2026.newBuilder()
          .setRequireIndexCatchup(true).build().toByteString())).build();
      // Read as 2026: no shards in common with the committed one, so C (Nov-2025 would never see this shape).
      assertThat(check(flagged, compactState(sstable(1, 1))).kind()).isEqualTo(COMPATIBLE);
      assertThat(check(flagged, Txns.update(List.of())).kind()).isEqualTo(COMPATIBLE);
    }
  }

  static Transaction.UpdateMemWalState parse(ByteString bytes) {
    try {
      return Transaction.UpdateMemWalState.parseFrom(bytes);
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
  }

  @Nested
  class DispatchByGeneration {
    @Test
    void nov2025EntriesStillGoToM1M2M3() {
      ConflictOutcome m1 = check(Txns.updateMerging(memWal("r1", 3)),
          Txns.updateMemWalState(List.of(memWal("r1", 3)), List.of()));
      assertThat(m1.kind()).isEqualTo(INCOMPATIBLE);
      assertThat(m1.rule()).isEqualTo("m1");
      ConflictOutcome m2 = check(Txns.updateMemWalState(List.of(memWal("r1", 1)), List.of()), Txns.update(List.of()));
      assertThat(m2.kind()).isEqualTo(INCOMPATIBLE);
      assertThat(m2.rule()).isEqualTo("m2");
      ConflictOutcome m3 = check(Txns.updateMemWalState(List.of(memWal("r1", 1)), List.of()),
          Txns.updateMemWalState(List.of(memWal("r2", 1)), List.of()));
      assertThat(m3.kind()).isEqualTo(COMPATIBLE);
    }

    @Test
    void sidesOfDifferentGenerationsRetry() {
      ConflictOutcome outcome = check(Txns.updateMerging(memWal("r1", 3)), compactState(sstable(1, 1)));
      assertThat(outcome.kind()).isEqualTo(RETRYABLE);
      assertThat(outcome.rule()).isEqualTo("m1/w1");
      assertThat(outcome.reason()).contains("Nov-2025").contains("2026");
    }

    @Test
    void entriesThatFitBothGenerationsRetryOnlyWhenTheGenerationsDisagree() {
      Transaction either = Txns.base().setUpdateMemWalState(Transaction.UpdateMemWalState.newBuilder()
          .addAddedOrCompactedSstables(eitherEntry())).build();
      // vs an Update merging nothing: Nov-2025 m2 says X, 2026 w1 says C -> R.
      ConflictOutcome disagree = check(either, Txns.update(List.of()));
      assertThat(disagree.kind()).isEqualTo(RETRYABLE);
      assertThat(disagree.reason()).contains("read as Nov-2025: X").contains("read as 2026: C");
      // vs another state on a different region / shard: both say C.
      Transaction other = generationZeroState();
      assertThat(check(either, other).kind()).isEqualTo(COMPATIBLE);
    }

    private Transaction generationZeroState() {
      return Txns.base().setUpdateMemWalState(Transaction.UpdateMemWalState.newBuilder()
          .addAddedOrCompactedSstables(ByteString.copyFrom(sstable(77, 0).toByteString().toByteArray()))).build();
    }

    @Test
    void unreadableEntriesRetry() {
      Transaction garbage = Txns.base().setUpdateMemWalState(Transaction.UpdateMemWalState.newBuilder()
          .addAddedOrCompactedSstables(ByteString.copyFrom(new byte[] {0x08, 0x01}))).build();
      ConflictOutcome outcome = check(compactingUpdate(sstable(1, 1)), garbage);
      assertThat(outcome.kind()).isEqualTo(RETRYABLE);
      assertThat(outcome.reason()).contains("cannot be read");
    }
  }

  @Nested
  class CreateIndexW2W3 {
    private final IndexMetadata lanceIndex = memWalIndex(ShardedMemWalIndexDetails.newBuilder().setNumShards(1)
        .addCompactedSstables(sstable(5, 10)).build().toByteString());

    @Test
    void aMemWalIndexCreationRetriesOverA2026StateAndOtherIndicesStayIncompatible() {
      ConflictOutcome memWal = check(createIndex(lanceIndex), compactState(sstable(5, 11)));
      assertThat(memWal.kind()).isEqualTo(RETRYABLE);
      assertThat(memWal.rule()).isEqualTo("w2");
      assertThat(memWal.reason()).contains("shard 00000000-0000-0005-0000-000000000005 generation 11");
      IndexMetadata btree = lanceIndex.toBuilder().setName("id_idx").build();
      assertThat(check(createIndex(btree), compactState(sstable(5, 11))).kind()).isEqualTo(INCOMPATIBLE);
      assertThat(check(createIndex(lanceIndex), Txns.updateMemWalState(List.of(memWal("r", 1)), List.of())).kind())
          .isEqualTo(INCOMPATIBLE);
    }

    @Test
    void a2026StateComparesShardsWithACommittedMemWalIndex() {
      ConflictOutcome stale = check(compactState(sstable(5, 10)), createIndex(lanceIndex));
      assertThat(stale.kind()).isEqualTo(INCOMPATIBLE);
      assertThat(stale.rule()).isEqualTo("w3");
      assertThat(stale.reason()).contains("committed generation 10 >= our generation 10");
      assertThat(check(compactState(sstable(5, 12)), createIndex(lanceIndex)).kind()).isEqualTo(RETRYABLE);
      assertThat(check(compactState(sstable(6, 1)), createIndex(lanceIndex)).kind()).isEqualTo(COMPATIBLE);
      IndexMetadata btree = lanceIndex.toBuilder().setName("id_idx").build();
      assertThat(check(compactState(sstable(5, 10)), createIndex(btree)).kind()).isEqualTo(COMPATIBLE);
    }

    @Test
    void nov2025StateAgainstANov2025IndexIsCompatible() throws Exception {
      IndexMetadata novIndex = memWalIndex(MemWalIndexDetails.newBuilder()
          .addMemWalList(MemWalIndexDetails.MemWal.parseFrom(memWal("r", 1))).build().toByteString());
      assertThat(check(Txns.updateMemWalState(List.of(memWal("r", 2)), List.of()), createIndex(novIndex)).kind())
          .isEqualTo(COMPATIBLE);
      // a 2026 state against a Nov-2025 index: different generations -> R
      assertThat(check(compactState(sstable(5, 10)), createIndex(novIndex)).kind()).isEqualTo(RETRYABLE);
    }
  }
}
