package dev.lancecommit.coordinator.auth;

import java.util.Locale;

/**
 * What a grant allows on a namespace or table and everything below it.
 *
 * <ul>
 *   <li>{@link #READ}: describe, list and read versions;
 *   <li>{@link #WRITE}: create namespaces and declare or register tables inside a namespace (implies read);
 *   <li>{@link #COMMIT}: commit transactions to a table (implies read);
 *   <li>{@link #ADMIN}: everything, including drop, deregister, rename and the Overwrite modes.
 * </ul>
 */
public enum Permission {
  READ,
  WRITE,
  COMMIT,
  ADMIN;

  /** True when holding this permission is enough for {@code needed}. */
  public boolean implies(Permission needed) {
    return this == needed || this == ADMIN || needed == READ;
  }

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses {@code read}, {@code write}, {@code commit} or {@code admin}, ignoring case. */
  public static Permission parse(String text) {
    for (Permission permission : values()) {
      if (permission.name().equalsIgnoreCase(text.trim())) {
        return permission;
      }
    }
    throw new IllegalArgumentException("Unknown permission '" + text + "': expected read, write, commit or admin");
  }
}
