package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.format.ManifestNaming;
import org.junit.jupiter.api.Test;

/** Manifest paths as Lance's namespace-managed commit handler writes and parses them. */
class StorePathsTest {
  private static final String STAGED_V2 = "18446744073709551613.manifest-5f0e1d2c-3b4a-4958-8776-655443322110";

  @Test
  void storePathsAreKeysBelowTheBucketOrLocalPaths() {
    assertThat(StorePaths.of("s3://bucket/wh/t.lance/_versions/1.manifest")).isEqualTo("wh/t.lance/_versions/1.manifest");
    assertThat(StorePaths.of("/data/wh/t.lance")).isEqualTo("/data/wh/t.lance");
    assertThat(StorePaths.of("file:///data/wh/t%20x.lance")).isEqualTo("/data/wh/t x.lance");
  }

  @Test
  void stagedManifestsAreFoundInTheTablesVersionsDirectory() {
    StorePaths.StagedName s3 = StorePaths.stagedManifestName("s3://bucket/wh/t.lance",
        "wh/t.lance/_versions/" + STAGED_V2, 2);
    assertThat(s3).isEqualTo(new StorePaths.StagedName(STAGED_V2, ManifestNaming.Scheme.V2));
    assertThat(StorePaths.stagedManifestName("s3://bucket/wh/t.lance",
        "s3://bucket/wh/t.lance/_versions/" + STAGED_V2, 2).name()).isEqualTo(STAGED_V2);
    assertThat(StorePaths.stagedManifestName("/data/wh/t.lance", "data/wh/t.lance/_versions/" + STAGED_V2, 2)
        .name()).isEqualTo(STAGED_V2);
    assertThat(StorePaths.stagedManifestName("/data/wh/t.lance", "/data/wh/t.lance/_versions/" + STAGED_V2, 2)
        .name()).isEqualTo(STAGED_V2);
    assertThat(StorePaths.stagedManifestName("/data/wh/t.lance", "data/wh/t.lance/_versions/2.manifest-abc", 2))
        .isEqualTo(new StorePaths.StagedName("2.manifest-abc", ManifestNaming.Scheme.V1));
  }

  @Test
  void anythingElseIsRefused() {
    String table = "s3://bucket/wh/t.lance";
    for (String path : new String[] {
        "wh/t.lance/_versions/18446744073709551613.manifest", // a final manifest
        "wh/t.lance/_versions/latest_version_hint.json",
        "wh/t.lance/data/" + STAGED_V2,
        "wh/t.lance2/_versions/" + STAGED_V2, // a sibling table
        "wh/t.lance/_versions/../_versions/" + STAGED_V2,
        "wh/t.lance/_versions/sub/" + STAGED_V2,
        "wh/t.lance/_versions/18446744073709551613.manifest-",
        "wh/t.lance/_versions/18446744073709551613.manifest-a/b",
        "wh/t.lance/_versions/d18446744073709551613.manifest-abc", // detached
        "s3://other/wh/t.lance/_versions/" + STAGED_V2,
        "wh/t.lance/_versions/" + STAGED_V2.replace("13.manifest", "12.manifest")}) { // staged for version 3
      assertThatThrownBy(() -> StorePaths.stagedManifestName(table, path, 2)).as(path)
          .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.code()).isEqualTo(13));
    }
  }
}
