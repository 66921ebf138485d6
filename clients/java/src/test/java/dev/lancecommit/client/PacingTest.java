package dev.lancecommit.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PacingTest {
  private static final RetryPolicy POLICY = RetryPolicy.DEFAULT.withRetryBudget(Duration.ofSeconds(10))
      .withBackoff(Duration.ofMillis(50), Duration.ofSeconds(5));

  private static Optional<String> headers(String retryAfter) {
    return Optional.of(retryAfter);
  }

  @Test
  void pausesAreFullJitterBelowADoublingCeiling() {
    for (int run = 0; run < 100; run++) {
      Pacing.Call call = new Pacing(POLICY).start();
      for (int retry = 0; retry < 8; retry++) {
        long ceiling = Math.min(5000, 50L << retry);
        assertThat(call.next(Optional.empty())).hasValueSatisfying(
            pause -> assertThat(pause.toMillis()).isBetween(0L, ceiling));
      }
      assertThat(call.attempts()).isEqualTo(9);
    }
  }

  @Test
  void retryAfterIsAFloorWithAtMostOneInitialBackoffOfJitter() {
    for (int i = 0; i < 100; i++) {
      assertThat(new Pacing(POLICY).start().next(Optional.of(Duration.ofSeconds(2))))
          .hasValueSatisfying(pause -> assertThat(pause.toMillis()).isBetween(2000L, 2050L));
    }
  }

  @Test
  void theBudgetEndsTheCall() {
    assertThat(new Pacing(POLICY).start().next(Optional.of(Duration.ofSeconds(11)))).isEmpty();
    assertThat(new Pacing(POLICY.withRetryBudget(Duration.ZERO)).start().next(Optional.empty())).isEmpty();
  }

  @Test
  void retryAfterIsSecondsOrAnHttpDate() {
    Instant now = Instant.parse("2026-12-01T10:00:00Z");
    assertThat(Pacing.retryAfter(headers("3"), now)).hasValue(Duration.ofSeconds(3));
    assertThat(Pacing.retryAfter(headers("Tue, 01 Dec 2026 10:00:07 GMT"), now)).hasValue(Duration.ofSeconds(7));
    assertThat(Pacing.retryAfter(headers("Tue, 01 Dec 2026 09:00:00 GMT"), now)).hasValue(Duration.ZERO);
    assertThat(Pacing.retryAfter(headers("soon"), now)).isEmpty();
    assertThat(Pacing.retryAfter(Optional.empty(), now)).isEmpty();
  }
}
