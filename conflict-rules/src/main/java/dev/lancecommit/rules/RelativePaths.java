package dev.lancecommit.rules;

import java.util.regex.Pattern;

/**
 * Paths a transaction may name (data files, external row-id files, index files) must stay inside the table: a
 * relative path, no {@code ..} segment, no leading {@code /}, no URI scheme, no backslash, no control character.
 */
final class RelativePaths {
  private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:");

  private RelativePaths() {}

  /** @throws InvalidTransactionException naming {@code what} and the offending path */
  static void require(String path, String what) {
    String problem = problem(path);
    if (problem != null) {
      throw new InvalidTransactionException(what + " path '" + printable(path) + "' " + problem
          + ": paths must be relative and stay inside the table");
    }
  }

  static String problem(String path) {
    if (path.isEmpty()) {
      return "is empty";
    }
    if (path.startsWith("/")) {
      return "is absolute";
    }
    if (path.indexOf('\\') >= 0) {
      return "contains a backslash";
    }
    if (SCHEME.matcher(path).find()) {
      return "has a URI scheme";
    }
    for (int i = 0; i < path.length(); i++) {
      if (Character.isISOControl(path.charAt(i))) {
        return "contains a control character";
      }
    }
    for (String segment : path.split("/", -1)) {
      if (segment.equals("..")) {
        return "has a '..' segment";
      }
    }
    return null;
  }

  private static String printable(String path) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < path.length() && i < 200; i++) {
      char c = path.charAt(i);
      out.append(Character.isISOControl(c) ? String.format("\\u%04x", (int) c) : String.valueOf(c));
    }
    return out.toString();
  }
}
