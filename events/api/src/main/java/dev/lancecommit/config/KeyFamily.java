package dev.lancecommit.config;

import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Keys whose names carry a part chosen by the user, such as {@code auth.principals.<principal>.token} or
 * {@code consumer.<property>}: declared and documented once, matched by a pattern with one capturing group (the
 * chosen part). Its values are read with {@link Config#family(KeyFamily)}; the feature checks them.
 */
public final class KeyFamily {
  private final String documentedName;
  private final Pattern pattern;
  private final String defaultValue;
  private final String doc;
  private final boolean secret;

  KeyFamily(String documentedName, Pattern pattern, String defaultValue, String doc, boolean secret) {
    this.documentedName = Objects.requireNonNull(documentedName, "documentedName");
    this.pattern = Objects.requireNonNull(pattern, "pattern");
    if (pattern.matcher("").groupCount() != 1) {
      throw new IllegalArgumentException("a key family's pattern needs exactly one group: " + pattern);
    }
    this.defaultValue = defaultValue;
    this.doc = Objects.requireNonNull(doc, "doc");
    this.secret = secret;
  }

  /** The name as documented, e.g. {@code auth.principals.<principal>.token}. */
  public String documentedName() {
    return documentedName;
  }

  public String doc() {
    return doc;
  }

  public String defaultValue() {
    return defaultValue;
  }

  /** Whether values are secrets (never printed). */
  public boolean secret() {
    return secret;
  }

  /** The part the user chose, when {@code name} belongs to this family. */
  public Optional<String> member(String name) {
    Matcher matcher = pattern.matcher(name);
    return matcher.matches() ? Optional.of(matcher.group(1)) : Optional.empty();
  }

  @Override
  public String toString() {
    return documentedName;
  }
}
