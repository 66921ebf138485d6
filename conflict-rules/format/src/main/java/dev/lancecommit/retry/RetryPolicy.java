package dev.lancecommit.retry;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * How long to wait between attempts of an operation that fails transiently, and when to give up: exponential
 * growth from {@code initialDelay} by {@code multiplier}, capped at {@code maxDelay}, spread by jitter so that many
 * callers failing together do not retry together, bounded by a number of attempts and/or a deadline (neither by
 * default: retry until it works).
 *
 * <p>The policy only computes pauses; callers wait the way their thread allows (a sleep on a worker, a scheduled
 * task, the next poll of a loop). Immutable; {@link #start()} gives the per-operation state, a {@link Backoff}.
 *
 * <pre>{@code
 * Backoff backoff = policy.start();
 * while (true) {
 *   try { return attempt(); } catch (TransientException e) {
 *     Duration pause = backoff.onFailure().orElseThrow(() -> e);
 *     sleep(pause);
 *   }
 * }
 * }</pre>
 */
public final class RetryPolicy {

  /** How a pause is spread around the exponential delay {@code d(n) = min(maxDelay, initial * multiplier^(n-1))}. */
  public enum Jitter {
    /** Exactly {@code d(n)}: deterministic, for tests and single callers. */
    NONE,
    /** Uniform in {@code [0, d(n)]} ("full jitter"). */
    FULL,
    /**
     * Uniform in {@code [initialDelay, 3 * previous pause]}, capped at {@code maxDelay} ("decorrelated jitter"): never
     * sooner than the initial delay, spread as widely as full jitter.
     */
    DECORRELATED
  }

  private final Duration initialDelay;
  private final Duration maxDelay;
  private final double multiplier;
  private final Jitter jitter;
  private final int maxAttempts;
  private final Duration maxElapsed;

  private RetryPolicy(Duration initialDelay, Duration maxDelay, double multiplier, Jitter jitter, int maxAttempts,
      Duration maxElapsed) {
    this.initialDelay = initialDelay;
    this.maxDelay = maxDelay;
    this.multiplier = multiplier;
    this.jitter = jitter;
    this.maxAttempts = maxAttempts;
    this.maxElapsed = maxElapsed;
  }

  /**
   * Doubling pauses from {@code initialDelay} up to {@code maxDelay}, decorrelated jitter, no limit on attempts or
   * time.
   *
   * @throws IllegalArgumentException if a delay is not positive or the initial delay exceeds the maximum
   */
  public static RetryPolicy exponential(Duration initialDelay, Duration maxDelay) {
    requirePositive(initialDelay, "initial delay");
    requirePositive(maxDelay, "max delay");
    if (initialDelay.compareTo(maxDelay) > 0) {
      throw new IllegalArgumentException("initial delay " + initialDelay.toMillis() + " ms exceeds max delay "
          + maxDelay.toMillis() + " ms");
    }
    return new RetryPolicy(initialDelay, maxDelay, 2.0, Jitter.DECORRELATED, 0, null);
  }

  /** A copy growing by {@code multiplier} (at least 1) per failure. */
  public RetryPolicy withMultiplier(double multiplier) {
    if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
      throw new IllegalArgumentException("multiplier must be a finite number >= 1, got " + multiplier);
    }
    return new RetryPolicy(initialDelay, maxDelay, multiplier, jitter, maxAttempts, maxElapsed);
  }

  public RetryPolicy withJitter(Jitter jitter) {
    return new RetryPolicy(initialDelay, maxDelay, multiplier, Objects.requireNonNull(jitter, "jitter"), maxAttempts,
        maxElapsed);
  }

  /** A copy that gives up after {@code attempts} attempts in all (the first one included); at least 1. */
  public RetryPolicy withMaxAttempts(int attempts) {
    if (attempts < 1) {
      throw new IllegalArgumentException("max attempts must be >= 1, got " + attempts);
    }
    return new RetryPolicy(initialDelay, maxDelay, multiplier, jitter, attempts, maxElapsed);
  }

  /**
   * A copy that gives up once {@code deadline} has passed since {@link #start()}; a pause never ends past it.
   */
  public RetryPolicy withMaxElapsed(Duration deadline) {
    requirePositive(deadline, "max elapsed time");
    return new RetryPolicy(initialDelay, maxDelay, multiplier, jitter, maxAttempts, deadline);
  }

  public Duration initialDelay() {
    return initialDelay;
  }

  public Duration maxDelay() {
    return maxDelay;
  }

  public double multiplier() {
    return multiplier;
  }

  public Jitter jitter() {
    return jitter;
  }

  /** Attempts in all before giving up; empty: unbounded. */
  public Optional<Integer> maxAttempts() {
    return maxAttempts == 0 ? Optional.empty() : Optional.of(maxAttempts);
  }

  /** Time from {@link #start()} after which no attempt starts; empty: unbounded. */
  public Optional<Duration> maxElapsed() {
    return Optional.ofNullable(maxElapsed);
  }

  /** The backoff of one operation, on the system clock with a thread-local random source. */
  public Backoff start() {
    return start(System::nanoTime, () -> ThreadLocalRandom.current().nextDouble());
  }

  /**
   * The backoff of one operation.
   *
   * @param nanoClock monotonic time in nanoseconds (for the deadline)
   * @param random uniform numbers in {@code [0, 1)} (for jitter)
   */
  public Backoff start(LongSupplier nanoClock, DoubleSupplier random) {
    return new Backoff(this, nanoClock, random);
  }

  /** The pause after failure {@code failures} (1 = the first) before jitter: the capped exponential delay. */
  long exponentialNanos(int failures) {
    double nanos = initialDelay.toNanos() * Math.pow(multiplier, Math.max(0, failures - 1));
    return (long) Math.min(maxDelay.toNanos(), nanos);
  }

  long initialNanos() {
    return initialDelay.toNanos();
  }

  long maxNanos() {
    return maxDelay.toNanos();
  }

  int maxAttemptsOrZero() {
    return maxAttempts;
  }

  long maxElapsedNanosOrZero() {
    return maxElapsed == null ? 0 : maxElapsed.toNanos();
  }

  @Override
  public String toString() {
    return "RetryPolicy[" + initialDelay.toMillis() + ".." + maxDelay.toMillis() + " ms x" + multiplier + ", "
        + jitter.name().toLowerCase(java.util.Locale.ROOT) + " jitter"
        + (maxAttempts == 0 ? "" : ", " + maxAttempts + " attempts")
        + (maxElapsed == null ? "" : ", within " + maxElapsed.toMillis() + " ms") + "]";
  }

  private static void requirePositive(Duration value, String what) {
    Objects.requireNonNull(value, what);
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(what + " must be positive, got " + value.toMillis() + " ms");
    }
  }
}
