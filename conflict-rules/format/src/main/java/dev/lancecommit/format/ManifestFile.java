package dev.lancecommit.format;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnknownFieldSet;
import com.google.protobuf.WireFormat;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.IndexSection;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The content of one {@code _versions/*.manifest} file and its byte-layout codec (lance-format.md section 1.1):
 *
 * <pre>
 * [u32 LE len][IndexSection]   only when there are indices; Manifest.index_section = offset of that u32
 * [u32 LE len][Transaction]    only when inline;             Manifest.transaction_section = offset of that u32
 * [u32 LE len][Manifest]       always;                       footer manifest_pos = offset of that u32
 * [i64 LE manifest_pos][i16 LE 0][i16 LE 2]["LANC"]
 * </pre>
 *
 * <p>{@link #decode} keeps the section offsets found in the file; {@link #encode} ignores the offsets in
 * {@link #manifest()} and writes the ones of the layout it produces, clearing an offset whose section it does not
 * write. Protobuf unknown fields survive decode and encode in every message, including the IndexSection wrapper
 * (kept in {@link #indexSectionUnknownFields()}). Pure bytes in, bytes out.
 */
public record ManifestFile(
    Manifest manifest,
    List<IndexMetadata> indices,
    Optional<Transaction> transaction,
    UnknownFieldSet indexSectionUnknownFields) {

  /** The four bytes every manifest file ends with. */
  public static final String MAGIC = "LANC";
  /** Footer size: i64 manifest_pos, i16 major, i16 minor, magic. */
  public static final int FOOTER_LENGTH = 16;
  /** Footer format version written by Lance since late 2025 (readers ignore it). */
  public static final short FOOTER_MAJOR = 0;
  public static final short FOOTER_MINOR = 2;

  private static final byte[] MAGIC_BYTES = MAGIC.getBytes(StandardCharsets.US_ASCII);
  private static final int LENGTH_PREFIX = 4;

  public ManifestFile {
    Objects.requireNonNull(manifest, "manifest");
    indices = List.copyOf(indices);
    Objects.requireNonNull(transaction, "transaction");
    Objects.requireNonNull(indexSectionUnknownFields, "indexSectionUnknownFields");
  }

  public ManifestFile(Manifest manifest, List<IndexMetadata> indices, Optional<Transaction> transaction) {
    this(manifest, indices, transaction, UnknownFieldSet.getDefaultInstance());
  }

  public static ManifestFile of(TableState state, Optional<Transaction> transaction) {
    return new ManifestFile(state.manifest(), state.indices(), transaction);
  }

  public TableState tableState() {
    return new TableState(manifest, indices);
  }

  public long version() {
    return manifest.getVersion();
  }

  /**
   * Reads a whole manifest file the way Lance does ({@code read_manifest} + {@code read_manifest_indexes}): checks
   * the magic, finds the manifest block through the footer, checks its length prefix, then reads the IndexSection
   * and the inline Transaction through their offsets. A transaction that lives only in {@code _transactions/}
   * (manifest.transaction_file) is not read here: {@link #transaction()} is then empty. Feature flags are not
   * checked here (step 5 of the reader algorithm): call {@link FeatureFlags#ensureReadable} /
   * {@link FeatureFlags#ensureWritable} on the result.
   *
   * @throws CorruptManifestException if the bytes are not a well-formed manifest file
   */
  public static ManifestFile decode(byte[] file) {
    Objects.requireNonNull(file, "file");
    Block manifestBlock = manifestBlock(file);
    long manifestPos = manifestBlock.offset() - LENGTH_PREFIX;
    Manifest manifest;
    try {
      manifest =
          Manifest.parser().parseFrom(file, manifestBlock.offset(), manifestBlock.length());
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptManifestException(
          "Invalid manifest file: the Manifest message does not decode: " + e.getMessage(), e);
    }

    List<IndexMetadata> indices = List.of();
    UnknownFieldSet sectionUnknown = UnknownFieldSet.getDefaultInstance();
    if (manifest.hasIndexSection()) {
      IndexSection section;
      try {
        Block b = block(file, manifest.getIndexSection(), manifestPos, "index_section");
        section = IndexSection.parser().parseFrom(file, b.offset(), b.length());
      } catch (InvalidProtocolBufferException e) {
        throw new CorruptManifestException(
            "Invalid manifest file: the IndexSection does not decode: " + e.getMessage(), e);
      }
      indices = section.getIndicesList();
      sectionUnknown = section.getUnknownFields();
    }
    Optional<Transaction> transaction = Optional.empty();
    if (manifest.hasTransactionSection()) {
      try {
        Block b = block(file, manifest.getTransactionSection(), manifestPos, "transaction_section");
        transaction = Optional.of(Transaction.parser().parseFrom(file, b.offset(), b.length()));
      } catch (InvalidProtocolBufferException e) {
        throw new CorruptManifestException(
            "Invalid manifest file: the inline Transaction does not decode: " + e.getMessage(), e);
      }
    }
    return new ManifestFile(manifest, indices, transaction, sectionUnknown);
  }

  /**
   * What a manifest file says about the transaction that made it: its version, the {@code _transactions/} file it
   * names (empty for none) and its inline copy.
   */
  public record TransactionPart(long version, String transactionFile, Optional<Transaction> transaction) {}

  /**
   * Reads only the version, {@code transaction_file} and the inline transaction of a manifest file, skipping
   * everything else (fragments, schema, indices) without decoding it: the cost does not grow with the table. The
   * file's framing is checked as by {@link #decode}; the skipped fields are not.
   *
   * @throws CorruptManifestException if the framing or the fields read are not well formed
   */
  public static TransactionPart decodeTransactionPart(byte[] file) {
    Objects.requireNonNull(file, "file");
    Block manifestBlock = manifestBlock(file);
    long version = 0;
    String transactionFile = "";
    Long transactionSection = null;
    try {
      CodedInputStream in = CodedInputStream.newInstance(file, manifestBlock.offset(), manifestBlock.length());
      for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
        switch (WireFormat.getTagFieldNumber(tag)) {
          case Manifest.VERSION_FIELD_NUMBER -> version = in.readUInt64();
          case Manifest.TRANSACTION_FILE_FIELD_NUMBER -> transactionFile = in.readStringRequireUtf8();
          case Manifest.TRANSACTION_SECTION_FIELD_NUMBER -> transactionSection = in.readUInt64();
          default -> in.skipField(tag);
        }
      }
    } catch (IOException e) {
      throw new CorruptManifestException(
          "Invalid manifest file: the Manifest message does not decode: " + e.getMessage(), e);
    }
    Optional<Transaction> transaction = Optional.empty();
    if (transactionSection != null) {
      try {
        Block b = block(file, transactionSection, manifestBlock.offset() - LENGTH_PREFIX, "transaction_section");
        transaction = Optional.of(Transaction.parser().parseFrom(file, b.offset(), b.length()));
      } catch (InvalidProtocolBufferException e) {
        throw new CorruptManifestException(
            "Invalid manifest file: the inline Transaction does not decode: " + e.getMessage(), e);
      }
    }
    return new TransactionPart(version, transactionFile, transaction);
  }

  /** Checks the magic, the footer and the manifest block's length prefix; the Manifest message's bytes. */
  private static Block manifestBlock(byte[] file) {
    long size = file.length;
    if (size < FOOTER_LENGTH) {
      throw new CorruptManifestException(
          "Invalid manifest file: " + size + " bytes, smaller than the " + FOOTER_LENGTH + "-byte footer");
    }
    if (!endsWithMagic(file)) {
      throw new CorruptManifestException("Invalid manifest file: magic number does not match (expected \"LANC\")");
    }
    ByteBuffer buf = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
    long manifestPos = buf.getLong(file.length - FOOTER_LENGTH);
    long manifestEnd = size - FOOTER_LENGTH;
    if (manifestPos < 0 || manifestPos > manifestEnd - LENGTH_PREFIX) {
      throw new CorruptManifestException(
          "Invalid manifest file: manifest_pos " + manifestPos + " lies outside the " + size + "-byte file");
    }
    long recordedLength = Integer.toUnsignedLong(buf.getInt((int) manifestPos));
    long actualLength = manifestEnd - manifestPos - LENGTH_PREFIX;
    if (recordedLength != actualLength) {
      throw new CorruptManifestException(
          "Invalid manifest file: manifest length does not match. Expected "
              + recordedLength
              + ", got "
              + actualLength);
    }
    return new Block((int) manifestPos + LENGTH_PREFIX, (int) actualLength);
  }

  /**
   * Writes [IndexSection if any indices][Transaction if present][Manifest][footer] from offset 0. The written manifest
   * carries index_section / transaction_section pointing at the length prefixes of the blocks written here, and
   * neither of them when its block is absent (offsets in {@link #manifest()} are never carried over).
   *
   * @throws UnsupportedFeatureException for a legacy (0.1) manifest whose dictionary values live in the manifest
   *     file itself: rewriting the file would drop them
   */
  public byte[] encode() {
    return encode(null);
  }

  /**
   * {@link #encode()} with the manifest's fragments already encoded ({@code fragments}, for this manifest's very
   * fragment list; null: encoded here). The file is byte for byte the same: a Manifest message is its fields in field
   * number order and then its unknown fields, so the message is written as its schema fields (1), the fragments (2)
   * and the rest.
   */
  public byte[] encode(EncodedFragments fragments) {
    if (fragments != null && !fragments.encodes(manifest.getFragmentsList())) {
      throw new IllegalArgumentException("The encoded fragments are not this manifest's");
    }
    refuseInlineDictionaries(manifest);
    byte[] sectionBytes = null;
    if (!indices.isEmpty() || indexSectionUnknownFields.asMap().size() > 0) {
      sectionBytes =
          IndexSection.newBuilder()
              .addAllIndices(indices)
              .setUnknownFields(indexSectionUnknownFields)
              .build()
              .toByteArray();
    }
    byte[] transactionBytes = transaction.map(Transaction::toByteArray).orElse(null);

    Manifest.Builder written = manifest.toBuilder().clearIndexSection().clearTransactionSection();
    long offset = 0;
    if (sectionBytes != null) {
      written.setIndexSection(offset);
      offset += LENGTH_PREFIX + sectionBytes.length;
    }
    if (transactionBytes != null) {
      written.setTransactionSection(offset);
      offset += LENGTH_PREFIX + transactionBytes.length;
    }
    // With the fragments already encoded the Manifest message is written as its schema fields (1), the fragments (2)
    // and the rest, the fragments straight into the file: one array for the whole file.
    byte[] manifestBytes = fragments == null ? written.build().toByteArray() : null;
    byte[] schema = null;
    byte[] rest = null;
    long manifestLength;
    if (fragments == null) {
      manifestLength = manifestBytes.length;
    } else {
      schema = Manifest.newBuilder().addAllFields(written.getFieldsList()).build().toByteArray();
      rest = written.clearFields().clearFragments().build().toByteArray();
      manifestLength = (long) schema.length + fragments.size() + rest.length;
    }
    long manifestPos = offset;
    long total = manifestPos + LENGTH_PREFIX + manifestLength + FOOTER_LENGTH;
    if (total > Integer.MAX_VALUE - 8) {
      throw new IllegalStateException("manifest file would be " + total + " bytes, too large to hold in memory");
    }

    ByteBuffer out = ByteBuffer.allocate((int) total).order(ByteOrder.LITTLE_ENDIAN);
    if (sectionBytes != null) {
      out.putInt(sectionBytes.length).put(sectionBytes);
    }
    if (transactionBytes != null) {
      out.putInt(transactionBytes.length).put(transactionBytes);
    }
    out.putInt((int) manifestLength);
    if (fragments == null) {
      out.put(manifestBytes);
    } else {
      out.put(schema);
      fragments.writeTo(out.array(), out.position());
      out.position(out.position() + fragments.size());
      out.put(rest);
    }
    out.putLong(manifestPos).putShort(FOOTER_MAJOR).putShort(FOOTER_MINOR).put(MAGIC_BYTES);
    return out.array();
  }

  private static boolean endsWithMagic(byte[] file) {
    for (int i = 0; i < MAGIC_BYTES.length; i++) {
      if (file[file.length - MAGIC_BYTES.length + i] != MAGIC_BYTES[i]) {
        return false;
      }
    }
    return true;
  }

  /** The message bytes of the length-prefixed block at {@code pos}, which must end before the manifest block. */
  private record Block(int offset, int length) {}

  private static Block block(byte[] file, long pos, long manifestPos, String field) {
    // pos is a protobuf uint64: a value with bit 63 set reads as negative here and is rejected the same way.
    if (pos < 0 || pos > manifestPos - LENGTH_PREFIX) {
      throw new CorruptManifestException(
          "Invalid manifest file: " + field + " offset " + Long.toUnsignedString(pos)
              + " does not point before the manifest block at " + manifestPos);
    }
    long length = Integer.toUnsignedLong(ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN).getInt((int) pos));
    if (pos + LENGTH_PREFIX + length > manifestPos) {
      throw new CorruptManifestException(
          "Invalid manifest file: the " + length + "-byte block at " + field + " offset " + pos
              + " runs past the manifest block at " + manifestPos);
    }
    return new Block((int) pos + LENGTH_PREFIX, (int) length);
  }

  private static void refuseInlineDictionaries(Manifest manifest) {
    manifest.getFieldsList().stream()
        .filter(f -> f.hasDictionary() && f.getDictionary().getLength() != 0)
        .findFirst()
        .ifPresent(
            f -> {
              throw new UnsupportedFeatureException(
                  "field '" + f.getName() + "' (id " + f.getId() + ") keeps its dictionary values inside the"
                      + " manifest file (legacy 0.1 table); rewriting the manifest would lose them");
            });
  }
}
