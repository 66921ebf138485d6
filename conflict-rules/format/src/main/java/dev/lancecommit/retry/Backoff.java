package dev.lancecommit.retry;

import java.time.Duration;
import java.util.Optional;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * The retry state of one operation under a {@link RetryPolicy}: how many attempts failed, the last pause, when it
 * started. Not thread-safe: one operation is retried by one thread at a time.
 */
public final class Backoff {
  private final RetryPolicy policy;
  private final LongSupplier nanoClock;
  private final DoubleSupplier random;
  private long startNanos;
  private int failures;
  private long previousNanos;

  Backoff(RetryPolicy policy, LongSupplier nanoClock, DoubleSupplier random) {
    this.policy = policy;
    this.nanoClock = nanoClock;
    this.random = random;
    this.startNanos = nanoClock.getAsLong();
  }

  /**
   * Records a failed attempt and answers the pause before the next one, or empty when the policy allows none (the
   * attempts are used up or the deadline has passed; a pause is shortened so that it ends by the deadline).
   */
  public Optional<Duration> onFailure() {
    failures++;
    int maxAttempts = policy.maxAttemptsOrZero();
    if (maxAttempts > 0 && failures >= maxAttempts) {
      return Optional.empty();
    }
    long pause = nextPauseNanos();
    long deadline = policy.maxElapsedNanosOrZero();
    if (deadline > 0) {
      long left = deadline - (nanoClock.getAsLong() - startNanos);
      if (left <= 0) {
        return Optional.empty();
      }
      pause = Math.min(pause, left);
    }
    previousNanos = pause;
    return Optional.of(Duration.ofNanos(pause));
  }

  /** Attempts failed since the start (or the last {@link #reset()}). */
  public int failures() {
    return failures;
  }

  /** Starts over after a success: the next failure pauses the initial delay again, and the deadline restarts. */
  public void reset() {
    failures = 0;
    previousNanos = 0;
    startNanos = nanoClock.getAsLong();
  }

  private long nextPauseNanos() {
    return switch (policy.jitter()) {
      case NONE -> policy.exponentialNanos(failures);
      case FULL -> (long) (uniform() * policy.exponentialNanos(failures));
      case DECORRELATED -> {
        long low = policy.initialNanos();
        long high = Math.max(low, previousNanos == 0 ? low : saturatedTimesThree(previousNanos));
        long pause = low + (long) (uniform() * (high - low));
        yield Math.min(policy.maxNanos(), pause);
      }
    };
  }

  private double uniform() {
    double r = random.getAsDouble();
    return r < 0 ? 0 : Math.min(r, 1.0);
  }

  private static long saturatedTimesThree(long nanos) {
    return nanos > Long.MAX_VALUE / 3 ? Long.MAX_VALUE : nanos * 3;
  }

  @Override
  public String toString() {
    return "Backoff[" + failures + " failures, " + policy + "]";
  }
}
