package dev.lancecommit.format;

import static dev.lancecommit.format.LanceTables.list;
import static dev.lancecommit.format.LanceTables.open;
import static dev.lancecommit.format.LanceTables.read;
import static dev.lancecommit.format.LanceTables.write;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Timestamp;
import dev.lancecommit.format.ManifestNaming.ParsedName;
import dev.lancecommit.format.ManifestNaming.Scheme;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.RowIdSequence;
import dev.lancecommit.format.pb.Transaction;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.WriteParams.WriteMode;
import org.lance.index.Index;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.ScalarIndexParams;
import org.roaringbitmap.RoaringBitmap;

/**
 * The format codec against real tables written by Lance Java 7.0.0: every manifest and transaction file Lance
 * wrote must decode, re-encode to the same bytes, and agree with what Lance itself reports; a manifest written by
 * the codec must be opened and read by Lance.
 */
class LanceOracleTest {
  @TempDir static Path dir;
  static BufferAllocator allocator;
  /** V2 names: create, append, delete, btree index, config update, append. */
  static Path tableA;
  /** V1 names with stable row ids: create, append, delete. */
  static Path tableB;

  @BeforeAll
  static void writeTables() {
    allocator = new RootAllocator();
    tableA = dir.resolve("a.lance");
    write(allocator, tableA, WriteMode.CREATE, 0, 100);
    write(allocator, tableA, WriteMode.APPEND, 100, 50);
    try (Dataset ds = open(allocator, tableA)) {
      ds.delete("id < 10");
    }
    try (Dataset ds = open(allocator, tableA)) {
      createIdIndex(ds);
    }
    try (Dataset ds = open(allocator, tableA)) {
      ds.updateConfig(Map.of("lancecommit.oracle", "yes"));
    }
    write(allocator, tableA, WriteMode.APPEND, 150, 20);

    tableB = dir.resolve("b.lance");
    LanceTables.createV1WithStableRowIds(allocator, tableB, 0, 100);
    write(allocator, tableB, WriteMode.APPEND, 100, 30);
    try (Dataset ds = open(allocator, tableB)) {
      ds.delete("id >= 120");
    }
  }

  @AfterAll
  static void closeAllocator() {
    allocator.close();
  }

  @Test
  void everyManifestDecodesAndReencodesToTheSameBytes() {
    for (Path table : List.of(tableA, tableB)) {
      List<String> names = manifestNames(table);
      assertThat(names).hasSizeGreaterThanOrEqualTo(3);
      for (String name : names) {
        byte[] bytes = read(table.resolve("_versions").resolve(name));
        ManifestFile file = ManifestFile.decode(bytes);

        assertThat(ManifestNaming.parse(name)).map(ParsedName::version).contains(file.version());
        byte[] again = file.encode();
        assertThat(ManifestFile.decode(again)).isEqualTo(file);
        assertThat(Arrays.mismatch(again, bytes))
            .as("first byte where the re-encoded %s/%s differs from Lance's", table.getFileName(), name)
            .isEqualTo(-1);
        assertLayout(again, file);
      }
    }
  }

  @Test
  void inlineTransactionEqualsTheTxnFileAndWhatLanceReads() {
    for (Path table : List.of(tableA, tableB)) {
      for (String name : manifestNames(table)) {
        ManifestFile file = ManifestFile.decode(read(table.resolve("_versions").resolve(name)));
        Manifest manifest = file.manifest();
        assertThat(file.transaction()).as("inline transaction of %s", name).isPresent();
        Transaction inline = file.transaction().orElseThrow();

        String txnName = manifest.getTransactionFile();
        assertThat(TransactionFiles.fileName(inline)).isEqualTo(txnName);
        assertThat(TransactionFiles.parse(txnName))
            .contains(new TransactionFiles.ParsedName(inline.getReadVersion(), inline.getUuid()));
        byte[] txnBytes = read(table.resolve(TransactionFiles.TRANSACTIONS_DIR).resolve(txnName));
        assertThat(TransactionFiles.decode(txnBytes)).isEqualTo(inline);
        assertThat(Arrays.mismatch(TransactionFiles.encode(inline), txnBytes))
            .as("first differing byte of re-encoded %s", txnName)
            .isEqualTo(-1);

        try (Dataset ds = open(allocator, table);
            Dataset at = ds.checkoutVersion(manifest.getVersion())) {
          org.lance.Transaction lance = at.readTransaction().orElseThrow();
          assertThat(lance.uuid()).isEqualTo(inline.getUuid());
          assertThat(lance.readVersion()).isEqualTo(inline.getReadVersion());
          lance.close();
        }
      }
    }
  }

  @Test
  void indicesMatchWhatLanceReports() throws IOException {
    ManifestFile latest = latest(tableA);
    assertThat(latest.indices()).extracting(IndexMetadata::getName).containsExactly("id_idx");
    try (Dataset ds = open(allocator, tableA)) {
      List<Index> lance = ds.getIndexes();
      assertThat(lance).hasSize(1);
      Index expected = lance.get(0);
      IndexMetadata actual = latest.indices().get(0);
      ByteBuffer uuid = actual.getUuid().getUuid().asReadOnlyByteBuffer();
      assertThat(new UUID(uuid.getLong(), uuid.getLong())).isEqualTo(expected.uuid());
      assertThat(actual.getFieldsList()).isEqualTo(expected.fields());
      assertThat(actual.getDatasetVersion()).isEqualTo(expected.datasetVersion());
      RoaringBitmap bitmap = new RoaringBitmap();
      bitmap.deserialize(actual.getFragmentBitmap().asReadOnlyByteBuffer());
      assertThat(bitmap.stream().boxed().toList()).isEqualTo(expected.fragments().orElseThrow());
    }
  }

  @Test
  void featureFlagsRecomputeToWhatLanceWrote() {
    List<Long> readerFlagsSeen = new ArrayList<>();
    List<Long> writerFlagsSeen = new ArrayList<>();
    for (Path table : List.of(tableA, tableB)) {
      for (String name : manifestNames(table)) {
        Manifest manifest = ManifestFile.decode(read(table.resolve("_versions").resolve(name))).manifest();
        FeatureFlags.ensureReadable(manifest);
        FeatureFlags.ensureWritable(manifest);
        Manifest recomputed =
            FeatureFlags.apply(manifest.toBuilder().clearReaderFeatureFlags().clearWriterFeatureFlags(),
                    FeatureFlags.usesStableRowIds(manifest), true)
                .build();
        assertThat(recomputed.getReaderFeatureFlags()).as("reader flags of %s", name)
            .isEqualTo(manifest.getReaderFeatureFlags());
        assertThat(recomputed.getWriterFeatureFlags()).as("writer flags of %s", name)
            .isEqualTo(manifest.getWriterFeatureFlags());
        readerFlagsSeen.add(manifest.getReaderFeatureFlags());
        writerFlagsSeen.add(manifest.getWriterFeatureFlags());
      }
    }
    // the tables exercise deletion files, table config (writer only) and stable row ids
    assertThat(readerFlagsSeen).contains(FeatureFlags.DELETION_FILES,
        FeatureFlags.STABLE_ROW_IDS | FeatureFlags.DELETION_FILES);
    assertThat(writerFlagsSeen).contains(FeatureFlags.DELETION_FILES | FeatureFlags.TABLE_CONFIG);
  }

  @Test
  void namingOfRealVersionDirectories() {
    assertNaming(tableA, Scheme.V2);
    assertNaming(tableB, Scheme.V1);
  }

  @Test
  void stableRowIdsDecodeToWhatLanceReturns() {
    ManifestFile latest = latest(tableB);
    long expectedNext = 0;
    List<Long> liveIds = new ArrayList<>();
    long deleted = 0;
    for (DataFragment fragment : latest.manifest().getFragmentsList()) {
      RowIdSequence sequence = RowIds.parse(fragment.getInlineRowIds());
      assertThat(RowIds.rowCount(sequence)).isEqualTo(fragment.getPhysicalRows());
      assertThat(RowIds.rowIds(sequence))
          .containsExactly(LongStream.range(expectedNext, expectedNext + fragment.getPhysicalRows()).toArray());
      assertThat(RowIds.rowCount(RowIds.parseVersions(fragment.getInlineCreatedAtVersions())))
          .isEqualTo(fragment.getPhysicalRows());
      expectedNext += fragment.getPhysicalRows();
      for (long id : RowIds.rowIds(sequence)) {
        liveIds.add(id);
      }
      deleted += fragment.getDeletionFile().getNumDeletedRows();
    }
    assertThat(latest.manifest().getNextRowId()).isEqualTo(expectedNext);
    try (Dataset ds = open(allocator, tableB)) {
      List<Long> lanceRowIds = LanceTables.rowIds(ds);
      assertThat(liveIds).containsAll(lanceRowIds);
      assertThat(lanceRowIds).hasSize((int) (liveIds.size() - deleted));
    }
  }

  @Test
  void lanceReadsAManifestWrittenByTheCodec() {
    Path table = dir.resolve("c.lance");
    write(allocator, table, WriteMode.CREATE, 0, 40);
    write(allocator, table, WriteMode.APPEND, 40, 20);
    try (Dataset ds = open(allocator, table)) {
      createIdIndex(ds);
    }
    assertLanceReadsHandWrittenVersion(table);
  }

  @Test
  void lanceReadsAV1ManifestWithStableRowIdsWrittenByTheCodec() {
    Path table = dir.resolve("d.lance");
    LanceTables.createV1WithStableRowIds(allocator, table, 0, 25);
    write(allocator, table, WriteMode.APPEND, 25, 25);
    assertLanceReadsHandWrittenVersion(table);
    ManifestFile last = latest(table);
    // Lance assigned the appended fragment the row ids that follow our manifest's next_row_id
    DataFragment appended = last.manifest().getFragments(last.manifest().getFragmentsCount() - 1);
    assertThat(RowIds.rowIds(RowIds.parse(appended.getInlineRowIds())))
        .containsExactly(LongStream.range(50, 60).toArray());
  }

  /**
   * Commits version N+1 by hand (UpdateConfig setting table metadata), checks Lance reads it, then has Lance commit
   * N+2 on top and checks that one carries our change forward.
   */
  private static void assertLanceReadsHandWrittenVersion(Path table) {
    List<String> names = list(table.resolve("_versions"));
    Scheme scheme = ManifestNaming.schemeOf(names);
    long n = ManifestNaming.latest(names).orElseThrow();
    ManifestFile current = ManifestFile.decode(read(table.resolve(ManifestNaming.path(scheme, n))));
    List<Long> idsBefore;
    List<String> indexNamesBefore;
    try (Dataset ds = open(allocator, table)) {
      idsBefore = LanceTables.ids(ds);
      indexNamesBefore = ds.getIndexes().stream().map(Index::name).toList();
    }

    Transaction txn =
        Transaction.newBuilder()
            .setReadVersion(n)
            .setUuid(UUID.randomUUID().toString())
            .setUpdateConfig(
                Transaction.UpdateConfig.newBuilder()
                    .setTableMetadataUpdates(
                        Transaction.UpdateMap.newBuilder()
                            .addUpdateEntries(
                                Transaction.UpdateMapEntry.newBuilder().setKey("written-by").setValue("oracle"))))
            .build();
    Instant now = Instant.now();
    Manifest.Builder next =
        current.manifest().toBuilder()
            .setVersion(n + 1)
            .setTimestamp(Timestamp.newBuilder().setSeconds(now.getEpochSecond()).setNanos(now.getNano()))
            .setTransactionFile(TransactionFiles.fileName(txn))
            .setWriterVersion(WriterVersions.coordinator())
            .clearTag()
            .putTableMetadata("written-by", "oracle");
    FeatureFlags.apply(next);
    ManifestFile written = new ManifestFile(next.build(), current.indices(), Optional.of(txn));
    try {
      Files.write(table.resolve(TransactionFiles.path(txn)), TransactionFiles.encode(txn));
      Files.write(table.resolve(ManifestNaming.path(scheme, n + 1)), written.encode(), StandardOpenOption.CREATE_NEW);
    } catch (IOException e) {
      throw new AssertionError(e);
    }

    try (Dataset ds = open(allocator, table)) {
      assertThat(ds.version()).isEqualTo(n + 1);
      assertThat(ds.latestVersion()).isEqualTo(n + 1);
      assertThat(LanceTables.ids(ds)).isEqualTo(idsBefore);
      assertThat(ds.getTableMetadata()).containsEntry("written-by", "oracle");
      assertThat(ds.getIndexes()).extracting(Index::name).isEqualTo(indexNamesBefore);
      org.lance.Transaction lanceTxn = ds.readTransaction().orElseThrow();
      assertThat(lanceTxn.uuid()).isEqualTo(txn.getUuid());
      lanceTxn.close();
    }

    write(allocator, table, WriteMode.APPEND, 1000, 10);
    ManifestFile afterLance = latest(table);
    assertThat(afterLance.version()).isEqualTo(n + 2);
    assertThat(afterLance.manifest().getTableMetadataMap()).containsEntry("written-by", "oracle");
    assertThat(afterLance.manifest().getWriterVersion().getLibrary()).isEqualTo("lance");
    assertThat(afterLance.indices()).extracting(IndexMetadata::getName).isEqualTo(indexNamesBefore);
    assertThat(afterLance.transaction().orElseThrow().getReadVersion()).isEqualTo(n + 1);
    try (Dataset ds = open(allocator, table)) {
      assertThat(LanceTables.ids(ds)).hasSize(idsBefore.size() + 10);
    }
  }

  private static void assertNaming(Path table, Scheme scheme) {
    List<String> names = list(table.resolve("_versions"));
    assertThat(ManifestNaming.schemeOf(names)).isEqualTo(scheme);
    List<ParsedName> versions = ManifestNaming.versions(names);
    try (Dataset ds = open(allocator, table)) {
      assertThat(ManifestNaming.latest(names)).hasValue(ds.latestVersion());
      assertThat(versions).extracting(ParsedName::version)
          .isEqualTo(LongStream.rangeClosed(1, ds.latestVersion()).boxed().toList());
    }
    for (ParsedName parsed : versions) {
      assertThat(parsed.scheme()).isEqualTo(scheme);
      assertThat(names).contains(ManifestNaming.fileName(scheme, parsed.version()));
    }
    for (String name : names) {
      if (!name.endsWith(".manifest")) {
        assertThat(ManifestNaming.parse(name)).as(name).isEmpty();
      }
    }
  }

  /** The footer, length prefixes and section offsets of an encoded file are consistent with each other. */
  private static void assertLayout(byte[] bytes, ManifestFile file) {
    ByteBuffer buf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    assertThat(new String(bytes, bytes.length - 4, 4, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("LANC");
    long manifestPos = buf.getLong(bytes.length - 16);
    long expectedPos = 0;
    Manifest m = file.manifest();
    if (!file.indices().isEmpty()) {
      assertThat(m.getIndexSection()).isEqualTo(expectedPos);
      expectedPos += 4 + Integer.toUnsignedLong(buf.getInt((int) expectedPos));
    } else {
      assertThat(m.hasIndexSection()).isFalse();
    }
    if (file.transaction().isPresent()) {
      assertThat(m.getTransactionSection()).isEqualTo(expectedPos);
      expectedPos += 4 + Integer.toUnsignedLong(buf.getInt((int) expectedPos));
    } else {
      assertThat(m.hasTransactionSection()).isFalse();
    }
    assertThat(manifestPos).isEqualTo(expectedPos);
    assertThat(Integer.toUnsignedLong(buf.getInt((int) manifestPos))).isEqualTo(bytes.length - manifestPos - 4 - 16);
  }

  private static ManifestFile latest(Path table) {
    List<String> names = list(table.resolve("_versions"));
    long version = ManifestNaming.latest(names).orElseThrow();
    return ManifestFile.decode(
        read(table.resolve(ManifestNaming.path(ManifestNaming.schemeOf(names), version))));
  }

  private static List<String> manifestNames(Path table) {
    return list(table.resolve("_versions")).stream()
        .filter(n -> ManifestNaming.parse(n).isPresent())
        .toList();
  }

  private static void createIdIndex(Dataset ds) {
    ds.createIndex(
        List.of("id"),
        IndexType.BTREE,
        Optional.of("id_idx"),
        IndexParams.builder().setScalarIndexParams(ScalarIndexParams.create("btree")).build(),
        true);
  }
}
