package dev.lancecommit.format;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.FileDescriptor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What the end of a Lance data file says about it, read the way Lance's v2 file reader opens a file
 * ({@code rust/lance-file/src/reader.rs}, {@code read_all_metadata}): the 40-byte footer, the global buffer offset
 * table just before it, and global buffer 0, the {@code FileDescriptor} with the file's schema and row count.
 *
 * <p>Footer, little-endian: column metadata start (u64), column metadata offset table start (u64), global buffer
 * offset table start (u64), number of global buffers (u32), number of columns (u32), major (u16), minor (u16),
 * {@code "LANC"}. The offset table holds one (position u64, size u64) pair per global buffer. Files of format 2.0 and
 * later all share this layout; legacy files (0.1/0.2, footer major.minor 0.2) end in a different 16-byte footer and
 * are not read here.
 *
 * <p>Lance reads a block of the tail first (its block size: 64 KiB on object stores); the descriptor is almost
 * always inside it, so one ranged read of {@link #TAIL_BYTES} usually answers everything. When it is not (a schema
 * with thousands of fields), {@link #read} asks for the missing range once. Pure: the caller does the I/O.
 */
public final class DataFileFooter {
  /** Bytes of the fixed footer at the very end of the file. */
  public static final int FOOTER_BYTES = 40;
  /** How much of the tail to read first, as Lance does on object stores. */
  public static final int TAIL_BYTES = 64 * 1024;
  private static final byte[] MAGIC = "LANC".getBytes(StandardCharsets.US_ASCII);
  /** A descriptor larger than this is not a schema and a row count: refuse rather than read it. */
  private static final long MAX_DESCRIPTOR_BYTES = 64L * 1024 * 1024;

  /** Reads {@code length} bytes of the file from {@code offset}. */
  @FunctionalInterface
  public interface RangeReader {
    byte[] read(long offset, int length);
  }

  /**
   * What the footer and descriptor say.
   *
   * @param majorVersion file format version written in the footer (0.3 is Lance's spelling of 2.0)
   * @param numColumns columns the file stores
   * @param numRows rows the file holds
   * @param fieldIds ids of the fields of the schema the file was written with, in schema order (depth-first)
   * @param flat every field of that schema is top-level: then field i is stored in column i, whatever the version
   *     (2.0 gives every field a column, 2.1 and later every leaf, and a flat schema's fields are all leaves)
   */
  public record Summary(int majorVersion, int minorVersion, long numColumns, long numRows, List<Integer> fieldIds,
      boolean flat) {
    public String version() {
      return majorVersion + "." + minorVersion;
    }
  }

  private DataFileFooter() {}

  /** True for the (major, minor) a DataFile records for legacy files, whose footer is not the v2 one. */
  public static boolean isLegacy(int major, int minor) {
    return major == 0 && minor <= 2;
  }

  /**
   * Parses the end of a data file.
   *
   * @param tail the last {@code min(fileSize, n)} bytes of the file
   * @param fileSize the file's size
   * @param more reads a range the tail does not cover (called at most once)
   * @throws CorruptDataFileException when the bytes are not the end of a v2 Lance data file a reader can open
   */
  public static Summary read(byte[] tail, long fileSize, RangeReader more) {
    Objects.requireNonNull(tail, "tail");
    if (fileSize < FOOTER_BYTES || tail.length < FOOTER_BYTES) {
      throw new CorruptDataFileException("has " + fileSize + " bytes, fewer than a Lance file footer");
    }
    long tailStart = fileSize - tail.length;
    ByteBuffer footer = ByteBuffer.wrap(tail, tail.length - FOOTER_BYTES, FOOTER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    long columnMetaStart = footer.getLong();
    long columnMetaOffsetsStart = footer.getLong();
    long globalBufferOffsetsStart = footer.getLong();
    long numGlobalBuffers = Integer.toUnsignedLong(footer.getInt());
    long numColumns = Integer.toUnsignedLong(footer.getInt());
    int major = Short.toUnsignedInt(footer.getShort());
    int minor = Short.toUnsignedInt(footer.getShort());
    byte[] magic = new byte[4];
    footer.get(magic);
    if (!java.util.Arrays.equals(magic, MAGIC)) {
      throw new CorruptDataFileException("does not end in the Lance magic \"LANC\"");
    }
    if (isLegacy(major, minor)) {
      throw new CorruptDataFileException("is a legacy (" + major + "." + minor + ") Lance file, not a v2 one");
    }
    if (!knownVersion(major, minor)) {
      throw new CorruptDataFileException("has Lance file version " + major + "." + minor + ", which readers do not "
          + "know");
    }
    long footerStart = fileSize - FOOTER_BYTES;
    if (numGlobalBuffers == 0) {
      throw new CorruptDataFileException("has no global buffers (readers expect the schema in the first)");
    }
    long gboEnd = globalBufferOffsetsStart + 16 * numGlobalBuffers;
    if (globalBufferOffsetsStart < 0 || gboEnd > footerStart || columnMetaStart < 0
        || columnMetaStart > columnMetaOffsetsStart || columnMetaOffsetsStart > globalBufferOffsetsStart
        || columnMetaOffsetsStart + 16 * numColumns > globalBufferOffsetsStart) {
      throw new CorruptDataFileException("has a footer whose offsets do not fit the file (" + fileSize + " bytes)");
    }
    ByteBuffer gbo = slice(tail, tailStart, globalBufferOffsetsStart, 16, more);
    long descriptorPosition = gbo.getLong();
    long descriptorSize = gbo.getLong();
    if (descriptorPosition < 0 || descriptorSize <= 0 || descriptorSize > MAX_DESCRIPTOR_BYTES
        || descriptorPosition + descriptorSize > footerStart) {
      throw new CorruptDataFileException("has a file descriptor at " + descriptorPosition + "+" + descriptorSize
          + " that does not fit the file");
    }
    ByteBuffer bytes = slice(tail, tailStart, descriptorPosition, (int) descriptorSize, more);
    FileDescriptor descriptor;
    try {
      descriptor = FileDescriptor.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptDataFileException("has an unreadable file descriptor: " + e.getMessage());
    }
    if (!descriptor.hasSchema() || descriptor.getSchema().getFieldsCount() == 0) {
      throw new CorruptDataFileException("has a file descriptor without a schema");
    }
    List<Integer> fieldIds = new ArrayList<>();
    boolean flat = true;
    for (Field field : descriptor.getSchema().getFieldsList()) {
      fieldIds.add(field.getId());
      flat &= field.getParentId() == -1;
    }
    return new Summary(major, minor, numColumns, descriptor.getLength(), List.copyOf(fieldIds), flat);
  }

  private static boolean knownVersion(int major, int minor) {
    return (major == 0 && minor == 3) || (major == 2 && minor <= 3);
  }

  /** {@code length} bytes at {@code position}: from the tail when it covers them, else read once more. */
  private static ByteBuffer slice(byte[] tail, long tailStart, long position, int length, RangeReader more) {
    if (position >= tailStart) {
      return ByteBuffer.wrap(tail, (int) (position - tailStart), length).slice().order(ByteOrder.LITTLE_ENDIAN);
    }
    byte[] read = more.read(position, length);
    if (read == null || read.length != length) {
      throw new CorruptDataFileException("ended before the " + length + " bytes at " + position + " the footer names");
    }
    return ByteBuffer.wrap(read).order(ByteOrder.LITTLE_ENDIAN);
  }

  /** The bytes are not what a Lance reader can open; messages continue "Data file X ...". */
  public static final class CorruptDataFileException extends RuntimeException {
    public CorruptDataFileException(String message) {
      super(message);
    }
  }
}
