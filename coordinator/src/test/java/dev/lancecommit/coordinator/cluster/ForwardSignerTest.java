package dev.lancecommit.coordinator.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class ForwardSignerTest {
  private static final String SECRET = "a-cluster-secret-of-some-length";
  private static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");
  private final ForwardSigner signer = new ForwardSigner(SECRET, Clock.fixed(NOW, ZoneOffset.UTC));
  private final byte[] body = "transaction bytes".getBytes(StandardCharsets.UTF_8);
  private final ForwardSigner.Forwarded call =
      new ForwardSigner.Forwarded("alice", 1, 12_000, 7, "http://10.0.0.1:9101");

  private ForwardSigner.Forwarded verify(ForwardSigner by, String uri, byte[] content, String principal, long at,
      String signature) {
    return by.verify("POST", uri, content, principal, "1", "12000", "7", "http://10.0.0.1:9101",
        Long.toString(at), signature);
  }

  @Test
  void acceptsWhatItSigned() {
    long at = NOW.toEpochMilli();
    String signature = signer.sign("POST", "/v1/table/a$b/commit", call, at, body);
    assertThat(verify(signer, "/v1/table/a$b/commit", body, "alice", at, signature)).isEqualTo(call);
  }

  @Test
  void refusesAnyChangeToWhatWasSigned() {
    long at = NOW.toEpochMilli();
    String signature = signer.sign("POST", "/v1/table/a$b/commit", call, at, body);
    assertThatThrownBy(() -> verify(signer, "/v1/table/a$b/commit", "other bytes".getBytes(StandardCharsets.UTF_8),
        "alice", at, signature)).hasMessageContaining("signature does not match");
    assertThatThrownBy(() -> verify(signer, "/v1/table/a$c/commit", body, "alice", at, signature))
        .hasMessageContaining("signature does not match");
    assertThatThrownBy(() -> verify(signer, "/v1/table/a$b/commit", body, "admin", at, signature))
        .hasMessageContaining("signature does not match");
    assertThatThrownBy(() -> signer.verify("POST", "/v1/table/a$b/commit", body, "alice", "2", "12000", "7",
        "http://10.0.0.1:9101", Long.toString(at), signature)).hasMessageContaining("signature does not match");
  }

  @Test
  void refusesAnotherSecretsSignature() {
    long at = NOW.toEpochMilli();
    ForwardSigner other = new ForwardSigner("another-secret-of-some-length", Clock.fixed(NOW, ZoneOffset.UTC));
    String signature = other.sign("POST", "/v1/table/a$b/commit", call, at, body);
    assertThatThrownBy(() -> verify(signer, "/v1/table/a$b/commit", body, "alice", at, signature))
        .hasMessageContaining("signature does not match");
  }

  @Test
  void refusesOldRequestsAndMissingOrMalformedHeaders() {
    long old = NOW.minus(ForwardSigner.MAX_SKEW).minus(Duration.ofSeconds(1)).toEpochMilli();
    String signature = signer.sign("POST", "/p", call, old, body);
    assertThatThrownBy(() -> verify(signer, "/p", body, "alice", old, signature)).hasMessageContaining("minutes");
    assertThatThrownBy(() -> signer.verify("POST", "/p", body, "alice", null, "1", "7", "s", "1", "sig"))
        .hasMessageContaining("must carry");
    assertThatThrownBy(() -> signer.verify("POST", "/p", body, "alice", "x", "1", "7", "s", "1", "sig"))
        .hasMessageContaining("malformed");
    assertThatThrownBy(() -> signer.verify("POST", "/p", body, "alice", "0", "1", "7", "s", "1", "sig"))
        .hasMessageContaining("malformed");
  }
}
