package dev.lancecommit.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.lancecommit.format.pb.EncodedU64Array;
import dev.lancecommit.format.pb.RowDatasetVersionSequence;
import dev.lancecommit.format.pb.RowIdSequence;
import dev.lancecommit.format.pb.U64Segment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

class RowIdsTest {
  @Test
  void freshSequenceIsOneRange() {
    RowIdSequence fresh = RowIds.freshSequence(100, 5);
    assertThat(fresh.getSegmentsList()).hasSize(1);
    assertThat(fresh.getSegments(0).getRange().getStart()).isEqualTo(100);
    assertThat(fresh.getSegments(0).getRange().getEnd()).isEqualTo(105);
    assertThat(RowIds.rowCount(fresh)).isEqualTo(5);
    assertThat(RowIds.rowIds(RowIds.parse(RowIds.encodeFresh(100, 5)))).containsExactly(100, 101, 102, 103, 104);
    assertThat(RowIds.rowIds(RowIds.freshSequence(7, 0))).isEmpty();
    assertThatThrownBy(() -> RowIds.freshSequence(-1, 3)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RowIds.freshSequence(Long.MAX_VALUE, 2)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void rangeWithHolesSkipsTheHoles() {
    U64Segment segment =
        U64Segment.newBuilder()
            .setRangeWithHoles(
                U64Segment.RangeWithHoles.newBuilder().setStart(10).setEnd(20).setHoles(u16(10, 2, 5)))
            .build();
    assertIds(segment, 10, 11, 13, 14, 16, 17, 18, 19);
  }

  @Test
  void rangeWithBitmapReadsBitsLeastSignificantFirst() {
    // byte 0 = 0b0000_0101 -> offsets 0 and 2; byte 1 = 0b0000_0010 -> offset 9
    U64Segment segment =
        U64Segment.newBuilder()
            .setRangeWithBitmap(
                U64Segment.RangeWithBitmap.newBuilder().setStart(50).setEnd(60)
                    .setBitmap(ByteString.copyFrom(new byte[] {0b0000_0101, 0b0000_0010})))
            .build();
    assertIds(segment, 50, 52, 59);
  }

  @Test
  void arraysOfEveryWidth() {
    assertIds(U64Segment.newBuilder().setSortedArray(u32(1000, 0, 7, 1 << 20)).build(), 1000, 1007, 1000 + (1 << 20));
    assertIds(U64Segment.newBuilder().setArray(u64(5, 3, 1L << 40)).build(), 5, 3, 1L << 40);
    assertIds(U64Segment.newBuilder().setArray(u16(65_000, 65_535, 0)).build(), 65_000 + 65_535, 65_000);
  }

  @Test
  void segmentsConcatenateInOrder() {
    RowIdSequence sequence =
        RowIdSequence.newBuilder()
            .addSegments(U64Segment.newBuilder().setRange(U64Segment.Range.newBuilder().setStart(0).setEnd(3)))
            .addSegments(U64Segment.newBuilder().setArray(u64(100, 50)))
            .addSegments(U64Segment.newBuilder().setRange(U64Segment.Range.newBuilder().setStart(7).setEnd(9)))
            .build();
    assertThat(RowIds.rowCount(sequence)).isEqualTo(7);
    assertThat(RowIds.rowIds(sequence)).containsExactly(0, 1, 2, 100, 50, 7, 8);
  }

  @Test
  void malformedSequencesAreClearErrors() {
    RowIdSequence backwards =
        RowIdSequence.newBuilder()
            .addSegments(U64Segment.newBuilder().setRange(U64Segment.Range.newBuilder().setStart(9).setEnd(3)))
            .build();
    assertThatThrownBy(() -> RowIds.rowCount(backwards))
        .isInstanceOf(CorruptManifestException.class)
        .hasMessageContaining("ends (3) before it starts (9)");

    EncodedU64Array odd =
        EncodedU64Array.newBuilder()
            .setU16Array(EncodedU64Array.U16Array.newBuilder().setOffsets(ByteString.copyFrom(new byte[3])))
            .build();
    assertThatThrownBy(() -> RowIds.rowCount(sequence(U64Segment.newBuilder().setArray(odd).build())))
        .isInstanceOf(CorruptManifestException.class)
        .hasMessageContaining("3 bytes");

    U64Segment shortBitmap =
        U64Segment.newBuilder()
            .setRangeWithBitmap(U64Segment.RangeWithBitmap.newBuilder().setStart(0).setEnd(20)
                .setBitmap(ByteString.copyFrom(new byte[2])))
            .build();
    assertThatThrownBy(() -> RowIds.rowIds(sequence(shortBitmap)))
        .isInstanceOf(CorruptManifestException.class)
        .hasMessageContaining("too short");

    assertThatThrownBy(() -> RowIds.rowCount(sequence(U64Segment.getDefaultInstance())))
        .isInstanceOf(CorruptManifestException.class);
    assertThatThrownBy(() -> RowIds.parse(ByteString.copyFrom(new byte[] {(byte) 0xFF, (byte) 0xFF})))
        .isInstanceOf(CorruptManifestException.class);
  }

  @Test
  void freshVersionsAreOneRunOverAllRows() {
    RowDatasetVersionSequence versions = RowIds.freshVersions(5, 7);
    assertThat(versions.getRunsList()).hasSize(1);
    assertThat(versions.getRuns(0).getVersion()).isEqualTo(7);
    assertThat(versions.getRuns(0).getSpan().getRange().getStart()).isZero();
    assertThat(versions.getRuns(0).getSpan().getRange().getEnd()).isEqualTo(5);
    assertThat(RowIds.rowCount(RowIds.parseVersions(RowIds.encodeFreshVersions(5, 7)))).isEqualTo(5);
    assertThat(RowIds.freshVersions(0, 7).getRunsList()).isEmpty();
  }

  private static void assertIds(U64Segment segment, long... expected) {
    RowIdSequence sequence = sequence(segment);
    assertThat(RowIds.rowCount(sequence)).isEqualTo(expected.length);
    assertThat(RowIds.rowIds(sequence)).containsExactly(expected);
    assertThat(RowIds.rowIds(RowIds.parse(sequence.toByteString()))).containsExactly(expected);
  }

  private static RowIdSequence sequence(U64Segment segment) {
    return RowIdSequence.newBuilder().addSegments(segment).build();
  }

  private static EncodedU64Array u16(long base, int... offsets) {
    ByteBuffer b = ByteBuffer.allocate(2 * offsets.length).order(ByteOrder.LITTLE_ENDIAN);
    for (int o : offsets) {
      b.putShort((short) o);
    }
    return EncodedU64Array.newBuilder()
        .setU16Array(EncodedU64Array.U16Array.newBuilder().setBase(base).setOffsets(ByteString.copyFrom(b.array())))
        .build();
  }

  private static EncodedU64Array u32(long base, int... offsets) {
    ByteBuffer b = ByteBuffer.allocate(4 * offsets.length).order(ByteOrder.LITTLE_ENDIAN);
    for (int o : offsets) {
      b.putInt(o);
    }
    return EncodedU64Array.newBuilder()
        .setU32Array(EncodedU64Array.U32Array.newBuilder().setBase(base).setOffsets(ByteString.copyFrom(b.array())))
        .build();
  }

  private static EncodedU64Array u64(long... values) {
    ByteBuffer b = ByteBuffer.allocate(8 * values.length).order(ByteOrder.LITTLE_ENDIAN);
    for (long v : values) {
      b.putLong(v);
    }
    return EncodedU64Array.newBuilder()
        .setU64Array(EncodedU64Array.U64Array.newBuilder().setValues(ByteString.copyFrom(b.array())))
        .build();
  }
}
