package dev.lancecommit.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.format.ManifestNaming.ParsedName;
import dev.lancecommit.format.ManifestNaming.Scheme;
import java.math.BigInteger;
import java.util.List;
import org.junit.jupiter.api.Test;

class ManifestNamingTest {
  private static final BigInteger U64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

  @Test
  void namesBothSchemes() {
    assertThat(ManifestNaming.fileName(Scheme.V1, 42)).isEqualTo("42.manifest");
    assertThat(ManifestNaming.fileName(Scheme.V2, 42)).isEqualTo("18446744073709551573.manifest");
    assertThat(ManifestNaming.fileName(Scheme.V2, 1)).isEqualTo("18446744073709551614.manifest");
    assertThat(ManifestNaming.path(Scheme.V1, 7)).isEqualTo("_versions/7.manifest");
  }

  @Test
  void v2NamesAreZeroPaddedToTwentyDigits() {
    // u64::MAX - v has 19 digits once v > u64::MAX - 10^19
    long version = U64_MAX.subtract(BigInteger.TEN.pow(19)).add(BigInteger.TWO).longValueExact();
    String name = ManifestNaming.fileName(Scheme.V2, version);
    assertThat(name).isEqualTo("09999999999999999998.manifest").hasSize(29);
    assertThat(ManifestNaming.parse(name)).contains(new ParsedName(version, Scheme.V2));
  }

  @Test
  void namesAndParsesRoundTripOverTheWholeRange() {
    for (long v : new long[] {1, 2, 9, 10, 42, 1_000_000, Integer.MAX_VALUE + 1L, Long.MAX_VALUE}) {
      for (Scheme scheme : Scheme.values()) {
        String name = ManifestNaming.fileName(scheme, v);
        assertThat(ManifestNaming.parse(name)).as(name).contains(new ParsedName(v, scheme));
        assertThat(ManifestNaming.parse("_versions/" + name)).contains(new ParsedName(v, scheme));
      }
      String v2 = ManifestNaming.fileName(Scheme.V2, v);
      assertThat(new BigInteger(v2.substring(0, 20))).isEqualTo(U64_MAX.subtract(BigInteger.valueOf(v)));
    }
  }

  @Test
  void refusesVersionsOutsideOneToTwoPowSixtyThreeMinusOne() {
    for (long bad : new long[] {0, -1, Long.MIN_VALUE}) {
      assertThatThrownBy(() -> ManifestNaming.fileName(Scheme.V1, bad))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> ManifestNaming.fileName(Scheme.V2, bad))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void namesThatAreNotMainLineVersionsParseToNothing() {
    for (String name :
        List.of(
            "d9223372036854775850.manifest", // detached
            ".tmp_7.manifest_2b1c8e4e-1f5e-4b7a-9c47-0c0f5d3f1a11", // temp file
            "18446744073709551573.manifest-2b1c8e4e-1f5e-4b7a-9c47-0c0f5d3f1a11", // staging copy
            "latest_version_hint.json",
            "_latest.manifest",
            "abc.manifest",
            "0.manifest",
            "+5.manifest",
            "5.manifest.bak",
            ".manifest",
            "18446744073709551615.manifest", // V2 for version 0
            "00000000000000000005.manifest", // V2 number below 2^63: a version with bit 63 set
            "9223372036854775808.manifest", // V1 with bit 63 set
            "99999999999999999999999.manifest")) { // more than u64
      assertThat(ManifestNaming.parse(name)).as(name).isEmpty();
    }
  }

  @Test
  void detectsTheSchemeLikeLance() {
    assertThat(ManifestNaming.detectScheme("42.manifest")).contains(Scheme.V1);
    assertThat(ManifestNaming.detectScheme("18446744073709551573.manifest")).contains(Scheme.V2);
    assertThat(ManifestNaming.detectScheme("d9223372036854775850.manifest")).contains(Scheme.V2);
    assertThat(ManifestNaming.detectScheme("latest_version_hint.json")).isEmpty();
  }

  @Test
  void schemeOfAListing() {
    List<String> v1 = List.of("1.manifest", "2.manifest", "latest_version_hint.json");
    List<String> v2 = List.of("18446744073709551613.manifest", "18446744073709551614.manifest");
    assertThat(ManifestNaming.schemeOf(v1)).isEqualTo(Scheme.V1);
    assertThat(ManifestNaming.schemeOf(v2)).isEqualTo(Scheme.V2);
    assertThat(ManifestNaming.schemeOf(List.of("latest_version_hint.json"), Scheme.V2)).isEqualTo(Scheme.V2);
    assertThatThrownBy(() -> ManifestNaming.schemeOf(List.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void mixedSchemesAreAnError() {
    List<String> mixed = List.of("1.manifest", "18446744073709551613.manifest");
    assertThatThrownBy(() -> ManifestNaming.schemeOf(mixed))
        .isInstanceOf(CorruptManifestException.class)
        .hasMessageContaining("mixes V1 and V2");
    assertThatThrownBy(() -> ManifestNaming.latest(mixed)).isInstanceOf(CorruptManifestException.class);
    assertThatThrownBy(() -> ManifestNaming.versions(mixed)).isInstanceOf(CorruptManifestException.class);
    // a detached manifest implies V2, so it cannot sit beside V1 names
    assertThatThrownBy(() -> ManifestNaming.schemeOf(List.of("1.manifest", "d9223372036854775850.manifest")))
        .isInstanceOf(CorruptManifestException.class);
  }

  @Test
  void latestAndVersionsSkipWhatIsNotAVersion() {
    List<String> names =
        List.of(
            "18446744073709551612.manifest", // 3
            "18446744073709551614.manifest", // 1
            "18446744073709551613.manifest", // 2
            "d9223372036854775850.manifest",
            "latest_version_hint.json",
            ".tmp_9.manifest_x");
    assertThat(ManifestNaming.latest(names)).hasValue(3);
    assertThat(ManifestNaming.versions(names)).extracting(ParsedName::version).containsExactly(1L, 2L, 3L);
    assertThat(ManifestNaming.latest(List.of("latest_version_hint.json"))).isEmpty();
    assertThat(ManifestNaming.latest(List.of("9.manifest", "10.manifest", "2.manifest"))).hasValue(10);
  }

  @Test
  void aVersionNamedTwiceIsAnError() {
    assertThatThrownBy(() -> ManifestNaming.versions(List.of("7.manifest", "07.manifest")))
        .isInstanceOf(CorruptManifestException.class)
        .hasMessageContaining("version 7");
  }
}
