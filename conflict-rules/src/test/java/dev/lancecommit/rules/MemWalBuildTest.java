package dev.lancecommit.rules;

import static dev.lancecommit.rules.Fixtures.ctx;
import static dev.lancecommit.rules.Fixtures.fragment;
import static dev.lancecommit.rules.Fixtures.newFragment;
import static dev.lancecommit.rules.Fixtures.scalarIndex;
import static dev.lancecommit.rules.Fixtures.table;
import static dev.lancecommit.rules.Fixtures.txn;
import static dev.lancecommit.rules.Fixtures.withIndices;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnknownFieldSet;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.CompactedSsTable;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.MemWalIndexDetails;
import dev.lancecommit.format.pb.ShardedMemWalIndexDetails;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.format.pb.UUID;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Building the next manifest for 2026 UpdateMemWalState and 2026 Update-with-compacted-SSTables. */
class MemWalBuildTest {
  private static final IndexMetadata ID_IDX = scalarIndex(1, "id_idx", 2, 0, 0, 1);

  static UUID shard(int n) {
    return UUID.newBuilder().setUuid(ByteString.copyFrom(ByteBuffer.allocate(16).putLong(0, n).putLong(8, n)))
        .build();
  }

  static CompactedSsTable sstable(int shard, long generation) {
    return CompactedSsTable.newBuilder().setShardId(shard(shard)).setGeneration(generation).build();
  }

  /** 2026 details with one recorded shard, sharding config, and a field this build does not know (99). */
  static ShardedMemWalIndexDetails details2026(CompactedSsTable... recorded) {
    return ShardedMemWalIndexDetails.newBuilder().setNumShards(2).addMaintainedIndexes("id_idx")
        .addAllCompactedSstables(List.of(recorded))
        .setUnknownFields(UnknownFieldSet.newBuilder()
            .addField(99, UnknownFieldSet.Field.newBuilder().addVarint(42).build()).build())
        .build();
  }

  static IndexMetadata memWalIndex(ByteString details) {
    return IndexMetadata.newBuilder().setName(IndexRetention.MEM_WAL_INDEX_NAME).setUuid(Fixtures.uuid(7))
        .setDatasetVersion(2)
        .setIndexDetails(Any.newBuilder().setTypeUrl("/lance.table.MemWalIndexDetails").setValue(details)).build();
  }

  static TableState table2026(CompactedSsTable... recorded) {
    return withIndices(table(3, 1, fragment(0, 5), fragment(1, 5)),
        memWalIndex(details2026(recorded).toByteString()), ID_IDX);
  }

  static Transaction compactState(long readVersion, CompactedSsTable... sstables) {
    Transaction.UpdateMemWalState.Builder state = Transaction.UpdateMemWalState.newBuilder();
    for (CompactedSsTable s : sstables) {
      state.addAddedOrCompactedSstables(s.toByteString());
    }
    return txn(readVersion).setUpdateMemWalState(state).build();
  }

  static ShardedMemWalIndexDetails detailsOf(IndexMetadata index) throws InvalidProtocolBufferException {
    return ShardedMemWalIndexDetails.parseFrom(index.getIndexDetails().getValue());
  }

  @Test
  void a2026StateAdvancesTheShardInPlaceAndCarriesEverythingElse() throws Exception {
    TableState current = table2026(sstable(1, 5));
    Transaction compact = compactState(3, sstable(1, 9), sstable(2, 1));

    TableState next = ManifestBuilder.build(current, compact, ctx(4));

    assertThat(next.manifest().getFragmentsList()).isEqualTo(current.manifest().getFragmentsList());
    assertThat(next.indices()).hasSize(2);
    assertThat(next.indices().get(1)).isEqualTo(ID_IDX);
    IndexMetadata memWal = next.indices().get(0);
    assertThat(memWal.getName()).isEqualTo(IndexRetention.MEM_WAL_INDEX_NAME);
    assertThat(memWal.getIndexDetails().getTypeUrl()).isEqualTo("/lance.table.MemWalIndexDetails");
    assertThat(memWal.getUuid()).isNotEqualTo(current.indices().get(0).getUuid());
    assertThat(memWal.getDatasetVersion()).isEqualTo(4);
    ShardedMemWalIndexDetails details = detailsOf(memWal);
    assertThat(details.getCompactedSstablesList()).containsExactly(sstable(1, 9), sstable(2, 1));
    assertThat(details.getNumShards()).isEqualTo(2);
    assertThat(details.getMaintainedIndexesList()).containsExactly("id_idx");
    assertThat(details.getUnknownFields().getField(99).getVarintList()).containsExactly(42L);
    assertThat(ManifestBuilder.build(current, compact, ctx(4))).isEqualTo(next);
  }

  @Test
  void staleOrDuplicateShardsAndAMissingIndexAreRefused() {
    TableState current = table2026(sstable(1, 5));
    assertThatThrownBy(() -> ManifestBuilder.build(current, compactState(3, sstable(1, 5)), ctx(4)))
        .isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining("proposed generation 5 is not greater than the recorded generation 5");
    assertThatThrownBy(() -> ManifestBuilder.build(current, compactState(3, sstable(2, 1), sstable(2, 2)), ctx(4)))
        .isInstanceOf(InvalidTransactionException.class).hasMessageContaining("Duplicate shard");
    TableState noIndex = table(3, 1, fragment(0, 5));
    assertThatThrownBy(() -> ManifestBuilder.build(noIndex, compactState(3, sstable(1, 1)), ctx(4)))
        .isInstanceOf(InvalidTransactionException.class).hasMessageContaining("does not exist");
  }

  @Test
  void theRetiredCatchUpFlagIsRefused() throws Exception {
    TableState current = table2026(sstable(1, 5));
    Transaction.UpdateMemWalState on = Transaction.UpdateMemWalState.parseFrom(
        Transaction.UpdateMemWalState2026.newBuilder().addCompactedSstables(sstable(1, 6)).setRequireIndexCatchup(true)
            .build().toByteString());
    assertThatThrownBy(() -> ManifestBuilder.build(current, txn(3).setUpdateMemWalState(on).build(), ctx(4)))
        .isInstanceOf(UnsupportedOperationTypeException.class).hasMessageContaining("require_index_catchup");
    Transaction.UpdateMemWalState off = Transaction.UpdateMemWalState.parseFrom(
        Transaction.UpdateMemWalState2026.newBuilder().setRequireIndexCatchup(false).build().toByteString());
    assertThatThrownBy(() -> ManifestBuilder.build(current, txn(3).setUpdateMemWalState(off).build(), ctx(4)))
        .isInstanceOf(InvalidTransactionException.class).hasMessageContaining("require_index_catchup=false");
  }

  @Test
  void a2026UpdateAppliesItsRowsAndAdvancesTheShards() throws Exception {
    TableState current = table2026(sstable(1, 5));
    Transaction update = txn(3).setUpdate(Transaction.Update.newBuilder()
        .addRemovedFragmentIds(1).addNewFragments(newFragment("moved", 5))
        .addMemWalToMergeOrCompactedSstables(sstable(1, 8).toByteString())).build();

    TableState next = ManifestBuilder.build(current, update, ctx(4));

    assertThat(Fixtures.ids(next)).containsExactly(0L, 2L);
    assertThat(detailsOf(next.indices().get(0)).getCompactedSstablesList()).containsExactly(sstable(1, 8));
    assertThat(next.indices().get(0).getDatasetVersion()).isEqualTo(4);
  }

  @Test
  void generationsDoNotMixWithTheTableIndex() {
    IndexMetadata novIndex = memWalIndex(MemWalIndexDetails.newBuilder().addMemWalList(MemWalIndexDetails.MemWal
        .newBuilder().setId(MemWalIndexDetails.MemWalId.newBuilder().setRegion("a").setGeneration(1))
        .setMemTableLocation("mem/a")).build().toByteString());
    TableState novTable = withIndices(table(3, 0, fragment(0, 5)), novIndex);
    assertThatThrownBy(() -> ManifestBuilder.build(novTable, compactState(3, sstable(1, 1)), ctx(4)))
        .isInstanceOf(UnsupportedOperationTypeException.class).hasMessageContaining("not 2026");
    Transaction novState = txn(3).setUpdateMemWalState(Transaction.UpdateMemWalState.newBuilder()
        .addAddedOrCompactedSstables(MemWalIndexDetails.MemWal.newBuilder()
            .setId(MemWalIndexDetails.MemWalId.newBuilder().setRegion("b").setGeneration(1)).build().toByteString()))
        .build();
    assertThatThrownBy(() -> ManifestBuilder.build(table2026(), novState, ctx(4)))
        .isInstanceOf(UnsupportedOperationTypeException.class).hasMessageContaining("not Nov-2025");
  }

  /** A shard uuid that is 16 printable characters: also a Nov-2025 MemWal with that region and generation 0. */
  private static CompactedSsTable printableShard() {
    return CompactedSsTable.newBuilder()
        .setShardId(UUID.newBuilder().setUuid(ByteString.copyFromUtf8("shard-0123456789"))).build();
  }

  @Test
  void entriesThatFitBothGenerationsFollowTheTableIndexOrAreRefused() throws Exception {
    Transaction either = compactState(3, printableShard());
    TableState next = ManifestBuilder.build(table2026(sstable(1, 5)), either, ctx(4));
    assertThat(detailsOf(next.indices().get(0)).getCompactedSstablesList()).contains(printableShard());

    assertThatThrownBy(() -> ManifestBuilder.build(table(3, 0, fragment(0, 5)), either, ctx(4)))
        .isInstanceOf(UnsupportedOperationTypeException.class).hasMessageContaining("ambiguous");
  }

  @Test
  void anEmpty2026StateOnA2026TableChangesNothingButTheVersion() {
    TableState current = table2026(sstable(1, 5));
    TableState next = ManifestBuilder.build(current, compactState(3), ctx(4));
    assertThat(next.indices()).isEqualTo(current.indices());
    assertThat(next.manifest().getFragmentsList()).isEqualTo(current.manifest().getFragmentsList());
  }
}
