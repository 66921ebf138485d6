package dev.lancecommit.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Dictionary;
import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.IndexSection;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.format.pb.UUID;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ManifestFileTest {
  /** Field 999, varint 42, then field 1000, length-delimited "future": fields no proto here declares. */
  private static final byte[] UNKNOWN = {(byte) 0xB8, 0x3E, 42, (byte) 0xC2, 0x3E, 6, 'f', 'u', 't', 'u', 'r', 'e'};

  @Test
  void sectionOffsetsPointAtTheLengthPrefixesOfTheBlocksWritten() {
    ManifestFile file = new ManifestFile(manifest(), List.of(index("a"), index("b")), Optional.of(transaction()));
    byte[] bytes = file.encode();
    ManifestFile decoded = ManifestFile.decode(bytes);

    int indexLength = IndexSection.newBuilder().addAllIndices(file.indices()).build().getSerializedSize();
    int txnLength = transaction().getSerializedSize();
    assertThat(decoded.manifest().getIndexSection()).isZero();
    assertThat(decoded.manifest().getTransactionSection()).isEqualTo(4 + indexLength);
    assertThat(u32(bytes, 0)).isEqualTo(indexLength);
    assertThat(u32(bytes, 4 + indexLength)).isEqualTo(txnLength);
    long manifestPos = footerPos(bytes);
    assertThat(manifestPos).isEqualTo(4 + indexLength + 4 + txnLength);
    assertThat(u32(bytes, (int) manifestPos)).isEqualTo(bytes.length - manifestPos - 4 - 16);
    assertThat(Arrays.copyOfRange(bytes, bytes.length - 8, bytes.length))
        .containsExactly(0, 0, 2, 0, 'L', 'A', 'N', 'C');

    assertThat(decoded.indices()).isEqualTo(file.indices());
    assertThat(decoded.transaction()).isEqualTo(file.transaction());
    assertThat(withoutOffsets(decoded.manifest())).isEqualTo(file.manifest());
    assertThat(ManifestFile.decode(decoded.encode())).isEqualTo(decoded);
    assertThat(decoded.encode()).isEqualTo(bytes);
  }

  @Test
  void absentSectionsClearStaleOffsets() {
    Manifest stale = manifest().toBuilder().setIndexSection(999).setTransactionSection(12345).build();
    byte[] bytes = new ManifestFile(stale, List.of(), Optional.empty()).encode();
    ManifestFile decoded = ManifestFile.decode(bytes);

    assertThat(decoded.manifest().hasIndexSection()).isFalse();
    assertThat(decoded.manifest().hasTransactionSection()).isFalse();
    assertThat(footerPos(bytes)).isZero();
    assertThat(decoded.indices()).isEmpty();
    assertThat(decoded.transaction()).isEmpty();
  }

  @Test
  void transactionOnlyStartsAtOffsetZeroAndIndicesOnlyHasNoTransactionOffset() {
    Manifest stale = manifest().toBuilder().setIndexSection(77).setTransactionSection(88).build();
    ManifestFile txnOnly =
        ManifestFile.decode(new ManifestFile(stale, List.of(), Optional.of(transaction())).encode());
    assertThat(txnOnly.manifest().hasIndexSection()).isFalse();
    assertThat(txnOnly.manifest().getTransactionSection()).isZero();

    ManifestFile indexOnly =
        ManifestFile.decode(new ManifestFile(stale, List.of(index("a")), Optional.empty()).encode());
    assertThat(indexOnly.manifest().getIndexSection()).isZero();
    assertThat(indexOnly.manifest().hasTransactionSection()).isFalse();
  }

  @Test
  void unknownFieldsInEveryMessageSurviveDecodeAndEncode() throws Exception {
    DataFragment fragment = DataFragment.parseFrom(concat(manifest().getFragments(0).toByteArray(), UNKNOWN));
    Manifest manifest =
        Manifest.parseFrom(
            concat(manifest().toBuilder().setFragments(0, fragment).build().toByteArray(), UNKNOWN));
    IndexMetadata index = IndexMetadata.parseFrom(concat(index("a").toByteArray(), UNKNOWN));
    Transaction txn = Transaction.parseFrom(concat(transaction().toByteArray(), UNKNOWN));
    byte[] section = concat(IndexSection.newBuilder().addIndices(index).build().toByteArray(), UNKNOWN);

    // the file assembled by hand: [section][transaction][manifest][footer]
    byte[] txnBytes = txn.toByteArray();
    Manifest withOffsets =
        manifest.toBuilder().setIndexSection(0).setTransactionSection(4 + section.length).build();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    writeBlock(out, section);
    writeBlock(out, txnBytes);
    long manifestPos = out.size();
    writeBlock(out, withOffsets.toByteArray());
    out.write(ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN)
        .putLong(manifestPos).putShort((short) 0).putShort((short) 2).put("LANC".getBytes()).array());
    byte[] handMade = out.toByteArray();

    ManifestFile decoded = ManifestFile.decode(handMade);
    assertThat(decoded.manifest().getUnknownFields().hasField(999)).isTrue();
    assertThat(decoded.manifest().getUnknownFields().hasField(1000)).isTrue();
    assertThat(decoded.manifest().getFragments(0).getUnknownFields().hasField(999)).isTrue();
    assertThat(decoded.indices().get(0).getUnknownFields().hasField(1000)).isTrue();
    assertThat(decoded.transaction().orElseThrow().getUnknownFields().hasField(999)).isTrue();
    assertThat(decoded.indexSectionUnknownFields().hasField(1000)).isTrue();

    byte[] reencoded = decoded.encode();
    assertThat(reencoded).isEqualTo(handMade);
    assertThat(ManifestFile.decode(reencoded)).isEqualTo(decoded);
  }

  @Test
  void indexSectionUnknownFieldsAloneStillWriteTheSection() {
    UnknownFieldSet extras =
        UnknownFieldSet.newBuilder()
            .addField(1000, UnknownFieldSet.Field.newBuilder().addVarint(5).build())
            .build();
    ManifestFile file = new ManifestFile(manifest(), List.of(), Optional.empty(), extras);
    ManifestFile decoded = ManifestFile.decode(file.encode());
    assertThat(decoded.manifest().getIndexSection()).isZero();
    assertThat(decoded.indexSectionUnknownFields()).isEqualTo(extras);
  }

  @Test
  void acceptsTheOlderFooterVersion() {
    byte[] bytes = new ManifestFile(manifest(), List.of(), Optional.of(transaction())).encode();
    bytes[bytes.length - 6] = 1; // minor 1, as Lance wrote before late 2025
    assertThat(ManifestFile.decode(bytes).transaction()).contains(transaction());
  }

  @Test
  void theTransactionPartIsWhatTheWholeDecodeSays() {
    Manifest withFile = manifest().toBuilder().setTransactionFile("2-" + transaction().getUuid() + ".txn").build();
    for (ManifestFile file : List.of(
        new ManifestFile(manifest(), List.of(index("a")), Optional.of(transaction())),
        new ManifestFile(withFile, List.of(), Optional.empty()),
        new ManifestFile(withFile, List.of(index("a"), index("b")), Optional.of(transaction())),
        new ManifestFile(manifest().toBuilder().setVersion(0).build(), List.of(), Optional.empty()))) {
      byte[] bytes = file.encode();
      ManifestFile whole = ManifestFile.decode(bytes);

      ManifestFile.TransactionPart part = ManifestFile.decodeTransactionPart(bytes);

      assertThat(part.version()).isEqualTo(whole.version());
      assertThat(part.transactionFile()).isEqualTo(whole.manifest().getTransactionFile());
      assertThat(part.transaction()).isEqualTo(whole.transaction());
    }
  }

  @Test
  void theTransactionPartChecksTheFramingAndTheFieldsItReads() {
    byte[] badMagic = validFile();
    badMagic[badMagic.length - 1] = 'D';
    assertThatThrownBy(() -> ManifestFile.decodeTransactionPart(badMagic))
        .isInstanceOf(CorruptManifestException.class).hasMessageContaining("magic number does not match");
    byte[] badOffset = fileWithRawManifest(manifest().toBuilder().setTransactionSection(0).build());
    assertThatThrownBy(() -> ManifestFile.decodeTransactionPart(badOffset))
        .isInstanceOf(CorruptManifestException.class).hasMessageContaining("transaction_section offset 0");
    byte[] bytes = fileWithUndecodableManifest();
    assertThatThrownBy(() -> ManifestFile.decodeTransactionPart(bytes))
        .isInstanceOf(CorruptManifestException.class).hasMessageContaining("Manifest message does not decode");
  }

  @Test
  void rejectsFilesShorterThanTheFooter() {
    assertThatThrownBy(() -> ManifestFile.decode(new byte[10]))
        .isInstanceOf(CorruptManifestException.class)
        .hasMessageContaining("smaller than the 16-byte footer");
  }

  @Test
  void rejectsAWrongMagic() {
    byte[] bytes = validFile();
    bytes[bytes.length - 1] = 'D';
    assertThatThrownBy(() -> ManifestFile.decode(bytes))
        .isInstanceOf(CorruptManifestException.class)
        .hasMessageContaining("magic number does not match");
  }

  @Test
  void rejectsAManifestPositionOutsideTheFile() {
    for (long pos : new long[] {-1, Long.MIN_VALUE, 1_000_000, 0x7FFF_FFFF_FFFF_FFFFL}) {
      byte[] bytes = validFile();
      ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putLong(bytes.length - 16, pos);
      assertThatThrownBy(() -> ManifestFile.decode(bytes))
          .isInstanceOf(CorruptManifestException.class)
          .hasMessageContaining("manifest_pos " + pos);
    }
  }

  @Test
  void rejectsAManifestLengthThatDoesNotMatch() {
    byte[] bytes = validFile();
    int pos = (int) footerPos(bytes);
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(pos, u32(bytes, pos) - 1);
    assertThatThrownBy(() -> ManifestFile.decode(bytes))
        .isInstanceOf(CorruptManifestException.class)
        .hasMessageContaining("manifest length does not match");
  }

  @Test
  void rejectsAManifestMessageThatDoesNotDecode() {
    byte[] bytes = fileWithUndecodableManifest();
    assertThatThrownBy(() -> ManifestFile.decode(bytes))
        .isInstanceOf(CorruptManifestException.class)
        .hasMessageContaining("Manifest message does not decode");
  }

  @Test
  void rejectsSectionOffsetsThatDoNotPointBeforeTheManifest() {
    for (long offset : new long[] {5_000, -1}) {
      byte[] bytes = fileWithRawManifest(manifest().toBuilder().setIndexSection(offset).build());
      assertThatThrownBy(() -> ManifestFile.decode(bytes))
          .isInstanceOf(CorruptManifestException.class)
          .hasMessageContaining("index_section offset " + Long.toUnsignedString(offset));
    }
    byte[] bytes = fileWithRawManifest(manifest().toBuilder().setTransactionSection(0).build());
    assertThatThrownBy(() -> ManifestFile.decode(bytes))
        .isInstanceOf(CorruptManifestException.class)
        .hasMessageContaining("transaction_section offset 0");
  }

  @Test
  void rejectsASectionRunningIntoTheManifest() {
    byte[] bytes = validFile(); // [txn block][manifest block][footer]
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(0, u32(bytes, 0) + 3);
    assertThatThrownBy(() -> ManifestFile.decode(bytes))
        .isInstanceOf(CorruptManifestException.class)
        .hasMessageContaining("runs past the manifest block");
  }

  @Test
  void refusesToRewriteDictionaryValuesStoredInALegacyManifest() {
    Manifest legacy =
        manifest().toBuilder()
            .addFields(Field.newBuilder().setName("d").setId(9).setParentId(-1)
                .setLogicalType("dict:string:int32:false")
                .setDictionary(Dictionary.newBuilder().setOffset(0).setLength(3)))
            .build();
    assertThatThrownBy(() -> new ManifestFile(legacy, List.of(), Optional.empty()).encode())
        .isInstanceOf(UnsupportedFeatureException.class)
        .hasMessageContaining("field 'd'");
  }

  private static byte[] validFile() {
    return new ManifestFile(manifest(), List.of(), Optional.of(transaction())).encode();
  }

  /** A file holding only a manifest block, with whatever offsets the given manifest has. */
  /** A well-framed file whose Manifest block is twelve 0xFF bytes. */
  private static byte[] fileWithUndecodableManifest() {
    byte[] garbage = new byte[12];
    Arrays.fill(garbage, (byte) 0xFF);
    return ByteBuffer.allocate(4 + garbage.length + 16).order(ByteOrder.LITTLE_ENDIAN)
        .putInt(garbage.length).put(garbage)
        .putLong(0).putShort((short) 0).putShort((short) 2).put("LANC".getBytes()).array();
  }

  private static byte[] fileWithRawManifest(Manifest manifest) {
    byte[] body = manifest.toByteArray();
    return ByteBuffer.allocate(4 + body.length + 16).order(ByteOrder.LITTLE_ENDIAN)
        .putInt(body.length).put(body)
        .putLong(0).putShort((short) 0).putShort((short) 2).put("LANC".getBytes()).array();
  }

  static Manifest manifest() {
    return Manifest.newBuilder()
        .addFields(Field.newBuilder().setName("id").setId(0).setParentId(-1).setLogicalType("int64"))
        .addFragments(
            DataFragment.newBuilder()
                .setId(0)
                .setPhysicalRows(10)
                .addFiles(DataFile.newBuilder().setPath("a.lance").addFields(0).addColumnIndices(0)
                    .setFileMajorVersion(2).setFileMinorVersion(1).setFileSizeBytes(100)))
        .setVersion(3)
        .setMaxFragmentId(0)
        .setWriterVersion(WriterVersions.coordinator())
        .setDataFormat(Manifest.DataStorageFormat.newBuilder().setFileFormat("lance").setVersion("2.1"))
        .putConfig("k", "v")
        .build();
  }

  static IndexMetadata index(String name) {
    return IndexMetadata.newBuilder()
        .setUuid(UUID.newBuilder().setUuid(ByteString.copyFrom(new byte[16])))
        .addFields(0)
        .setName(name)
        .setDatasetVersion(2)
        .setIndexVersion(0)
        .build();
  }

  static Transaction transaction() {
    return Transaction.newBuilder()
        .setReadVersion(2)
        .setUuid("0b6f0c44-5ad5-4a3a-a5f4-1c2f2d7f5e10")
        .setAppend(Transaction.Append.newBuilder().addFragments(DataFragment.newBuilder().setPhysicalRows(5)))
        .build();
  }

  private static Manifest withoutOffsets(Manifest m) {
    return m.toBuilder().clearIndexSection().clearTransactionSection().build();
  }

  private static int u32(byte[] bytes, int at) {
    return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getInt(at);
  }

  private static long footerPos(byte[] bytes) {
    return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong(bytes.length - 16);
  }

  private static void writeBlock(ByteArrayOutputStream out, byte[] message) {
    out.writeBytes(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(message.length).array());
    out.writeBytes(message);
  }

  static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
