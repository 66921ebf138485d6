package dev.lancecommit.client;

import java.net.http.HttpHeaders;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/** Exponential backoff with full jitter, or at least what {@code Retry-After} asks for. */
final class Backoff {
  private final Duration initial;
  private final Duration max;

  Backoff(Duration initial, Duration max) {
    this.initial = initial;
    this.max = max;
  }

  /**
   * The wait before retry number {@code retry} (0-based): a uniformly random time up to {@code initial * 2^retry}
   * (capped at {@code max}); with a {@code Retry-After}, that long plus up to {@code initial} of jitter, so clients
   * told the same time do not all come back at once.
   */
  Duration delay(int retry, Optional<Duration> retryAfter) {
    long initialMs = Math.max(1, initial.toMillis());
    if (retryAfter.isPresent()) {
      return retryAfter.get().plusMillis(ThreadLocalRandom.current().nextLong(initialMs + 1));
    }
    long ceiling = retry >= 30 ? max.toMillis() : Math.min(max.toMillis(), initialMs << retry);
    return Duration.ofMillis(ThreadLocalRandom.current().nextLong(Math.max(1, ceiling) + 1));
  }

  /** {@code Retry-After} as delta-seconds or an HTTP date (RFC 9110), if the answer carries a valid one. */
  static Optional<Duration> retryAfter(HttpHeaders headers, Instant now) {
    Optional<String> value = headers.firstValue("Retry-After").map(String::trim);
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
