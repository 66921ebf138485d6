package dev.lancecommit.rules;

import com.google.protobuf.ByteString;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import org.roaringbitmap.RoaringBitmap;

/**
 * {@code IndexMetadata.fragment_bitmap}: a portable 32-bit Roaring bitmap of fragment ids, where empty bytes mean
 * "unknown" (Rust {@code None}), which is different from a present, empty bitmap.
 */
final class FragmentBitmaps {
  private FragmentBitmaps() {}

  /** The bitmap, or null when the index did not record one. */
  static RoaringBitmap decode(ByteString bytes) {
    if (bytes.isEmpty()) {
      return null;
    }
    RoaringBitmap bitmap = new RoaringBitmap();
    try {
      bitmap.deserialize(ByteBuffer.wrap(bytes.toByteArray()));
    } catch (IOException | RuntimeException e) {
      throw new InvalidTransactionException("Index fragment_bitmap is not a valid Roaring bitmap", e);
    }
    return bitmap;
  }

  static ByteString encode(RoaringBitmap bitmap) {
    if (bitmap == null) {
      return ByteString.EMPTY;
    }
    RoaringBitmap copy = bitmap.clone();
    // Run containers are valid portable format, but older Rust readers only handle array/bitmap containers.
    copy.removeRunCompression();
    ByteArrayOutputStream out = new ByteArrayOutputStream(copy.serializedSizeInBytes());
    try (DataOutputStream data = new DataOutputStream(out)) {
      copy.serialize(data);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ByteString.copyFrom(out.toByteArray());
  }

  /** Fragment ids are u64 on the wire but u32 in every bitmap and row address. */
  static int toBitmapId(long fragmentId) {
    return (int) fragmentId;
  }
}
