package dev.lancecommit.coordinator.credentials;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.coordinator.CoordinatorConfig;
import dev.lancecommit.coordinator.storage.S3Config;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsCredentials;

class CredentialsConfigTest {
  private static final S3Config S3 = new S3Config("http://127.0.0.1:8333", "eu-central-1", true, "coord-ak",
      "coord-sk", null, Duration.ofSeconds(30), Duration.ofSeconds(10));

  @Test
  void defaultIsNoVending() {
    CredentialsConfig config = CredentialsConfig.from(Map.of(), S3);

    assertThat(config.mode()).isEqualTo(CredentialsConfig.Mode.NONE);
    assertThat(config.createVendor()).isEmpty();
  }

  @Test
  void readsTheCoordinatorConfigurationWithDefaults() {
    assertThat(CoordinatorConfig.defaults().credentialsConfig().mode()).isEqualTo(CredentialsConfig.Mode.NONE);
  }

  @Test
  void stsSettingsInheritTheStoreSettings() {
    StsSettings sts = CredentialsConfig.from(
        Map.of("credentials.mode", "sts", "credentials.sts.role-arn", "arn:aws:iam::1:role/r"), S3).stsSettings();

    assertThat(sts.stsEndpoint()).isEqualTo("http://127.0.0.1:8333");
    assertThat(sts.clientEndpoint()).isEqualTo("http://127.0.0.1:8333");
    assertThat(sts.region()).isEqualTo("eu-central-1");
    assertThat(sts.roleArn()).isEqualTo("arn:aws:iam::1:role/r");
    assertThat(sts.sessionDuration()).isEqualTo(Duration.ofHours(1));
    assertThat(sts.refreshFraction()).isEqualTo(0.75);
    AwsCredentials signing = sts.baseCredentials().resolveCredentials();
    assertThat(signing.accessKeyId()).isEqualTo("coord-ak");
  }

  @Test
  void stsSettingsCanBeOverridden() {
    StsSettings sts = CredentialsConfig.from(Map.of(
        "credentials.mode", "STS",
        "credentials.sts.role-arn", "arn:aws:iam::1:role/r",
        "credentials.sts.endpoint", "https://sts.example",
        "credentials.sts.region", "us-west-2",
        "credentials.client-endpoint", "https://s3.example",
        "credentials.sts.access-key-id", "sts-ak",
        "credentials.sts.secret-access-key", "sts-sk",
        "credentials.sts.duration-seconds", "900",
        "credentials.sts.external-id", "ext",
        "credentials.sts.refresh-fraction", "0.5"), S3).stsSettings();

    assertThat(sts.stsEndpoint()).isEqualTo("https://sts.example");
    assertThat(sts.clientEndpoint()).isEqualTo("https://s3.example");
    assertThat(sts.region()).isEqualTo("us-west-2");
    assertThat(sts.baseCredentials().resolveCredentials().accessKeyId()).isEqualTo("sts-ak");
    assertThat(sts.sessionDuration()).isEqualTo(Duration.ofSeconds(900));
    assertThat(sts.externalId()).isEqualTo("ext");
    assertThat(sts.refreshFraction()).isEqualTo(0.5);
  }

  @Test
  void staticModeHandsOutTheConfiguredKeys() {
    Optional<CredentialVendor> vendor = CredentialsConfig.from(Map.of("credentials.mode", "static",
        "credentials.static.access-key-id", "w-ak", "credentials.static.secret-access-key", "w-sk"), S3)
        .createVendor();

    assertThat(vendor).get().isInstanceOf(StaticCredentialVendor.class);
    assertThat(vendor.get().vend("p", "s3://b/t.lance", AccessMode.READ).storageOptions())
        .containsEntry("aws_access_key_id", "w-ak").containsEntry("aws_region", "eu-central-1");
  }

  @Test
  void refusesIncompleteOrInvalidSettings() {
    assertThatThrownBy(() -> CredentialsConfig.from(Map.of("credentials.mode", "sts"), S3).createVendor())
        .hasMessageContaining("credentials.sts.role-arn");
    assertThatThrownBy(() -> CredentialsConfig.from(Map.of("credentials.mode", "static"), S3).createVendor())
        .hasMessageContaining("credentials.static.access-key-id");
    assertThatThrownBy(() -> CredentialsConfig.from(Map.of("credentials.mode", "iam"), S3).mode())
        .hasMessageContaining("credentials.mode").hasMessageContaining("none, static, sts");
    assertThatThrownBy(() -> CredentialsConfig.from(Map.of("credentials.mode", "sts",
        "credentials.sts.role-arn", "r", "credentials.sts.duration-seconds", "60"), S3).stsSettings())
        .hasMessageContaining("credentials.sts.duration-seconds").hasMessageContaining("[900,...,43200]");
    assertThatThrownBy(() -> CredentialsConfig.from(Map.of("credentials.sts.refresh-fraction", "1.5"), S3))
        .hasMessageContaining("credentials.sts.refresh-fraction").hasMessageContaining("(0, 1]");
    assertThatThrownBy(() -> CredentialsConfig.from(Map.of("credentials.mode", "sts",
        "credentials.sts.role-arn", "r", "credentials.sts.access-key-id", "only-key"), S3).stsSettings())
        .hasMessageContaining("must be set together");
    assertThatThrownBy(() -> CredentialsConfig.from(Map.of("credentials.mdoe", "sts"), S3))
        .hasMessageContaining("Unknown configuration key 'credentials.mdoe'");
  }

  @Test
  void everyKeyIsDocumented() {
    assertThat(CredentialsConfig.keys().keys()).isNotEmpty().allSatisfy(key -> {
      assertThat(key.name()).startsWith("credentials.");
      assertThat(CredentialsConfig.keys().doc(key)).isNotBlank();
    });
    assertThat(CredentialsConfig.keys().markdown()).contains("`credentials.sts.role-arn`");
  }
}
