package dev.lancecommit.chaos.differential;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

/** Lance row addresses ({@code fragment_id << 32 | offset}) and the wire form of CommitTable's affected_rows. */
public final class RowAddresses {
  private RowAddresses() {}

  public static long of(long fragmentId, long offset) {
    return fragmentId << 32 | offset;
  }

  /** The portable serialization of a 64-bit Roaring map, as {@code affected_rows} carries it. */
  public static byte[] portable(Roaring64NavigableMap rows) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      rows.serializePortable(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }
}
