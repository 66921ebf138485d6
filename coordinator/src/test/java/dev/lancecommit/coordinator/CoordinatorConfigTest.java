package dev.lancecommit.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.config.ConfigKey;
import dev.lancecommit.config.ConfigurationException;
import dev.lancecommit.coordinator.auth.AuthConfig;
import dev.lancecommit.coordinator.credentials.CredentialsConfig;
import dev.lancecommit.coordinator.publication.PublicationConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CoordinatorConfigTest {
  @TempDir Path dir;

  @Test
  void everyFeaturesKeysAreKeysOfTheCoordinatorAndDocumentedOnce() {
    assertThat(CoordinatorConfig.keys().keys()).containsAll(PublicationConfig.keys().keys())
        .containsAll(CredentialsConfig.keys().keys()).containsAll(AuthConfig.keys().keys())
        .contains(CoordinatorConfig.FORMAT_SEMANTIC_TYPES_FLAG);
    assertThat(CoordinatorConfig.keys().keys()).extracting(ConfigKey::name).doesNotHaveDuplicates();
    String documentation = CoordinatorConfig.documentation();
    for (ConfigKey<?> key : CoordinatorConfig.keys().keys()) {
      String defaultText = CoordinatorConfig.keys().defaultText(key);
      assertThat(documentation).contains("| `" + key.name() + "` | " + (defaultText.isEmpty() ? "" : "`" + defaultText
          + "`") + " |");
    }
    assertThat(documentation).contains("| `port` | `9101` | a whole number, [0,...,65535] |")
        .contains("auth.principals.<principal>.token");
  }

  @Test
  void unknownKeysAndMalformedValuesAreRefusedNamingTheKeyAndWhatItAccepts() {
    assertThatThrownBy(() -> CoordinatorConfig.builder().set("commit.thread", "4"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("Unknown configuration key 'commit.thread'")
        .hasMessageContaining("commit.threads");
    assertThatThrownBy(() -> CoordinatorConfig.builder().set(CoordinatorConfig.COMMIT_THREADS, "many").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Configuration key commit.threads needs a whole number, got 'many' (accepts a whole number, "
            + "[1,...])");
    assertThatThrownBy(() -> CoordinatorConfig.builder().set(CoordinatorConfig.S3_PATH_STYLE, "yes").build())
        .hasMessageStartingWith("Configuration key s3.path-style needs true or false, got 'yes'");
    assertThatThrownBy(() -> CoordinatorConfig.builder().set(CoordinatorConfig.COMMIT_THREADS, "0").build())
        .hasMessageContaining("commit.threads").hasMessageContaining("at least 1").hasMessageContaining("got '0'");
    assertThatThrownBy(() -> CoordinatorConfig.builder().set(CoordinatorConfig.COMMIT_MANIFEST_NAMING, "v3").build())
        .hasMessageContaining("commit.manifest-naming").hasMessageContaining("v1, v2");
    assertThatThrownBy(() -> CoordinatorConfig.builder().set(CoordinatorConfig.FORMAT_SEMANTIC_TYPES_FLAG, "3")
        .build()).hasMessageContaining("format.semantic-types.flag");
    assertThatThrownBy(() -> CoordinatorConfig.builder().set(CoordinatorConfig.S3_ENDPOINT, "127.0.0.1:9000")
        .build()).hasMessageContaining("s3.endpoint").hasMessageContaining("http");
    assertThatThrownBy(() -> CoordinatorConfig.builder().set("auth.grants.x", "a:read").build())
        .hasMessageContaining("auth.grants.x");
  }

  @Test
  void valuesReadAsTheirTypesWithTheDocumentedDefaults() {
    CoordinatorConfig config = CoordinatorConfig.builder()
        .set(PublicationConfig.SHUTDOWN_DRAIN_MS, " 250 ")
        .set(CoordinatorConfig.S3_PATH_STYLE, "TRUE")
        .set(CoordinatorConfig.COMMIT_MANIFEST_NAMING, "V1")
        .build();
    assertThat(config.get(PublicationConfig.SHUTDOWN_DRAIN_MS)).isEqualTo(Duration.ofMillis(250));
    assertThat(config.get(CoordinatorConfig.S3_PATH_STYLE)).isTrue();
    assertThat(config.get(CoordinatorConfig.PORT)).isEqualTo(9101);
    assertThat(config.get(CoordinatorConfig.COMMIT_THREADS)).isEqualTo(32);
    assertThat(config.get(PublicationConfig.REPLICATION_FACTOR)).isEqualTo((short) 1);
    assertThat(config.toBuilder().port(0).build().get(PublicationConfig.SHUTDOWN_DRAIN_MS))
        .isEqualTo(Duration.ofMillis(250));
  }

  @Test
  void secretsAreNeverPrinted() {
    CoordinatorConfig config = CoordinatorConfig.builder()
        .set(CoordinatorConfig.S3_SECRET_ACCESS_KEY, "s3-very-secret")
        .set("auth.principals.etl.token", "token-very-secret")
        .build();
    assertThat(config.get(CoordinatorConfig.S3_SECRET_ACCESS_KEY)).isEqualTo("s3-very-secret");
    assertThat(config.values().toString()).doesNotContain("very-secret").contains("auth.principals.etl.token");
  }

  @Test
  void theCommandLineTakesAnyKeyAConfigFileAndPrintsTheKeysForHelp() throws Exception {
    Path file = dir.resolve("c.properties");
    Files.writeString(file, "port=7000\nwarehouse=/from/file\ns3.path-style=true\n");
    CoordinatorConfig config = Main.parse(new String[] {"--config", file.toString(), "--port", "0",
        "--kafka=none", "--auth.principals.etl.token", "t-1", "--auth.grants.etl=sales:commit",
        "--store.verify-conditional-put", "false"}, System.out);
    assertThat(config.get(CoordinatorConfig.PORT)).as("the command line wins").isZero();
    assertThat(config.get(CoordinatorConfig.WAREHOUSE)).isEqualTo("/from/file");
    assertThat(config.get(CoordinatorConfig.S3_PATH_STYLE)).isTrue();
    assertThat(config.get(CoordinatorConfig.KAFKA)).isEqualTo("none");
    assertThat(config.get(CoordinatorConfig.STORE_VERIFY_CONDITIONAL_PUT)).isFalse();
    assertThat(config.authConfig().principals()).containsExactly("etl");

    assertThatThrownBy(() -> Main.parse(new String[] {"--prot", "1"}, System.out))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--prot");
    assertThatThrownBy(() -> Main.parse(new String[] {"--port"}, System.out))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--port");
    assertThatThrownBy(() -> Main.parse(new String[] {"--port", "x"}, System.out))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Configuration key port");

    ByteArrayOutputStream help = new ByteArrayOutputStream();
    assertThat(Main.parse(new String[] {"--help"}, new PrintStream(help, true, StandardCharsets.UTF_8))).isNull();
    String text = help.toString(StandardCharsets.UTF_8);
    assertThat(text).contains("--config").contains(CoordinatorConfig.documentation());
  }
}
