package dev.lancecommit.coordinator.storage;

import java.util.Arrays;
import java.util.Objects;

/** The end of an object: its last {@code bytes.length} bytes and its whole size. */
public record ObjectTail(byte[] bytes, long size) {
  public ObjectTail {
    Objects.requireNonNull(bytes, "bytes");
    if (size < bytes.length) {
      throw new IllegalArgumentException("a tail of " + bytes.length + " bytes of an object of " + size);
    }
  }

  /** The tail of {@code whole}: its last {@code maxBytes} bytes (all of it when smaller). */
  public static ObjectTail of(byte[] whole, int maxBytes) {
    int start = Math.max(0, whole.length - maxBytes);
    return new ObjectTail(Arrays.copyOfRange(whole, start, whole.length), whole.length);
  }
}
