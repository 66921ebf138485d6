package dev.lancecommit.coordinator.storage;

/** Validation and joining of object keys; the rules are described on {@link ObjectStore}. */
public final class ObjectKeys {
  /** Key segments starting with this are reserved for temporary files of in-flight writes. */
  public static final String RESERVED_SEGMENT_PREFIX = ".tmp-";

  private ObjectKeys() {}

  /** Returns {@code key} if it is a valid object key, otherwise throws {@link IllegalArgumentException}. */
  public static String checkKey(String key) {
    if (key == null || key.isEmpty()) {
      throw new IllegalArgumentException("object key must not be empty");
    }
    if (key.startsWith("/") || key.endsWith("/")) {
      throw new IllegalArgumentException("object key must not start or end with '/': '" + key + "'");
    }
    if (key.indexOf('\0') >= 0) {
      throw new IllegalArgumentException("object key must not contain NUL: '" + key + "'");
    }
    // Segment by segment without splitting: every store call checks its key.
    for (int start = 0; start <= key.length(); ) {
      int end = key.indexOf('/', start);
      if (end < 0) {
        end = key.length();
      }
      int length = end - start;
      if (length == 0 || (key.charAt(start) == '.' && (length == 1 || (length == 2 && key.charAt(start + 1) == '.')))) {
        throw new IllegalArgumentException(
            "object key must not contain empty, '.' or '..' segments: '" + key + "'");
      }
      if (key.startsWith(RESERVED_SEGMENT_PREFIX, start)) {
        throw new IllegalArgumentException(
            "object key segments must not start with '" + RESERVED_SEGMENT_PREFIX + "' (reserved): '" + key + "'");
      }
      start = end + 1;
    }
    return key;
  }

  /** A directory prefix without its trailing '/'; "" (the root) stays "". */
  public static String normalizePrefix(String prefix) {
    if (prefix == null) {
      throw new IllegalArgumentException("prefix must not be null");
    }
    String trimmed = prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix;
    return trimmed.isEmpty() ? "" : checkKey(trimmed);
  }

  /** {@code parent/child}; either may be empty. {@code child} must be relative. */
  public static String join(String parent, String child) {
    String base = normalizePrefix(parent);
    String rest = normalizePrefix(child);
    if (base.isEmpty()) {
      return rest;
    }
    return rest.isEmpty() ? base : base + "/" + rest;
  }
}
