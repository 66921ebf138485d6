package dev.lancecommit.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpHeaders;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BackoffTest {
  private final Backoff backoff = new Backoff(Duration.ofMillis(50), Duration.ofSeconds(5));

  private static HttpHeaders headers(String retryAfter) {
    return HttpHeaders.of(Map.of("Retry-After", List.of(retryAfter)), (k, v) -> true);
  }

  @Test
  void delaysAreJitteredBelowADoublingCeiling() {
    for (int retry = 0; retry < 12; retry++) {
      long ceiling = Math.min(5000, 50L << retry);
      for (int i = 0; i < 200; i++) {
        assertThat(backoff.delay(retry, Optional.empty()).toMillis()).isBetween(0L, ceiling);
      }
    }
    assertThat(backoff.delay(64, Optional.empty()).toMillis()).isBetween(0L, 5000L);
  }

  @Test
  void retryAfterIsAFloorWithAtMostOneInitialBackoffOfJitter() {
    for (int i = 0; i < 200; i++) {
      assertThat(backoff.delay(0, Optional.of(Duration.ofSeconds(2))).toMillis()).isBetween(2000L, 2050L);
    }
  }

  @Test
  void retryAfterIsSecondsOrAnHttpDate() {
    Instant now = Instant.parse("2026-12-01T10:00:00Z");
    assertThat(Backoff.retryAfter(headers("3"), now)).hasValue(Duration.ofSeconds(3));
    assertThat(Backoff.retryAfter(headers("Tue, 01 Dec 2026 10:00:07 GMT"), now)).hasValue(Duration.ofSeconds(7));
    assertThat(Backoff.retryAfter(headers("Tue, 01 Dec 2026 09:00:00 GMT"), now)).hasValue(Duration.ZERO);
    assertThat(Backoff.retryAfter(headers("soon"), now)).isEmpty();
    assertThat(Backoff.retryAfter(HttpHeaders.of(Map.of(), (k, v) -> true), now)).isEmpty();
  }
}
