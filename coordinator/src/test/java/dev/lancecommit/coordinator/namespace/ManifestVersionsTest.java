package dev.lancecommit.coordinator.namespace;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class ManifestVersionsTest {

  @Test
  void readsV1Names() {
    assertThat(ManifestVersions.parse("1.manifest")).hasValue(1);
    assertThat(ManifestVersions.parse("42.manifest")).hasValue(42);
  }

  @Test
  void readsV2NamesAsTheComplementOfU64Max() {
    assertThat(ManifestVersions.parse("18446744073709551614.manifest")).hasValue(1);
    assertThat(ManifestVersions.parse("18446744073709551573.manifest")).hasValue(42);
    assertThat(ManifestVersions.parse("18446744073709551615.manifest")).hasValue(0);
  }

  @Test
  void v2NameRoundTrips() {
    for (long v : new long[] {1, 42, 1_000_000, Long.MAX_VALUE}) {
      String name = ManifestVersions.v2Name(v);
      assertThat(name).hasSize(29);
      assertThat(ManifestVersions.parse(name)).hasValue(v);
    }
    assertThat(ManifestVersions.v2Name(42)).isEqualTo("18446744073709551573.manifest");
  }

  @Test
  void ignoresEverythingElse() {
    for (String name : new String[] {
        "latest_version_hint.json", ".tmp_7.manifest_0d4c", "d9223372036854775850.manifest", "7.manifest.tmp",
        "-3.manifest", "x.manifest", ".manifest", "7", "99999999999999999999.manifest",
        "1234567890123456789012.manifest", "00000000000000000000.manifest"}) {
      assertThat(ManifestVersions.parse(name)).as(name).isEqualTo(OptionalLong.empty());
    }
  }
}
