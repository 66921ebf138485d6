package dev.lancecommit.coordinator.config;

import dev.lancecommit.coordinator.config.ConfigKeys.Key;
import java.util.Map;
import java.util.function.Function;

/** Typed reads of configuration values, with one wording for every malformed value. */
public final class ConfigValues {
  private final Function<Key, String> lookup;

  private ConfigValues(Function<Key, String> lookup) {
    this.lookup = lookup;
  }

  /** Values by key name; a missing key reads as its default. */
  public static ConfigValues of(Map<String, String> values) {
    Map<String, String> copy = Map.copyOf(values);
    return new ConfigValues(key -> copy.get(key.name()));
  }

  /** Values from a lookup that answers null for a missing key. */
  public static ConfigValues of(Function<Key, String> lookup) {
    return new ConfigValues(lookup);
  }

  public String get(Key key) {
    String value = lookup.apply(key);
    return value == null ? key.defaultValue() : value;
  }

  /** The trimmed value, or null when it is blank. */
  public String optional(Key key) {
    String value = get(key);
    return value == null || value.isBlank() ? null : value.trim();
  }

  public int getInt(Key key) {
    try {
      return Integer.parseInt(get(key).trim());
    } catch (NumberFormatException e) {
      throw malformed(key, "a whole number");
    }
  }

  public long getLong(Key key) {
    try {
      return Long.parseLong(get(key).trim());
    } catch (NumberFormatException e) {
      throw malformed(key, "a whole number");
    }
  }

  public double getDouble(Key key) {
    try {
      return Double.parseDouble(get(key).trim());
    } catch (NumberFormatException e) {
      throw malformed(key, "a number");
    }
  }

  public boolean getBoolean(Key key) {
    String value = get(key).trim();
    if (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(value);
    }
    throw malformed(key, "true or false");
  }

  private IllegalArgumentException malformed(Key key, String expected) {
    return new IllegalArgumentException("Configuration key " + key.name() + " needs " + expected + ", got '"
        + get(key) + "'");
  }
}
