package dev.lancecommit.config;

import java.util.Objects;
import java.util.function.Function;
import org.apache.kafka.common.config.ConfigDef;

/**
 * One declared configuration key whose values read as {@code T}. Declared with a {@link ConfigKeys} group (which
 * holds its type, default, validator and documentation) and read with {@link Config#get(ConfigKey)}.
 *
 * @param <T> the Java type a value reads as
 */
public final class ConfigKey<T> {
  private final String name;
  private final ConfigDef.Type type;
  private final Function<Object, T> convert;

  ConfigKey(String name, ConfigDef.Type type, Function<Object, T> convert) {
    this.name = Objects.requireNonNull(name, "name");
    this.type = type;
    this.convert = convert;
  }

  public String name() {
    return name;
  }

  public ConfigDef.Type type() {
    return type;
  }

  /** The parsed value (null stays null) as {@code T}. */
  T convert(Object parsed) {
    return parsed == null ? null : convert.apply(parsed);
  }

  @Override
  public String toString() {
    return name;
  }
}
