package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.namespace.TableEntry;
import java.util.Locale;
import java.util.Map;

/**
 * Whether a table's versions are managed through the namespace: DescribeTable and DeclareTable then answer
 * {@code managed_versioning: true} and stock Lance clients commit with CreateTableVersion instead of writing the
 * final manifest themselves. Set per table with the table property {@value #PROPERTY} ({@code true} or
 * {@code false}) at declare or register time; tables without it follow the server default.
 */
final class ManagedVersioning {
  static final String PROPERTY = "managed_versioning";

  private final boolean byDefault;

  ManagedVersioning(boolean byDefault) {
    this.byDefault = byDefault;
  }

  /** Refuses a {@value #PROPERTY} value other than {@code true} or {@code false} (400/13), before anything is written. */
  static void validate(Map<String, String> properties) {
    String value = properties.get(PROPERTY);
    if (value != null && parse(value) == null) {
      throw ApiException.invalidInput("Table property '" + PROPERTY + "' must be true or false, got '" + value + "'");
    }
  }

  boolean of(TableEntry entry) {
    String value = entry.properties().get(PROPERTY);
    Boolean parsed = value == null ? null : parse(value);
    return parsed == null ? byDefault : parsed;
  }

  private static Boolean parse(String value) {
    return switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "true" -> Boolean.TRUE;
      case "false" -> Boolean.FALSE;
      default -> null;
    };
  }
}
