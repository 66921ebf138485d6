package dev.lancecommit.coordinator.retention;

import java.time.Duration;
import java.util.Objects;

/**
 * What the cleanup keeps, in the spirit of Lance's {@code CleanupPolicy}: the latest version always, the newest
 * {@code minVersions} versions, every version younger than {@code minAge}, every tagged version; and every file that a
 * kept version (of the table or of any of its branches) names, or that is younger than {@code minAge}.
 *
 * @param minVersions versions kept whatever their age (at least 1: the latest)
 * @param minAge versions younger than this are kept, and so are files younger than this that no version names yet
 *     (they may belong to a commit in flight: a writer must commit within this age of writing its files)
 */
public record RetentionPolicy(int minVersions, Duration minAge) {
  public RetentionPolicy {
    Objects.requireNonNull(minAge, "minAge");
    if (minVersions < 1) {
      throw new IllegalArgumentException("minVersions must be at least 1 (the latest version), got " + minVersions);
    }
    if (minAge.isNegative()) {
      throw new IllegalArgumentException("minAge must not be negative, got " + minAge);
    }
  }
}
