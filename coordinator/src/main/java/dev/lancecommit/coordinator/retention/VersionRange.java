package dev.lancecommit.coordinator.retention;

/**
 * The spec's {@code VersionRange}: {@code start} inclusive, {@code end} exclusive; {@code end = -1} runs through the
 * latest version (so {@code 0..-1} is every version).
 */
public record VersionRange(long start, long end) {
  public VersionRange {
    if (start < 0) {
      throw new IllegalArgumentException("start_version must be 0 or more, got " + start);
    }
    if (end < -1 || (end != -1 && end <= start)) {
      throw new IllegalArgumentException("end_version must be -1 (through the latest) or above start_version "
          + start + ", got " + end);
    }
  }

  public boolean contains(long version) {
    return version >= start && (end == -1 || version < end);
  }

  @Override
  public String toString() {
    return "[" + start + ", " + (end == -1 ? "latest]" : end + ")");
  }
}
