package dev.lancecommit.rules;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import dev.lancecommit.format.pb.CompactedSsTable;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.MemWalIndexDetails;
import dev.lancecommit.format.pb.ShardedMemWalIndexDetails;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.MemWalFormat.Shape;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Telling the Nov-2025 and 2026 MemWAL messages apart by their wire shape. */
class MemWalFormatTest {
  private static final ByteString NOV = MemWalIndexDetails.MemWal.newBuilder()
      .setId(MemWalIndexDetails.MemWalId.newBuilder().setRegion("r1").setGeneration(3))
      .setMemTableLocation("mem/r1").build().toByteString();
  private static final ByteString LANCE = MemWalBuildTest.sstable(1, 4).toByteString();
  private static final ByteString BOTH = CompactedSsTable.newBuilder().setShardId(
      dev.lancecommit.format.pb.UUID.newBuilder().setUuid(ByteString.copyFromUtf8("0123456789abcdef"))).build()
      .toByteString();

  @Test
  void entriesAreReadByWireShape() {
    assertThat(MemWalFormat.entries(List.of()).shape()).isEqualTo(Shape.EMPTY);
    assertThat(MemWalFormat.entries(List.of(NOV)).shape()).isEqualTo(Shape.NOV_2025);
    assertThat(MemWalFormat.entries(List.of(LANCE)).shape()).isEqualTo(Shape.LANCE_2026);
    assertThat(MemWalFormat.entries(List.of(LANCE)).sstables()).containsExactly(MemWalBuildTest.sstable(1, 4));
    assertThat(MemWalFormat.entries(List.of(BOTH)).shape()).isEqualTo(Shape.EITHER);
    assertThat(MemWalFormat.entries(List.of(BOTH, LANCE)).shape()).isEqualTo(Shape.LANCE_2026);
    assertThat(MemWalFormat.entries(List.of(NOV, LANCE)).shape()).isEqualTo(Shape.NEITHER);
    assertThat(MemWalFormat.entries(List.of(ByteString.copyFrom(new byte[] {0x08, 0x01}))).problem())
        .contains("entry 0 is neither");
  }

  @Test
  void updateMemWalStateUsesEveryField() {
    Transaction.UpdateMemWalState trimOnly = Transaction.UpdateMemWalState.newBuilder()
        .addRemoved(MemWalIndexDetails.MemWal.getDefaultInstance()).build();
    assertThat(MemWalFormat.state(trimOnly).shape()).isEqualTo(Shape.NOV_2025);
    Transaction.UpdateMemWalState flag = Transaction.UpdateMemWalState.newBuilder()
        .addAddedOrCompactedSstables(BOTH)
        .setUnknownFields(UnknownFieldSet.newBuilder()
            .addField(2, UnknownFieldSet.Field.newBuilder().addVarint(1).build()).build()).build();
    assertThat(MemWalFormat.state(flag).shape()).isEqualTo(Shape.LANCE_2026);
    assertThat(MemWalFormat.as2026(flag).getRequireIndexCatchup()).isTrue();
    Transaction.UpdateMemWalState mixed = flag.toBuilder().addUpdated(NOV).build();
    assertThat(MemWalFormat.state(mixed).shape()).isEqualTo(Shape.NEITHER);
    Transaction.UpdateMemWalState strange = Transaction.UpdateMemWalState.newBuilder()
        .setUnknownFields(UnknownFieldSet.newBuilder()
            .addField(7, UnknownFieldSet.Field.newBuilder().addVarint(1).build()).build()).build();
    assertThat(MemWalFormat.state(strange).problem()).contains("field 7");
  }

  @Test
  void indexDetailsAreReadByWireShape() {
    assertThat(MemWalFormat.indexDetails(index(ByteString.EMPTY)).shape()).isEqualTo(Shape.EMPTY);
    assertThat(MemWalFormat.indexDetails(index(MemWalIndexDetails.newBuilder()
        .addMemWalList(MemWalIndexDetails.MemWal.newBuilder()
            .setId(MemWalIndexDetails.MemWalId.newBuilder().setRegion("r")))
        .build().toByteString())).shape()).isEqualTo(Shape.NOV_2025);
    assertThat(MemWalFormat.indexDetails(index(ShardedMemWalIndexDetails.newBuilder().setSnapshotTsMillis(5)
        .addCompactedSstables(MemWalBuildTest.sstable(2, 2)).build().toByteString())).sstables())
        .containsExactly(MemWalBuildTest.sstable(2, 2));
  }

  private static IndexMetadata index(ByteString details) {
    return IndexMetadata.newBuilder().setName("__lance_mem_wal")
        .setIndexDetails(Any.newBuilder().setTypeUrl("/lance.table.MemWalIndexDetails").setValue(details)).build();
  }
}
