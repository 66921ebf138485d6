package dev.lancecommit.coordinator.credentials;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class StaticCredentialVendorTest {
  private final StaticCredentialVendor vendor =
      new StaticCredentialVendor("AK", "SK", "us-east-1", "http://127.0.0.1:9000");

  @Test
  void handsOutTheConfiguredKeysWithoutExpiry() {
    VendedCredentials credentials = vendor.vend("alice", "s3://b/ns/t.lance", AccessMode.READ_WRITE);

    assertThat(credentials.storageOptions()).containsEntry("aws_access_key_id", "AK")
        .containsEntry("aws_secret_access_key", "SK")
        .containsEntry("aws_endpoint", "http://127.0.0.1:9000")
        .containsEntry("allow_http", "true")
        .doesNotContainKeys("aws_session_token", "expires_at_millis");
  }

  @Test
  void checksLocationsLikeTheStsVendor() {
    assertThatThrownBy(() -> vendor.vend("alice", "s3://b/*", AccessMode.READ))
        .isInstanceOf(InvalidTableLocationException.class);
    assertThatThrownBy(() -> vendor.vend("alice", "/local/t.lance", AccessMode.READ))
        .isInstanceOf(InvalidTableLocationException.class);
    assertThatThrownBy(() -> vendor.vend(" ", "s3://b/t.lance", AccessMode.READ))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
