package dev.lancecommit.format.deletion;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.roaringbitmap.RoaringBitmap;

/**
 * The {@code .bin} deletion file: a 32-bit Roaring bitmap of deleted row offsets in the portable serialization
 * (the format roaring-rs, CRoaring and RoaringBitmap share). Written without run containers, which every reader
 * version understands; read with or without them.
 */
final class BitmapDeletionFiles {
  private BitmapDeletionFiles() {}

  static byte[] write(RoaringBitmap rows) {
    RoaringBitmap plain = rows.clone();
    plain.removeRunCompression();
    ByteArrayOutputStream out = new ByteArrayOutputStream(plain.serializedSizeInBytes());
    try (DataOutputStream data = new DataOutputStream(out)) {
      plain.serialize(data);
    } catch (IOException e) {
      throw new IllegalStateException("Serializing a Roaring bitmap in memory failed", e);
    }
    return out.toByteArray();
  }

  static RoaringBitmap read(byte[] bytes, String what) {
    RoaringBitmap rows = new RoaringBitmap();
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      rows.deserialize(in);
      if (in.available() > 0) {
        throw new CorruptDeletionFileException(
            what + " has " + in.available() + " bytes after its Roaring bitmap");
      }
    } catch (CorruptDeletionFileException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      throw new CorruptDeletionFileException(what + " is not a portable Roaring bitmap (" + e.getClass().getSimpleName()
          + ": " + e.getMessage() + ")", e);
    }
    if (!Boolean.TRUE.equals(rows.validate())) {
      throw new CorruptDeletionFileException(what + " decodes to an invalid Roaring bitmap (unsorted or"
          + " inconsistent containers)");
    }
    return rows;
  }
}
