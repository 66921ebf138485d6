package dev.lancecommit.client;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A table's identifier in the namespace: its namespace parts then its name, e.g. {@code [sales, orders]}. In URLs the
 * parts are joined with {@code $} ({@code sales$orders}), as the Lance namespace REST spec does.
 */
public record TableId(List<String> parts) {
  public static final String DELIMITER = "$";

  public TableId {
    Objects.requireNonNull(parts, "parts");
    parts = List.copyOf(parts);
    if (parts.isEmpty()) {
      throw new IllegalArgumentException("a table id needs at least a table name");
    }
    for (String part : parts) {
      if (part.isEmpty() || part.contains(DELIMITER)) {
        throw new IllegalArgumentException("table id part '" + part + "' is empty or contains '$': " + parts);
      }
    }
  }

  public static TableId of(String... parts) {
    return new TableId(Arrays.asList(parts));
  }

  /** A {@code $}-joined id such as {@code sales$orders}. */
  public static TableId parse(String joined) {
    Objects.requireNonNull(joined, "joined");
    return new TableId(Arrays.asList(joined.split("\\$", -1)));
  }

  /** The {@code $}-joined form used in URLs. */
  public String joined() {
    return String.join(DELIMITER, parts);
  }

  @Override
  public String toString() {
    return joined();
  }
}
