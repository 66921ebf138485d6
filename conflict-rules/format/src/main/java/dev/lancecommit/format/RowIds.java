package dev.lancecommit.format;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.lancecommit.format.pb.EncodedU64Array;
import dev.lancecommit.format.pb.RowDatasetVersionRun;
import dev.lancecommit.format.pb.RowDatasetVersionSequence;
import dev.lancecommit.format.pb.RowIdSequence;
import dev.lancecommit.format.pb.U64Segment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Stable row id helpers (lance-format.md sections 3.1 and 4.2, Lance {@code rust/lance-table/src/rowids/}). A
 * fragment of a table with stable row ids carries a serialized {@link RowIdSequence} in {@code inline_row_ids} and
 * serialized {@link RowDatasetVersionSequence}s in its created-at / last-updated-at version fields.
 *
 * <p>Segment semantics, as Lance reads them: {@code range} = [start, end); {@code range_with_holes} = [start, end)
 * minus the {@code holes} values; {@code range_with_bitmap} = the values start + i whose bit i is set, bit i being
 * {@code bitmap[i / 8] & (1 << (i % 8))} (least significant bit first, whatever the proto comment says);
 * {@code sorted_array} / {@code array} = the listed values, u16/u32 arrays as {@code base + offset}.
 */
public final class RowIds {
  /** Refuse to materialise more ids than a Java array can hold. */
  private static final long MAX_MATERIALISED = Integer.MAX_VALUE - 8;

  private RowIds() {}

  /** One {@code range} segment [start, start + count): the ids Lance assigns to a fresh fragment. */
  public static RowIdSequence freshSequence(long start, long count) {
    requireNonNegative(start, "start");
    requireNonNegative(count, "count");
    if (start + count < start) {
      throw new IllegalArgumentException("row id range [" + start + ", " + start + "+" + count + ") overflows");
    }
    return RowIdSequence.newBuilder()
        .addSegments(U64Segment.newBuilder().setRange(range(start, start + count)))
        .build();
  }

  /** {@link #freshSequence} serialized, ready for {@code DataFragment.inline_row_ids}. */
  public static ByteString encodeFresh(long start, long count) {
    return freshSequence(start, count).toByteString();
  }

  /** Decodes {@code DataFragment.inline_row_ids}. */
  public static RowIdSequence parse(ByteString inlineRowIds) {
    try {
      return RowIdSequence.parseFrom(inlineRowIds);
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptManifestException("inline row ids do not decode as a RowIdSequence: " + e.getMessage(), e);
    }
  }

  /** The number of row ids in the sequence, computed without materialising them. */
  public static long rowCount(RowIdSequence sequence) {
    long total = 0;
    for (U64Segment segment : sequence.getSegmentsList()) {
      total += segmentLength(segment);
    }
    return total;
  }

  /** Every row id of the sequence, in sequence order. */
  public static long[] rowIds(RowIdSequence sequence) {
    long count = rowCount(sequence);
    if (count > MAX_MATERIALISED) {
      throw new IllegalArgumentException("row id sequence of " + count + " ids is too large to materialise");
    }
    long[] ids = new long[(int) count];
    int at = 0;
    for (U64Segment segment : sequence.getSegmentsList()) {
      at = appendSegment(segment, ids, at);
    }
    return ids;
  }

  /** One run {span = range[0, rowCount), version}: the version metadata of a fresh fragment (empty for 0 rows). */
  public static RowDatasetVersionSequence freshVersions(long rowCount, long version) {
    requireNonNegative(rowCount, "rowCount");
    if (rowCount == 0) {
      return RowDatasetVersionSequence.getDefaultInstance();
    }
    return RowDatasetVersionSequence.newBuilder()
        .addRuns(
            RowDatasetVersionRun.newBuilder()
                .setSpan(U64Segment.newBuilder().setRange(range(0, rowCount)))
                .setVersion(version))
        .build();
  }

  /** {@link #freshVersions} serialized, ready for the inline created-at / last-updated-at fields. */
  public static ByteString encodeFreshVersions(long rowCount, long version) {
    return freshVersions(rowCount, version).toByteString();
  }

  /** Decodes an inline created-at / last-updated-at version sequence. */
  public static RowDatasetVersionSequence parseVersions(ByteString inline) {
    try {
      return RowDatasetVersionSequence.parseFrom(inline);
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptManifestException(
          "inline version metadata does not decode as a RowDatasetVersionSequence: " + e.getMessage(), e);
    }
  }

  /** The number of rows a version sequence covers (sum of its runs' span lengths). */
  public static long rowCount(RowDatasetVersionSequence sequence) {
    long total = 0;
    for (RowDatasetVersionRun run : sequence.getRunsList()) {
      total += segmentLength(run.getSpan());
    }
    return total;
  }

  private static long segmentLength(U64Segment segment) {
    return switch (segment.getSegmentCase()) {
      case RANGE -> span(segment.getRange().getStart(), segment.getRange().getEnd());
      case RANGE_WITH_HOLES -> {
        U64Segment.RangeWithHoles r = segment.getRangeWithHoles();
        long span = span(r.getStart(), r.getEnd());
        // Only distinct holes inside the range remove an id.
        long holes =
            Arrays.stream(arrayValues(r.getHoles()))
                .filter(h -> Long.compareUnsigned(h, r.getStart()) >= 0 && Long.compareUnsigned(h, r.getEnd()) < 0)
                .distinct()
                .count();
        yield span - holes;
      }
      case RANGE_WITH_BITMAP -> {
        U64Segment.RangeWithBitmap r = segment.getRangeWithBitmap();
        long span = span(r.getStart(), r.getEnd());
        ByteString bitmap = checkedBitmap(r, span);
        long ones = 0;
        for (long i = 0; i < span; i++) {
          if (bit(bitmap, i)) {
            ones++;
          }
        }
        yield ones;
      }
      case SORTED_ARRAY -> arrayLength(segment.getSortedArray());
      case ARRAY -> arrayLength(segment.getArray());
      case SEGMENT_NOT_SET -> throw new CorruptManifestException("row id segment has no known segment type");
    };
  }

  private static int appendSegment(U64Segment segment, long[] out, int at) {
    switch (segment.getSegmentCase()) {
      case RANGE -> {
        for (long v = segment.getRange().getStart(); v != segment.getRange().getEnd(); v++) {
          out[at++] = v;
        }
      }
      case RANGE_WITH_HOLES -> {
        U64Segment.RangeWithHoles r = segment.getRangeWithHoles();
        long[] holes = arrayValues(r.getHoles());
        Arrays.sort(holes);
        for (long v = r.getStart(); v != r.getEnd(); v++) {
          if (Arrays.binarySearch(holes, v) < 0) {
            out[at++] = v;
          }
        }
      }
      case RANGE_WITH_BITMAP -> {
        U64Segment.RangeWithBitmap r = segment.getRangeWithBitmap();
        long span = span(r.getStart(), r.getEnd());
        ByteString bitmap = checkedBitmap(r, span);
        for (long i = 0; i < span; i++) {
          if (bit(bitmap, i)) {
            out[at++] = r.getStart() + i;
          }
        }
      }
      case SORTED_ARRAY -> at = copy(arrayValues(segment.getSortedArray()), out, at);
      case ARRAY -> at = copy(arrayValues(segment.getArray()), out, at);
      case SEGMENT_NOT_SET -> throw new CorruptManifestException("row id segment has no known segment type");
    }
    return at;
  }

  private static long arrayLength(EncodedU64Array array) {
    return switch (array.getArrayCase()) {
      case U16_ARRAY -> checkedWidth(array.getU16Array().getOffsets(), 2) / 2;
      case U32_ARRAY -> checkedWidth(array.getU32Array().getOffsets(), 4) / 4;
      case U64_ARRAY -> checkedWidth(array.getU64Array().getValues(), 8) / 8;
      case ARRAY_NOT_SET -> throw new CorruptManifestException("encoded u64 array has no known encoding");
    };
  }

  private static long[] arrayValues(EncodedU64Array array) {
    int n = (int) arrayLength(array);
    long[] values = new long[n];
    switch (array.getArrayCase()) {
      case U16_ARRAY -> {
        ByteBuffer b = le(array.getU16Array().getOffsets());
        long base = array.getU16Array().getBase();
        for (int i = 0; i < n; i++) {
          values[i] = base + Short.toUnsignedLong(b.getShort());
        }
      }
      case U32_ARRAY -> {
        ByteBuffer b = le(array.getU32Array().getOffsets());
        long base = array.getU32Array().getBase();
        for (int i = 0; i < n; i++) {
          values[i] = base + Integer.toUnsignedLong(b.getInt());
        }
      }
      case U64_ARRAY -> {
        ByteBuffer b = le(array.getU64Array().getValues());
        for (int i = 0; i < n; i++) {
          values[i] = b.getLong();
        }
      }
      case ARRAY_NOT_SET -> throw new CorruptManifestException("encoded u64 array has no known encoding");
    }
    return values;
  }

  private static long checkedWidth(ByteString bytes, int width) {
    if (bytes.size() % width != 0) {
      throw new CorruptManifestException(
          "encoded u64 array of " + bytes.size() + " bytes is not a whole number of " + width + "-byte values");
    }
    return bytes.size();
  }

  private static ByteString checkedBitmap(U64Segment.RangeWithBitmap r, long span) {
    ByteString bitmap = r.getBitmap();
    if (bitmap.size() < (span + 7) / 8) {
      throw new CorruptManifestException(
          "row id bitmap of " + bitmap.size() + " bytes is too short for a range of " + span + " ids");
    }
    return bitmap;
  }

  private static boolean bit(ByteString bitmap, long i) {
    return (bitmap.byteAt((int) (i / 8)) & (1 << (i % 8))) != 0;
  }

  private static long span(long start, long end) {
    if (Long.compareUnsigned(end, start) < 0) {
      throw new CorruptManifestException(
          "row id range ends (" + Long.toUnsignedString(end) + ") before it starts ("
              + Long.toUnsignedString(start) + ")");
    }
    return end - start;
  }

  private static U64Segment.Range range(long start, long end) {
    return U64Segment.Range.newBuilder().setStart(start).setEnd(end).build();
  }

  private static ByteBuffer le(ByteString bytes) {
    return bytes.asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
  }

  private static int copy(long[] values, long[] out, int at) {
    System.arraycopy(values, 0, out, at, values.length);
    return at + values.length;
  }

  private static void requireNonNegative(long value, String name) {
    if (value < 0) {
      throw new IllegalArgumentException(name + " must not be negative, got " + value);
    }
  }
}
