package dev.lancecommit.coordinator.credentials;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class VendedCredentialsTest {
  private static final Instant EXPIRY = Instant.parse("2026-12-01T10:15:30.123Z");

  @Test
  void temporaryCredentialsGiveExactlyTheSevenOptions() {
    VendedCredentials credentials =
        new VendedCredentials("AK", "SK", "TOKEN", "eu-west-1", "http://127.0.0.1:8333", EXPIRY);

    assertThat(credentials.storageOptions()).containsExactly(
        entry("aws_access_key_id", "AK"),
        entry("aws_secret_access_key", "SK"),
        entry("aws_session_token", "TOKEN"),
        entry("aws_region", "eu-west-1"),
        entry("aws_endpoint", "http://127.0.0.1:8333"),
        entry("allow_http", "true"),
        entry("expires_at_millis", Long.toString(EXPIRY.toEpochMilli())));
  }

  @Test
  void httpsEndpointDoesNotAllowHttp() {
    VendedCredentials credentials = new VendedCredentials("AK", "SK", "T", "us-east-1", "https://s3.local", EXPIRY);

    assertThat(credentials.storageOptions()).containsEntry("allow_http", "false")
        .containsEntry("aws_endpoint", "https://s3.local");
  }

  @Test
  void staticKeysOmitTokenAndExpiryAndAwsS3OmitsTheEndpoint() {
    VendedCredentials credentials = new VendedCredentials("AK", "SK", null, "us-east-1", null, null);

    assertThat(credentials.storageOptions()).containsOnlyKeys(
        "aws_access_key_id", "aws_secret_access_key", "aws_region", "allow_http");
    assertThat(credentials.storageOptions()).containsEntry("allow_http", "false");
    assertThat(credentials.isExpiredAt(Instant.MAX)).isFalse();
  }

  @Test
  void expiryIsInclusive() {
    VendedCredentials credentials = new VendedCredentials("AK", "SK", "T", "us-east-1", null, EXPIRY);

    assertThat(credentials.isExpiredAt(EXPIRY.minusMillis(1))).isFalse();
    assertThat(credentials.isExpiredAt(EXPIRY)).isTrue();
  }

  @Test
  void toStringHidesSecrets() {
    String text = new VendedCredentials("AK", "SECRET", "TOKEN", "us-east-1", null, EXPIRY).toString();

    assertThat(text).contains("AK").doesNotContain("SECRET").doesNotContain("TOKEN");
  }

  @Test
  void refusesIncompleteCredentials() {
    assertThatThrownBy(() -> new VendedCredentials(" ", "SK", null, "us-east-1", null, null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new VendedCredentials("AK", "SK", "", "us-east-1", null, null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new VendedCredentials("AK", "SK", null, "us-east-1", "127.0.0.1:9000", null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static java.util.Map.Entry<String, String> entry(String key, String value) {
    return java.util.Map.entry(key, value);
  }
}
