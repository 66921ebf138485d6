package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.namespace.NamespaceEntry;
import dev.lancecommit.coordinator.namespace.TableEntry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Whether a table's versions are managed through the namespace: DescribeTable and DeclareTable then answer
 * {@code managed_versioning: true} and stock Lance clients commit with CreateTableVersion instead of writing the
 * final manifest themselves. Set per table with the table property {@value #PROPERTY} ({@code true} or
 * {@code false}) at declare or register time. A table declared or registered without it takes the value of the
 * nearest enclosing namespace whose properties set it (stock Lance declares the tables it creates with no properties,
 * so this is how they become managed); the property is then stored on the table. Tables without it follow the server
 * default ({@link RestServerOptions#managedVersioningByDefault()}).
 *
 * <p>{@value #APPENDS_ON_LATEST} ({@code true} or {@code false}, default false; set and inherited the same way) lets
 * an Append staged as a version another writer took land on the latest version instead of being refused, for tables
 * whose stock writers only append and reopen the table rather than use the Dataset the commit returns
 * ({@link dev.lancecommit.coordinator.commit.CreateTableVersion} says why that object is then wrong).
 */
final class ManagedVersioning {
  static final String PROPERTY = "managed_versioning";
  static final String APPENDS_ON_LATEST = "managed_versioning.appends_on_latest";
  private static final List<String> INHERITED = List.of(PROPERTY, APPENDS_ON_LATEST);

  private final boolean byDefault;

  ManagedVersioning(boolean byDefault) {
    this.byDefault = byDefault;
  }

  /** Refuses a {@value #PROPERTY} value other than {@code true} or {@code false} (400/13), before anything is written. */
  static void validate(Map<String, String> properties) {
    for (String property : INHERITED) {
      String value = properties.get(property);
      if (value != null && parse(value) == null) {
        throw ApiException.invalidInput("Table property '" + property + "' must be true or false, got '" + value
            + "'");
      }
    }
  }

  /**
   * The properties to declare a table with: {@code requested}, plus {@value #PROPERTY} and {@value #APPENDS_ON_LATEST}
   * each from the nearest namespace (from {@code namespace} up to the root) that sets it to true or false, when
   * {@code requested} does not.
   * Blocking: reads namespaces.
   */
  static Map<String, String> inherit(Map<String, String> requested, List<String> namespace,
      Function<List<String>, Optional<NamespaceEntry>> namespaces) {
    Map<String, String> inherited = new LinkedHashMap<>(requested);
    for (String property : INHERITED) {
      if (requested.containsKey(property)) {
        continue;
      }
      for (int depth = namespace.size(); depth > 0; depth--) {
        String value = namespaces.apply(namespace.subList(0, depth))
            .map(entry -> entry.properties().get(property)).orElse(null);
        if (value != null && parse(value) != null) {
          inherited.put(property, parse(value).toString());
          break;
        }
      }
    }
    return inherited.equals(requested) ? requested : inherited;
  }

  /** Whether the table lets a taken Append land on the latest version ({@value #APPENDS_ON_LATEST}). */
  static boolean appendsOnLatest(TableEntry entry) {
    String value = entry.properties().get(APPENDS_ON_LATEST);
    return value != null && Boolean.TRUE.equals(parse(value));
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
