package dev.lancecommit.rules;

import com.google.protobuf.ByteString;
import java.nio.ByteBuffer;
import java.util.UUID;

/** Index uuids: 16 raw bytes in RFC byte order. */
final class Uuids {
  private Uuids() {}

  static String format(ByteString bytes) {
    if (bytes.size() != 16) {
      return "<" + bytes.size() + "-byte uuid>";
    }
    ByteBuffer buffer = bytes.asReadOnlyByteBuffer();
    return new UUID(buffer.getLong(), buffer.getLong()).toString();
  }

  static ByteString toBytes(UUID uuid) {
    ByteBuffer buffer = ByteBuffer.allocate(16);
    buffer.putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits());
    return ByteString.copyFrom(buffer.array());
  }
}
