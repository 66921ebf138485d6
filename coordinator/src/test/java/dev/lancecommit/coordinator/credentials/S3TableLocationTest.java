package dev.lancecommit.coordinator.credentials;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class S3TableLocationTest {

  @Test
  void parsesBucketAndPrefix() {
    S3TableLocation location = S3TableLocation.parse("s3://warehouse/ns1/ns2/t.lance/");

    assertThat(location.bucket()).isEqualTo("warehouse");
    assertThat(location.keyPrefix()).isEqualTo("ns1/ns2/t.lance");
    assertThat(location.uri()).isEqualTo("s3://warehouse/ns1/ns2/t.lance");
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "", " ", "/tmp/t.lance", "file:///tmp/t.lance", "s3a://b/t.lance", "S3://b/t.lance", "s3://", "s3:///t.lance",
      "s3://b", "s3://b/", "s3://b//t.lance", "s3://b/a//t.lance", "s3://b/../t.lance", "s3://b/./t.lance",
      "s3://b/*", "s3://b/t*.lance", "s3://b/t?.lance", "s3://b/${aws:username}/t.lance", "s3://b*/t.lance",
      "s3://b/t\n.lance", "s3://bu cket/t.lance"})
  void refuses(String location) {
    assertThatThrownBy(() -> S3TableLocation.parse(location)).isInstanceOf(InvalidTableLocationException.class);
  }

  @Test
  void refusesNull() {
    assertThatThrownBy(() -> S3TableLocation.parse(null)).isInstanceOf(InvalidTableLocationException.class);
  }
}
