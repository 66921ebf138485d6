package dev.lancecommit.client;

import java.time.Duration;
import java.util.Objects;

/**
 * How the client retries; one policy for every call of a {@link CommitClient}.
 *
 * <ul>
 *   <li>409/14 (retryable conflict) on an Append: resubmitted on the conflicting version by the client itself (appends
 *       commute), at most {@code maxRebuilds} times; the same for calls given a {@link TransactionRebuilder} (the
 *       client's own {@code delete}). Any other retryable conflict surfaces as {@link RetryableConflictException}.
 *   <li>503 and other 5xx, or no answer (I/O error, timeout): the identical bytes are sent again (CommitTable is
 *       idempotent per transaction uuid), with exponential backoff and full jitter (the project's
 *       {@code dev.lancecommit.retry.RetryPolicy}), until {@code retryBudget} is spent; then
 *       {@link CommitStateUnknownException}. A zero budget sends once.
 *   <li>429 (throttled): the same, waiting at least the {@code Retry-After} the answer names; then
 *       {@link ThrottledException} (or {@link CommitStateUnknownException} when an earlier attempt's outcome was
 *       unknown).
 * </ul>
 *
 * @param maxRebuilds how many times one call may rebuild its transaction on a newer version
 * @param retryBudget how long one call keeps resubmitting after 429/5xx/no answer
 * @param initialBackoff the first backoff ceiling; each retry doubles it up to {@code maxBackoff}
 * @param maxBackoff the largest backoff ceiling
 * @param requestTimeout how long one HTTP request may take before it counts as "no answer"
 */
public record RetryPolicy(int maxRebuilds, Duration retryBudget, Duration initialBackoff, Duration maxBackoff,
    Duration requestTimeout) {

  public static final RetryPolicy DEFAULT = new RetryPolicy(
      10, Duration.ofSeconds(60), Duration.ofMillis(50), Duration.ofSeconds(5), Duration.ofSeconds(60));

  public RetryPolicy {
    if (maxRebuilds < 0) {
      throw new IllegalArgumentException("maxRebuilds must be >= 0, got " + maxRebuilds);
    }
    for (Duration d : new Duration[] {retryBudget, initialBackoff, maxBackoff, requestTimeout}) {
      Objects.requireNonNull(d, "durations must not be null");
      if (d.isNegative()) {
        throw new IllegalArgumentException("durations must not be negative, got " + d);
      }
    }
    if (requestTimeout.isZero() || initialBackoff.isZero()) {
      throw new IllegalArgumentException("requestTimeout and initialBackoff must be positive");
    }
    if (maxBackoff.compareTo(initialBackoff) < 0) {
      throw new IllegalArgumentException("maxBackoff " + maxBackoff + " is below initialBackoff " + initialBackoff);
    }
  }

  public RetryPolicy withMaxRebuilds(int value) {
    return new RetryPolicy(value, retryBudget, initialBackoff, maxBackoff, requestTimeout);
  }

  public RetryPolicy withRetryBudget(Duration value) {
    return new RetryPolicy(maxRebuilds, value, initialBackoff, maxBackoff, requestTimeout);
  }

  public RetryPolicy withBackoff(Duration initial, Duration max) {
    return new RetryPolicy(maxRebuilds, retryBudget, initial, max, requestTimeout);
  }

  public RetryPolicy withRequestTimeout(Duration value) {
    return new RetryPolicy(maxRebuilds, retryBudget, initialBackoff, maxBackoff, value);
  }
}
