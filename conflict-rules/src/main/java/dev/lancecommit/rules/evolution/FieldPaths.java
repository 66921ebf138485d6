package dev.lancecommit.rules.evolution;

import dev.lancecommit.format.pb.Field;
import dev.lancecommit.rules.ColumnNotFoundException;
import dev.lancecommit.rules.InvalidTransactionException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Lance field paths, as the namespace spec defines them: dot-separated segments from a top-level field down; a
 * segment holding a dot or a backtick is quoted with backticks, and a backtick inside a quoted segment is doubled
 * (so {@code `a.b`.c} is the child {@code c} of the top-level field {@code a.b}). A path of one segment names a
 * top-level field only. Resolved against a manifest's flat field list, whose {@code parent_id} links a child to its
 * parent ({@code -1} at the top level).
 */
public final class FieldPaths {
  private FieldPaths() {}

  /**
   * The segments of {@code path}.
   *
   * @throws InvalidTransactionException for an empty path, an empty segment or an unclosed quote (400/13)
   */
  public static List<String> parse(String path) {
    if (path == null || path.isEmpty()) {
      throw new InvalidTransactionException("A field path must not be empty");
    }
    List<String> segments = new ArrayList<>();
    StringBuilder segment = new StringBuilder();
    int i = 0;
    while (i <= path.length()) {
      if (i < path.length() && path.charAt(i) == '`' && segment.isEmpty()) {
        int j = i + 1;
        boolean closed = false;
        while (j < path.length()) {
          char c = path.charAt(j);
          if (c == '`') {
            if (j + 1 < path.length() && path.charAt(j + 1) == '`') {
              segment.append('`');
              j += 2;
              continue;
            }
            closed = true;
            break;
          }
          segment.append(c);
          j++;
        }
        if (!closed) {
          throw new InvalidTransactionException("Field path '" + path + "' has an unclosed backtick");
        }
        i = j + 1;
        if (i < path.length() && path.charAt(i) != '.') {
          throw new InvalidTransactionException("Field path '" + path + "': a quoted segment must end at a dot");
        }
        if (segment.isEmpty()) {
          throw new InvalidTransactionException("Field path '" + path + "' has an empty segment");
        }
        continue;
      }
      if (i == path.length() || path.charAt(i) == '.') {
        if (segment.isEmpty()) {
          throw new InvalidTransactionException("Field path '" + path + "' has an empty segment");
        }
        segments.add(segment.toString());
        segment.setLength(0);
        i++;
        continue;
      }
      segment.append(path.charAt(i));
      i++;
    }
    return List.copyOf(segments);
  }

  /**
   * The field {@code path} names in {@code schema}.
   *
   * @throws ColumnNotFoundException when no field has that path (404/12)
   * @throws InvalidTransactionException when the path is malformed (400/13)
   */
  public static Field resolve(List<Field> schema, String path) {
    List<String> segments = parse(path);
    int parent = -1;
    Field found = null;
    for (String name : segments) {
      found = null;
      for (Field field : schema) {
        if (field.getParentId() == parent && field.getName().equals(name)) {
          found = field;
          break;
        }
      }
      if (found == null) {
        throw new ColumnNotFoundException(path, "Column '" + path + "' does not exist in the table");
      }
      parent = found.getId();
    }
    return found;
  }

  /** The canonical path of {@code field}: every segment from the top, quoted where it needs to be. */
  public static String canonical(List<Field> schema, Field field) {
    Map<Integer, Field> byId = new HashMap<>();
    for (Field f : schema) {
      byId.putIfAbsent(f.getId(), f);
    }
    List<String> names = new ArrayList<>();
    Field current = field;
    for (int depth = 0; current != null && depth <= schema.size(); depth++) {
      names.add(0, quote(current.getName()));
      current = current.getParentId() < 0 ? null : byId.get(current.getParentId());
    }
    return String.join(".", names);
  }

  static String quote(String name) {
    if (name.indexOf('.') < 0 && name.indexOf('`') < 0) {
      return name;
    }
    return "`" + name.replace("`", "``") + "`";
  }
}
