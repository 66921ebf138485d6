package dev.lancecommit.coordinator.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CredentialsTest {

  @Test
  void readsBothHeaders() {
    Credentials c = Credentials.fromHeaders(List.of(" k1 "), List.of("Bearer  t1"));
    assertThat(c.apiKey()).contains("k1");
    assertThat(c.bearerToken()).contains("t1");
    assertThat(Credentials.fromHeaders(List.of(), List.of("bearer t2")).bearerToken()).contains("t2");
    assertThat(Credentials.fromHeaders(List.of(), List.of()).isEmpty()).isTrue();
  }

  @Test
  void malformedHeadersAreRefused() {
    assertThatThrownBy(() -> Credentials.fromHeaders(List.of("a", "b"), List.of()))
        .isInstanceOf(UnauthenticatedException.class).hasMessageContaining("2 times");
    assertThatThrownBy(() -> Credentials.fromHeaders(List.of(""), List.of()))
        .isInstanceOf(UnauthenticatedException.class);
    assertThatThrownBy(() -> Credentials.fromHeaders(List.of(), List.of("Basic dXNlcjpwYXNz")))
        .isInstanceOf(UnauthenticatedException.class).hasMessageContaining("Bearer");
    assertThatThrownBy(() -> Credentials.fromHeaders(List.of(), List.of("Bearer ")))
        .isInstanceOf(UnauthenticatedException.class);
  }

  @Test
  void staticAuthenticatorChecksEveryCredentialGiven() {
    StaticAuthenticator auth = StaticAuthenticator.builder()
        .apiKey("ana", "ka").token("ana", "ta").token("bob", "tb").build();
    assertThat(auth.authenticate(new Credentials(Optional.of("ka"), Optional.of("ta")))).isEqualTo(new Principal("ana"));
    assertThatThrownBy(() -> auth.authenticate(new Credentials(Optional.of("ka"), Optional.of("tb"))))
        .isInstanceOf(UnauthenticatedException.class).hasMessageContaining("different principals");
    assertThatThrownBy(() -> auth.authenticate(new Credentials(Optional.of("ka"), Optional.of("nope"))))
        .isInstanceOf(UnauthenticatedException.class).hasMessageContaining("bearer token");
    assertThatThrownBy(() -> auth.authenticate(Credentials.none()))
        .isInstanceOf(UnauthenticatedException.class).hasMessageContaining("x-api-key");
    assertThatThrownBy(() -> StaticAuthenticator.builder().apiKey("a", " padded"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
