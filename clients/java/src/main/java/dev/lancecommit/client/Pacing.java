package dev.lancecommit.client;

import dev.lancecommit.retry.Backoff;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * When one call tries again: the project's {@link dev.lancecommit.retry.RetryPolicy} (exponential, full jitter,
 * bounded by the retry budget) unless the answer says {@code Retry-After}, which is a floor (plus up to one initial
 * backoff of jitter, so that clients told the same time do not all come back at once).
 */
final class Pacing {
  private final Optional<dev.lancecommit.retry.RetryPolicy> shared;
  private final Duration initial;
  private final Duration budget;

  Pacing(RetryPolicy policy) {
    this.initial = policy.initialBackoff();
    this.budget = policy.retryBudget();
    this.shared = budget.isZero() ? Optional.empty() : Optional.of(dev.lancecommit.retry.RetryPolicy
        .exponential(policy.initialBackoff(), policy.maxBackoff())
        .withJitter(dev.lancecommit.retry.RetryPolicy.Jitter.FULL)
        .withMaxElapsed(budget));
  }

  /** The pacing of one call, started now. */
  Call start() {
    return new Call();
  }

  /** One call's attempts. Not thread-safe: a call runs on one thread. */
  final class Call {
    private final long startNanos = System.nanoTime();
    private final Optional<Backoff> backoff = shared.map(dev.lancecommit.retry.RetryPolicy::start);
    private int attempts = 1;

    /**
     * The pause before the next attempt after a failed one, or empty when the retry budget does not allow another
     * (a {@code Retry-After} that would end past the budget is not shortened: the call stops instead).
     */
    Optional<Duration> next(Optional<Duration> retryAfter) {
      if (backoff.isEmpty()) {
        return Optional.empty();
      }
      Optional<Duration> pause = backoff.get().onFailure();
      if (pause.isEmpty()) {
        return Optional.empty();
      }
      if (retryAfter.isPresent()) {
        Duration floor = retryAfter.get().plusMillis(ThreadLocalRandom.current().nextLong(initial.toMillis() + 1));
        if (elapsed().plus(floor).compareTo(budget) > 0) {
          return Optional.empty();
        }
        pause = Optional.of(floor);
      }
      attempts++;
      return pause;
    }

    int attempts() {
      return attempts;
    }

    Duration elapsed() {
      return Duration.ofNanos(System.nanoTime() - startNanos);
    }
  }

  /** {@code Retry-After} as delta-seconds or an HTTP date (RFC 9110), if the answer carries a valid one. */
  static Optional<Duration> retryAfter(Optional<String> header, Instant now) {
    Optional<String> value = header.map(String::trim);
    if (value.isEmpty() || value.get().isEmpty()) {
      return Optional.empty();
    }
    String v = value.get();
    if (v.chars().allMatch(Character::isDigit)) {
      try {
        return Optional.of(Duration.ofSeconds(Long.parseLong(v)));
      } catch (NumberFormatException e) {
        return Optional.empty();
      }
    }
    try {
      Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      Duration wait = Duration.between(now, at);
      return Optional.of(wait.isNegative() ? Duration.ZERO : wait);
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }
}
