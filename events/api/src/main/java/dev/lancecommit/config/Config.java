package dev.lancecommit.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Parsed, validated configuration values of one {@link ConfigKeys} group: {@link #get(ConfigKey)} reads a key as its
 * type, {@link #family(KeyFamily)} the members of a key family. Immutable.
 */
public final class Config {
  private final ConfigKeys keys;
  private final Map<String, Object> values;
  private final Map<String, String> members;

  Config(ConfigKeys keys, Map<String, Object> values, Map<String, String> members) {
    this.keys = keys;
    this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
    this.members = Collections.unmodifiableMap(new LinkedHashMap<>(members));
  }

  /** The value of {@code key}: as given, or its default. */
  public <T> T get(ConfigKey<T> key) {
    keys.definition(key); // a key of another group is a programming error
    return key.convert(values.get(key.name()));
  }

  /** The members of {@code family} given, by the part the user chose (e.g. principal name to token), sorted. */
  public Map<String, String> family(KeyFamily family) {
    Map<String, String> out = new TreeMap<>();
    members.forEach((name, value) -> family.member(name).ifPresent(member -> out.put(member, value)));
    return out;
  }

  /** The group these values belong to. */
  public ConfigKeys keys() {
    return keys;
  }

  @Override
  public String toString() {
    Map<String, Object> shown = new LinkedHashMap<>();
    for (ConfigKey<?> key : keys.keys()) {
      Object value = values.get(key.name());
      shown.put(key.name(), value); // Kafka's Password prints as [hidden]
    }
    members.forEach((name, value) -> {
      boolean secret = keys.families().stream().anyMatch(f -> f.secret() && f.member(name).isPresent());
      shown.put(name, secret ? "[hidden]" : value);
    });
    return "Config" + shown;
  }
}
