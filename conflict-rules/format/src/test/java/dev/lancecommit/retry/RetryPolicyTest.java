package dev.lancecommit.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.retry.RetryPolicy.Jitter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {
  private final AtomicLong now = new AtomicLong(5_000_000_000L);

  private static Duration ms(long millis) {
    return Duration.ofMillis(millis);
  }

  private static List<Long> pausesMillis(Backoff backoff, int failures) {
    List<Long> out = new ArrayList<>();
    for (int i = 0; i < failures; i++) {
      out.add(backoff.onFailure().orElseThrow().toMillis());
    }
    return out;
  }

  @Test
  void withoutJitterPausesDoubleFromTheInitialDelayUpToTheCap() {
    Backoff backoff = RetryPolicy.exponential(ms(100), ms(1000)).withJitter(Jitter.NONE).start(now::get, () -> 0.5);
    assertThat(pausesMillis(backoff, 6)).containsExactly(100L, 200L, 400L, 800L, 1000L, 1000L);
    assertThat(backoff.failures()).isEqualTo(6);
  }

  @Test
  void theMultiplierSetsTheGrowth() {
    Backoff backoff = RetryPolicy.exponential(ms(10), ms(10_000)).withMultiplier(3).withJitter(Jitter.NONE)
        .start(now::get, () -> 0.5);
    assertThat(pausesMillis(backoff, 4)).containsExactly(10L, 30L, 90L, 270L);
  }

  @Test
  void fullJitterSpreadsEachPauseOverZeroToTheExponentialDelay() {
    RetryPolicy policy = RetryPolicy.exponential(ms(100), ms(1000)).withJitter(Jitter.FULL);
    assertThat(pausesMillis(policy.start(now::get, () -> 0.0), 3)).containsExactly(0L, 0L, 0L);
    assertThat(pausesMillis(policy.start(now::get, () -> 0.5), 5)).containsExactly(50L, 100L, 200L, 400L, 500L);
    Random random = new Random(7);
    Backoff spread = policy.start(now::get, random::nextDouble);
    for (int failure = 1; failure <= 50; failure++) {
      long cap = Math.min(1000, 100L << Math.min(failure - 1, 10));
      assertThat(spread.onFailure().orElseThrow().toMillis()).isBetween(0L, cap);
    }
  }

  @Test
  void decorrelatedJitterNeverPausesLessThanTheInitialDelayNorMoreThanTheCap() {
    RetryPolicy policy = RetryPolicy.exponential(ms(100), ms(2000));
    assertThat(policy.jitter()).isEqualTo(Jitter.DECORRELATED);
    // the top of each window is three times the previous pause
    assertThat(pausesMillis(policy.start(now::get, () -> 0.999_999_999), 5))
        .containsExactly(100L, 299L, 899L, 2000L, 2000L);
    assertThat(pausesMillis(policy.start(now::get, () -> 0.0), 4)).containsExactly(100L, 100L, 100L, 100L);
    Random random = new Random(11);
    Backoff spread = policy.start(now::get, random::nextDouble);
    List<Long> seen = pausesMillis(spread, 200);
    assertThat(seen).allSatisfy(p -> assertThat(p).isBetween(100L, 2000L));
    assertThat(seen.stream().distinct().count()).as("pauses are spread, not synchronised").isGreaterThan(50);
  }

  @Test
  void givesUpAfterMaxAttemptsCountingTheFirst() {
    Backoff backoff = RetryPolicy.exponential(ms(1), ms(10)).withMaxAttempts(3).start(now::get, () -> 0.5);
    assertThat(backoff.onFailure()).isPresent();
    assertThat(backoff.onFailure()).isPresent();
    assertThat(backoff.onFailure()).isEmpty();
    assertThat(backoff.failures()).isEqualTo(3);
    assertThat(RetryPolicy.exponential(ms(1), ms(10)).withMaxAttempts(1).start().onFailure()).isEmpty();
  }

  @Test
  void givesUpAtTheDeadlineAndNeverPausesPastIt() {
    Backoff backoff = RetryPolicy.exponential(ms(400), ms(400)).withJitter(Jitter.NONE).withMaxElapsed(ms(1000))
        .start(now::get, () -> 0.5);
    assertThat(backoff.onFailure()).contains(ms(400));
    now.addAndGet(ms(400).toNanos());
    assertThat(backoff.onFailure()).contains(ms(400));
    now.addAndGet(ms(400).toNanos());
    assertThat(backoff.onFailure()).as("200 ms left").contains(ms(200));
    now.addAndGet(ms(200).toNanos());
    assertThat(backoff.onFailure()).isEmpty();
  }

  @Test
  void resetStartsOverAfterASuccess() {
    Backoff backoff = RetryPolicy.exponential(ms(100), ms(1000)).withJitter(Jitter.NONE).withMaxAttempts(3)
        .withMaxElapsed(ms(500)).start(now::get, () -> 0.5);
    pausesMillis(backoff, 2);
    now.addAndGet(ms(450).toNanos());
    backoff.reset();
    assertThat(backoff.failures()).isZero();
    assertThat(backoff.onFailure()).contains(ms(100));
  }

  @Test
  void refusesSettingsThatMakeNoSense() {
    assertThatThrownBy(() -> RetryPolicy.exponential(ms(0), ms(10))).hasMessageContaining("initial delay");
    assertThatThrownBy(() -> RetryPolicy.exponential(ms(20), ms(10))).hasMessageContaining("exceeds max delay");
    assertThatThrownBy(() -> RetryPolicy.exponential(ms(1), ms(10)).withMaxAttempts(0))
        .hasMessageContaining("max attempts");
    assertThatThrownBy(() -> RetryPolicy.exponential(ms(1), ms(10)).withMultiplier(0.5))
        .hasMessageContaining("multiplier");
    assertThat(RetryPolicy.exponential(ms(1), ms(10)).maxAttempts()).isEqualTo(Optional.empty());
  }
}
