package dev.lancecommit.format;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.format.pb.Manifest;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class WriterVersionsTest {
  @Test
  void isNotLanceAndStillAtLeastTheOldBitmapBugCutoff() {
    Manifest.WriterVersion version = WriterVersions.coordinator();
    // Lance >= Oct 2025 skips its old-bug workarounds only for a library other than "lance"
    assertThat(version.getLibrary()).isNotEqualTo("lance").isNotEmpty();
    // older Lance ignores the library and recalculates index bitmaps for versions below 0.8.15
    assertThat(version.getVersion()).matches("\\d+\\.\\d+\\.\\d+");
    int[] parts = Arrays.stream(version.getVersion().split("\\.")).mapToInt(Integer::parseInt).toArray();
    assertThat(Arrays.compare(parts, new int[] {0, 8, 15})).isGreaterThanOrEqualTo(0);
    assertThat(version.hasPrerelease()).isFalse();
    assertThat(version.getBuildMetadata()).matches("[0-9A-Za-z.-]+");
  }

  @Test
  void recognisesItsOwnManifests() {
    assertThat(WriterVersions.writtenByCoordinator(
        Manifest.newBuilder().setWriterVersion(WriterVersions.coordinator()).build())).isTrue();
    assertThat(WriterVersions.writtenByCoordinator(
        Manifest.newBuilder().setWriterVersion(Manifest.WriterVersion.newBuilder().setLibrary("lance")).build()))
        .isFalse();
    assertThat(WriterVersions.writtenByCoordinator(Manifest.getDefaultInstance())).isFalse();
  }
}
