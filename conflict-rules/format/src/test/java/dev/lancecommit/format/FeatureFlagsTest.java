package dev.lancecommit.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.format.pb.BasePath;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.DeletionFile;
import dev.lancecommit.format.pb.Manifest;
import org.junit.jupiter.api.Test;

class FeatureFlagsTest {
  @Test
  void knownBitsAreTheSixOfLanceNov2025() {
    assertThat(FeatureFlags.KNOWN_READER).containsExactlyInAnyOrder(1L, 2L, 4L, 8L, 16L, 32L);
    assertThat(FeatureFlags.KNOWN_WRITER).containsExactlyInAnyOrder(1L, 2L, 4L, 8L, 16L, 32L);
    assertThat(FeatureFlags.KNOWN_WRITER_MASK).isEqualTo(63);
  }

  @Test
  void ensureWritableNamesTheUnknownWriterBits() {
    Manifest manifest = Manifest.newBuilder().setVersion(9).setWriterFeatureFlags(1 | 8 | 64 | 512).build();
    assertThatThrownBy(() -> FeatureFlags.ensureWritable(manifest))
        .isInstanceOf(UnsupportedFeatureException.class)
        .hasMessageContaining("version 9")
        .hasMessageContaining("64 (UNSTABLE_DATA_OVERLAY_FILES)")
        .hasMessageContaining("512 (FRAG_REUSE_WITH_STABLE_ROW_IDS)")
        .hasMessageNotContaining("8 (TABLE_CONFIG)");
    assertThatThrownBy(() -> FeatureFlags.ensureWritable(Manifest.newBuilder().setWriterFeatureFlags(1L << 40).build()))
        .hasMessageContaining("1099511627776 (unknown)");
    assertThatCode(() -> FeatureFlags.ensureWritable(Manifest.newBuilder().setWriterFeatureFlags(63).build()))
        .doesNotThrowAnyException();
  }

  @Test
  void readerAndWriterChecksLookAtTheirOwnWord() {
    Manifest readerOnly = Manifest.newBuilder().setReaderFeatureFlags(128).setWriterFeatureFlags(1).build();
    assertThatCode(() -> FeatureFlags.ensureWritable(readerOnly)).doesNotThrowAnyException();
    assertThatThrownBy(() -> FeatureFlags.ensureReadable(readerOnly))
        .isInstanceOf(UnsupportedFeatureException.class)
        .hasMessageContaining("reader features")
        .hasMessageContaining("128 (COVERED_INDEX_METADATA)");
    Manifest writerOnly = Manifest.newBuilder().setWriterFeatureFlags(2048).build();
    assertThatCode(() -> FeatureFlags.ensureReadable(writerOnly)).doesNotThrowAnyException();
    assertThatThrownBy(() -> FeatureFlags.ensureWritable(writerOnly))
        .hasMessageContaining("2048 (unknown)");
  }

  @Test
  void deletionFilesSetBothWords() {
    Manifest m = apply(Manifest.newBuilder().addFragments(fragment(0).setDeletionFile(DeletionFile.newBuilder())));
    assertThat(m.getReaderFeatureFlags()).isEqualTo(FeatureFlags.DELETION_FILES);
    assertThat(m.getWriterFeatureFlags()).isEqualTo(FeatureFlags.DELETION_FILES);
  }

  @Test
  void tableConfigIsAWriterOnlyFlag() {
    Manifest m = apply(Manifest.newBuilder().putConfig("lance.auto_cleanup.interval", "20"));
    assertThat(m.getReaderFeatureFlags()).isZero();
    assertThat(m.getWriterFeatureFlags()).isEqualTo(FeatureFlags.TABLE_CONFIG);
  }

  @Test
  void basePathsSetBothWords() {
    Manifest m = apply(Manifest.newBuilder().addBasePaths(BasePath.newBuilder().setId(1).setPath("s3://b/t")));
    assertThat(m.getReaderFeatureFlags()).isEqualTo(FeatureFlags.BASE_PATHS);
    assertThat(m.getWriterFeatureFlags()).isEqualTo(FeatureFlags.BASE_PATHS);
  }

  @Test
  void noTransactionFileSetsWriterBit32Only() {
    Manifest m = FeatureFlags.apply(Manifest.newBuilder(), false, false).build();
    assertThat(m.getReaderFeatureFlags()).isZero();
    assertThat(m.getWriterFeatureFlags()).isEqualTo(FeatureFlags.DISABLE_TRANSACTION_FILE);
    assertThat(FeatureFlags.apply(Manifest.newBuilder(), false, true).build().getWriterFeatureFlags()).isZero();
  }

  @Test
  void stableRowIdsNeedRowIdsOnEveryFragment() {
    Manifest all = apply(Manifest.newBuilder().addFragments(withRowIds(0)).addFragments(withRowIds(1)));
    assertThat(all.getReaderFeatureFlags()).isEqualTo(FeatureFlags.STABLE_ROW_IDS);
    assertThat(all.getWriterFeatureFlags()).isEqualTo(FeatureFlags.STABLE_ROW_IDS);

    assertThatThrownBy(() -> apply(Manifest.newBuilder().addFragments(withRowIds(0)).addFragments(fragment(1))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fragment 1");
    assertThatThrownBy(() -> FeatureFlags.apply(Manifest.newBuilder().addFragments(fragment(3)), true, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fragment 3");
    // an empty table with stable row ids enabled keeps the flag
    assertThat(FeatureFlags.apply(Manifest.newBuilder(), true, true).build().getReaderFeatureFlags())
        .isEqualTo(FeatureFlags.STABLE_ROW_IDS);
  }

  @Test
  void singleArgumentApplyTakesStableRowIdsFromThePreviousFlags() {
    Manifest.Builder previous =
        Manifest.newBuilder().setReaderFeatureFlags(FeatureFlags.STABLE_ROW_IDS).setWriterFeatureFlags(2);
    assertThat(FeatureFlags.apply(previous.clone()).build().getReaderFeatureFlags())
        .isEqualTo(FeatureFlags.STABLE_ROW_IDS);
    assertThatThrownBy(() -> FeatureFlags.apply(previous.clone().addFragments(fragment(4))))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void flagsAreRecomputedNotInherited() {
    Manifest m = apply(Manifest.newBuilder().setReaderFeatureFlags(1 | 16).setWriterFeatureFlags(1 | 8 | 16 | 32));
    assertThat(m.getReaderFeatureFlags()).isZero();
    assertThat(m.getWriterFeatureFlags()).isZero();
  }

  @Test
  void unknownBitsAreRefusedInsteadOfDropped() {
    assertThatThrownBy(() -> apply(Manifest.newBuilder().setWriterFeatureFlags(256)))
        .isInstanceOf(UnsupportedFeatureException.class)
        .hasMessageContaining("256 (MIXED_DATA_FILE_VERSIONS)");
    assertThatThrownBy(() -> apply(Manifest.newBuilder().setReaderFeatureFlags(64)))
        .isInstanceOf(UnsupportedFeatureException.class);
  }

  @Test
  void deprecatedV2BitIsKeptOnlyWhileItIsTheOnlyRecordOfTheDataFormat() {
    Manifest withoutFormat = apply(Manifest.newBuilder().setWriterFeatureFlags(FeatureFlags.USE_V2_FORMAT_DEPRECATED));
    assertThat(withoutFormat.getWriterFeatureFlags()).isEqualTo(FeatureFlags.USE_V2_FORMAT_DEPRECATED);
    assertThat(withoutFormat.getReaderFeatureFlags()).isZero();
    Manifest withFormat =
        apply(Manifest.newBuilder().setWriterFeatureFlags(FeatureFlags.USE_V2_FORMAT_DEPRECATED)
            .setDataFormat(Manifest.DataStorageFormat.newBuilder().setFileFormat("lance").setVersion("2.0")));
    assertThat(withFormat.getWriterFeatureFlags()).isZero();
  }

  @Test
  void describeNamesEachBit() {
    assertThat(FeatureFlags.describe(0)).isEqualTo("none");
    assertThat(FeatureFlags.describe(1 | 32)).isEqualTo("1 (DELETION_FILES), 32 (DISABLE_TRANSACTION_FILE)");
    assertThat(FeatureFlags.describe(Long.MIN_VALUE)).isEqualTo("9223372036854775808 (unknown)");
  }

  private static Manifest apply(Manifest.Builder builder) {
    return FeatureFlags.apply(builder).build();
  }

  private static DataFragment.Builder fragment(long id) {
    return DataFragment.newBuilder().setId(id).setPhysicalRows(10);
  }

  private static DataFragment.Builder withRowIds(long id) {
    return fragment(id).setInlineRowIds(RowIds.encodeFresh(id * 10, 10));
  }

  @Test
  void theSemanticTypesBitIsOneBitThatLanceHasNotGivenToAnotherFeature() {
    assertThatThrownBy(() -> FormatFeatures.withSemanticTypesFlag(64))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("UNSTABLE_DATA_OVERLAY_FILES");
    assertThatThrownBy(() -> FormatFeatures.withSemanticTypesFlag(3L << 20))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("single bit");
    FormatFeatures features = FormatFeatures.withSemanticTypesFlag(1L << 20);
    Manifest flagged = Manifest.newBuilder().setReaderFeatureFlags(1L << 20).setWriterFeatureFlags((1L << 20) | 8)
        .build();
    assertThatCode(() -> FeatureFlags.ensureWritable(flagged, features)).doesNotThrowAnyException();
    assertThatCode(() -> FeatureFlags.ensureReadable(flagged, features)).doesNotThrowAnyException();
    assertThatThrownBy(() -> FeatureFlags.ensureWritable(flagged)).isInstanceOf(UnsupportedFeatureException.class);
    assertThat(features.isSemanticTypesTable(flagged)).isTrue();
    assertThat(FormatFeatures.standard().isSemanticTypesTable(flagged)).isFalse();
  }
}
