package dev.lancecommit.coordinator.namespace;

import java.util.Locale;

/** The spec's mode strings are case-insensitive and may be PascalCase or snake_case ("ExistOk", "exist_ok"). */
final class Modes {
  private Modes() {}

  static String normalize(String mode) {
    return mode.replace("_", "").toLowerCase(Locale.ROOT);
  }
}
