package dev.lancecommit.coordinator.namespace;

import java.util.OptionalLong;

/**
 * Reads the version out of a file name in a dataset's {@code _versions/} directory, for both Lance naming schemes:
 * V1 {@code {version}.manifest} and V2 {@code {u64::MAX - version}.manifest} zero-padded to 20 digits. Everything
 * else (detached {@code d...} manifests, temp files, {@code latest_version_hint.json}) yields nothing.
 */
public final class ManifestVersions {
  private static final String SUFFIX = ".manifest";
  private static final int V2_DIGITS = 20;

  private ManifestVersions() {}

  public static OptionalLong parse(String fileName) {
    if (!fileName.endsWith(SUFFIX)) {
      return OptionalLong.empty();
    }
    String digits = fileName.substring(0, fileName.length() - SUFFIX.length());
    if (digits.isEmpty() || digits.length() > V2_DIGITS || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return OptionalLong.empty();
    }
    try {
      if (digits.length() == V2_DIGITS) {
        // u64::MAX - n is the bitwise complement of n; a result with bit 63 set is not a committed version.
        long version = ~Long.parseUnsignedLong(digits);
        return version >= 0 ? OptionalLong.of(version) : OptionalLong.empty();
      }
      return OptionalLong.of(Long.parseLong(digits));
    } catch (NumberFormatException outOfRange) {
      return OptionalLong.empty();
    }
  }

  /** The V2 file name of a version, for tests and tools. */
  public static String v2Name(long version) {
    String digits = Long.toUnsignedString(~version);
    return "0".repeat(V2_DIGITS - digits.length()) + digits + SUFFIX;
  }
}
