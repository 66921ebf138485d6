package dev.lancecommit.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.coordinator.config.ConfigKeys;
import dev.lancecommit.coordinator.credentials.CredentialsConfig;
import dev.lancecommit.coordinator.publication.PublicationConfig;
import org.junit.jupiter.api.Test;

class CoordinatorConfigTest {

  @Test
  void everyFeaturesKeysAreKeysOfTheCoordinatorAndDocumentedOnce() {
    assertThat(CoordinatorConfig.keys()).containsAll(PublicationConfig.keys()).containsAll(CredentialsConfig.keys())
        .contains(CoordinatorConfig.FORMAT_SEMANTIC_TYPES_FLAG);
    assertThat(CoordinatorConfig.keys()).extracting(ConfigKeys.Key::name).doesNotHaveDuplicates();
    String documentation = CoordinatorConfig.documentation();
    for (ConfigKeys.Key key : CoordinatorConfig.keys()) {
      assertThat(documentation).contains("| `" + key.name() + "` | `" + key.defaultValue() + "` |");
    }
    assertThat(documentation).contains("auth.principals");
  }

  @Test
  void unknownKeysAndMalformedValuesAreRefusedNamingTheKey() {
    assertThatThrownBy(() -> CoordinatorConfig.builder().set("commit.thread", "4"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Unknown configuration key 'commit.thread'")
        .hasMessageContaining("commit.threads");
    CoordinatorConfig config = CoordinatorConfig.builder()
        .set(CoordinatorConfig.COMMIT_THREADS, "many")
        .set(CoordinatorConfig.S3_PATH_STYLE, "yes")
        .set(PublicationConfig.SHUTDOWN_DRAIN_MS, " 250 ")
        .build();
    assertThatThrownBy(() -> config.getInt(CoordinatorConfig.COMMIT_THREADS))
        .hasMessage("Configuration key commit.threads needs a whole number, got 'many'");
    assertThatThrownBy(() -> config.getBoolean(CoordinatorConfig.S3_PATH_STYLE))
        .hasMessage("Configuration key s3.path-style needs true or false, got 'yes'");
    assertThat(config.getLong(PublicationConfig.SHUTDOWN_DRAIN_MS)).isEqualTo(250);
    assertThat(config.getInt(CoordinatorConfig.PORT)).isEqualTo(9101);
  }
}
