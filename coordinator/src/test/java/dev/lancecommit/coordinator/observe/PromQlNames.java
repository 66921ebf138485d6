package dev.lancecommit.coordinator.observe;

import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The metric names a PromQL expression selects (functions, keywords, label names and durations left out). */
final class PromQlNames {
  private static final Set<String> KEYWORDS = Set.of("by", "without", "on", "ignoring", "group_left", "group_right",
      "bool", "and", "or", "unless", "offset", "inf", "nan");
  private static final Pattern IDENTIFIER = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");

  private PromQlNames() {}

  static Set<String> of(String expr) {
    String s = expr
        .replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "\"\"") // strings
        .replaceAll("\\{[^}]*}", " ") // label matchers
        .replaceAll("\\[[^]]*]", " ") // range and subquery durations
        .replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " "); // grouping labels
    Set<String> names = new TreeSet<>();
    Matcher m = IDENTIFIER.matcher(s);
    while (m.find()) {
      String token = m.group();
      int after = m.end();
      while (after < s.length() && Character.isWhitespace(s.charAt(after))) {
        after++;
      }
      boolean function = after < s.length() && s.charAt(after) == '(';
      boolean numberPart = m.start() > 0 && Character.isDigit(s.charAt(m.start() - 1));
      if (!function && !numberPart && !KEYWORDS.contains(token.toLowerCase())) {
        names.add(token);
      }
    }
    return names;
  }
}
