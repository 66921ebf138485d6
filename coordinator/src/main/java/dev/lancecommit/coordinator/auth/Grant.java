package dev.lancecommit.coordinator.auth;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One permission on one namespace or table and everything below it. In configuration a grant is written
 * {@code <id>:<permission>} with the id's parts joined by {@code $} (the Lance namespace default delimiter) and
 * {@code $} alone for the root namespace, e.g. {@code sales:commit}, {@code sales$orders:read}, {@code $:admin}.
 */
public record Grant(List<String> resource, Permission permission) {
  private static final String DELIMITER = "$";

  public Grant {
    resource = List.copyOf(resource);
    Objects.requireNonNull(permission, "permission");
  }

  /** True when this grant covers {@code target}: the target is the granted resource or lies below it. */
  public boolean covers(List<String> target) {
    return target.size() >= resource.size() && target.subList(0, resource.size()).equals(resource);
  }

  /** True when {@code target} is the granted resource, above it or below it: listings may show it. */
  public boolean reveals(List<String> target) {
    int common = Math.min(target.size(), resource.size());
    return target.subList(0, common).equals(resource.subList(0, common));
  }

  /** Parses {@code <id>:<permission>}; the last {@code :} separates the two. */
  public static Grant parse(String text) {
    String trimmed = text.trim();
    int colon = trimmed.lastIndexOf(':');
    if (colon <= 0 || colon == trimmed.length() - 1) {
      throw new IllegalArgumentException(
          "Grant '" + text + "' must be <id>:<permission>, e.g. sales:read or sales$orders:commit");
    }
    String id = trimmed.substring(0, colon).trim();
    Permission permission = Permission.parse(trimmed.substring(colon + 1));
    if (id.equals(DELIMITER)) {
      return new Grant(List.of(), permission);
    }
    List<String> parts = Arrays.asList(id.split(Pattern.quote(DELIMITER), -1));
    if (parts.stream().anyMatch(String::isBlank)) {
      throw new IllegalArgumentException("Grant '" + text + "' names an identifier with an empty part");
    }
    return new Grant(parts, permission);
  }

  @Override
  public String toString() {
    return (resource.isEmpty() ? DELIMITER : String.join(DELIMITER, resource)) + ":" + permission.wireName();
  }
}
