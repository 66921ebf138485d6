package dev.lancecommit.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Validator;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * An ordered group of configuration keys (one feature's, or a whole program's made of several features' groups),
 * each declared once with its type, default, validator and documentation on Kafka's {@link ConfigDef}.
 *
 * <pre>{@code
 * private static final ConfigKeys KEYS = new ConfigKeys();
 * public static final ConfigKey<Integer> THREADS = KEYS.integer("commit.threads", 32, atLeast(1), "Worker threads.");
 * ...
 * Config config = KEYS.parse(Map.of("commit.threads", "8"));   // refuses unknown keys and invalid values
 * int threads = config.get(THREADS);
 * }</pre>
 */
public final class ConfigKeys {
  private final ConfigDef def = new ConfigDef();
  private final Map<String, ConfigKey<?>> keys = new LinkedHashMap<>();
  private final List<KeyFamily> families = new ArrayList<>();

  /** A group of the keys and key families of {@code groups}, in their order; a name declared twice is refused. */
  public static ConfigKeys of(ConfigKeys... groups) {
    ConfigKeys all = new ConfigKeys();
    for (ConfigKeys group : groups) {
      for (ConfigKey<?> key : group.keys.values()) {
        if (all.keys.containsKey(key.name())) {
          throw new IllegalStateException("configuration key " + key.name() + " is declared twice");
        }
        all.def.define(group.def.configKeys().get(key.name()));
        all.keys.put(key.name(), key);
      }
      all.families.addAll(group.families);
    }
    return all;
  }

  /** Accepts one of {@code values}, ignoring case; documented as {@code one of a, b, c}. */
  public static Validator oneOf(String... values) {
    List<String> allowed = List.of(values);
    return ConfigDef.LambdaValidator.with((name, value) -> {
      if (value == null || allowed.stream().noneMatch(v -> v.equalsIgnoreCase(((String) value).trim()))) {
        throw new ConfigException(name, value, "not one of " + String.join(", ", allowed));
      }
    }, () -> "one of " + String.join(", ", allowed));
  }

  /** Text; {@code validator} may be null. */
  public ConfigKey<String> string(String name, String defaultValue, Validator validator, String doc) {
    return define(name, Type.STRING, defaultValue, validator, doc, String.class::cast);
  }

  public ConfigKey<String> string(String name, String defaultValue, String doc) {
    return string(name, defaultValue, null, doc);
  }

  /** Text that must be given (no default); parsing fails naming the key when it is missing. */
  public ConfigKey<String> requiredString(String name, String doc) {
    return define(name, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyString(), doc,
        String.class::cast);
  }

  /** A secret (default empty): read as text, never printed (documentation, {@link Config#toString()}). */
  public ConfigKey<String> secret(String name, String doc) {
    return define(name, Type.PASSWORD, "", null, doc, value -> ((Password) value).value());
  }

  public ConfigKey<Boolean> bool(String name, boolean defaultValue, String doc) {
    return define(name, Type.BOOLEAN, defaultValue, null, doc, Boolean.class::cast);
  }

  /** A whole number; a null default makes the key optional (reads as null when not given). */
  public ConfigKey<Integer> integer(String name, Integer defaultValue, Validator validator, String doc) {
    return define(name, Type.INT, defaultValue, nullable(defaultValue, validator), doc, Integer.class::cast);
  }

  public ConfigKey<Short> shortInteger(String name, short defaultValue, Validator validator, String doc) {
    return define(name, Type.SHORT, defaultValue, validator, doc, Short.class::cast);
  }

  /** A whole number; a null default makes the key optional (reads as null when not given). */
  public ConfigKey<Long> longInteger(String name, Long defaultValue, Validator validator, String doc) {
    return define(name, Type.LONG, defaultValue, nullable(defaultValue, validator), doc, Long.class::cast);
  }

  public ConfigKey<Double> decimal(String name, double defaultValue, Validator validator, String doc) {
    return define(name, Type.DOUBLE, defaultValue, validator, doc, Double.class::cast);
  }

  /** A duration given in milliseconds (the name ends in {@code .ms} by convention). */
  public ConfigKey<Duration> millis(String name, long defaultMillis, Validator validator, String doc) {
    return define(name, Type.LONG, defaultMillis, validator, doc, value -> Duration.ofMillis((Long) value));
  }

  /**
   * Keys named by a pattern with one group, the part the user chooses: {@code documentedName} shows it, e.g.
   * {@code family("consumer.<property>", "consumer\\.(.+)", "", "...")}.
   */
  public KeyFamily family(String documentedName, String regex, String defaultValue, String doc) {
    KeyFamily family = new KeyFamily(documentedName, Pattern.compile(regex), defaultValue, doc, false);
    families.add(family);
    return family;
  }

  /** Like {@link #family}, for secrets. */
  public KeyFamily secretFamily(String documentedName, String regex, String doc) {
    KeyFamily family = new KeyFamily(documentedName, Pattern.compile(regex), "", doc, true);
    families.add(family);
    return family;
  }

  public List<ConfigKey<?>> keys() {
    return List.copyOf(keys.values());
  }

  public List<KeyFamily> families() {
    return Collections.unmodifiableList(families);
  }

  public Optional<ConfigKey<?>> key(String name) {
    return Optional.ofNullable(keys.get(name));
  }

  /** Whether {@code name} is a key or belongs to a key family of this group. */
  public boolean accepts(String name) {
    return keys.containsKey(name) || families.stream().anyMatch(f -> f.member(name).isPresent());
  }

  /** Refuses a name that is neither a key nor a member of a key family, suggesting the nearest ones. */
  public void requireKnown(String name) {
    if (!accepts(name)) {
      throw new ConfigurationException(name, "Unknown configuration key '" + name + "'" + suggestions(name, ""));
    }
  }

  /** The documented default of {@code key} as text ({@code ""} for secrets and keys without one). */
  public String defaultText(ConfigKey<?> key) {
    return defaultText(definition(key));
  }

  /** What a value of {@code key} may be, e.g. {@code whole number, [1,...]}. */
  public String accepts(ConfigKey<?> key) {
    ConfigDef.ConfigKey d = definition(key);
    String type = typeName(d.type);
    return d.validator == null ? type : type + ", " + d.validator;
  }

  /** The documentation of {@code key}. */
  public String doc(ConfigKey<?> key) {
    return definition(key).documentation;
  }

  /**
   * Parses {@code values} (by key name): every key not given takes its default, every value is parsed as its type
   * and checked by its validator. Members of key families are kept as given.
   *
   * @throws ConfigurationException naming the key: unknown, missing, not of its type, or refused by its validator
   */
  public Config parse(Map<String, String> values) {
    for (String name : values.keySet()) {
      requireKnown(name);
    }
    Map<String, Object> parsed = new LinkedHashMap<>();
    for (ConfigDef.ConfigKey d : def.configKeys().values()) {
      String given = values.get(d.name);
      Object value;
      if (given != null) {
        try {
          value = ConfigDef.parseType(d.name, given, d.type);
        } catch (ConfigException e) {
          throw new ConfigurationException(d.name, "Configuration key " + d.name + " needs " + typeName(d.type)
              + ", got '" + given + "'" + acceptsSuffix(d));
        }
      } else if (d.hasDefault()) {
        value = d.defaultValue;
      } else {
        throw new ConfigurationException(d.name, "Configuration key " + d.name + " is required" + acceptsSuffix(d));
      }
      if (d.validator != null) {
        try {
          d.validator.ensureValid(d.name, value);
        } catch (ConfigException e) {
          throw new ConfigurationException(d.name, "Configuration key " + d.name + ": " + reason(d.name, e)
              + ", got '" + (given != null ? (d.type == Type.PASSWORD ? "[hidden]" : given) : value) + "'"
              + acceptsSuffix(d), e);
        }
      }
      parsed.put(d.name, value);
    }
    Map<String, String> members = new LinkedHashMap<>();
    values.forEach((name, value) -> {
      if (!keys.containsKey(name)) {
        members.put(name, value);
      }
    });
    return new Config(this, parsed, members);
  }

  /** Every key at its default (fails if a key has none). */
  public Config defaults() {
    return parse(Map.of());
  }

  /** The keys and key families as a markdown table: key, default, accepted values, meaning. */
  public String markdown() {
    StringBuilder out = new StringBuilder("| key | default | accepts | meaning |\n|---|---|---|---|\n");
    for (ConfigKey<?> key : keys.values()) {
      ConfigDef.ConfigKey d = definition(key);
      out.append("| `").append(d.name).append("` | ").append(code(defaultText(d))).append(" | ")
          .append(accepts(key).replace("|", "\\|")).append(" | ").append(d.documentation.replace("|", "\\|"))
          .append(" |\n");
    }
    for (KeyFamily family : families) {
      out.append("| `").append(family.documentedName()).append("` | ").append(code(family.defaultValue()))
          .append(" | ").append(family.secret() ? "secret" : "text").append(" | ")
          .append(family.doc().replace("|", "\\|")).append(" |\n");
    }
    return out.toString();
  }

  ConfigDef.ConfigKey definition(ConfigKey<?> key) {
    ConfigDef.ConfigKey d = def.configKeys().get(key.name());
    if (d == null || keys.get(key.name()) != key) {
      throw new IllegalArgumentException("configuration key " + key.name() + " is not one of this group");
    }
    return d;
  }

  private <T> ConfigKey<T> define(String name, Type type, Object defaultValue, Validator validator, String doc,
      Function<Object, T> convert) {
    if (keys.containsKey(name)) {
      throw new IllegalStateException("configuration key " + name + " is declared twice");
    }
    def.define(name, type, defaultValue, validator, Importance.MEDIUM, doc);
    ConfigKey<T> key = new ConfigKey<>(name, type, convert);
    keys.put(name, key);
    return key;
  }

  /** A validator that lets an optional key's null default through. */
  private static Validator nullable(Object defaultValue, Validator validator) {
    if (defaultValue != null || validator == null) {
      return validator;
    }
    return new Validator() {
      @Override
      public void ensureValid(String name, Object value) {
        if (value != null) {
          validator.ensureValid(name, value);
        }
      }

      @Override
      public String toString() {
        return validator.toString();
      }
    };
  }

  private static String defaultText(ConfigDef.ConfigKey d) {
    if (!d.hasDefault() || d.defaultValue == null) {
      return d.hasDefault() ? "" : "(required)";
    }
    if (d.type == Type.PASSWORD) {
      return "";
    }
    return ConfigDef.convertToString(d.defaultValue, d.type);
  }

  private static String code(String text) {
    return text.isEmpty() ? "" : text.equals("(required)") ? text : "`" + text + "`";
  }

  private String acceptsSuffix(ConfigDef.ConfigKey d) {
    return " (accepts " + (d.validator == null ? typeName(d.type) : typeName(d.type) + ", " + d.validator) + ")";
  }

  private static String reason(String name, ConfigException e) {
    String message = String.valueOf(e.getMessage());
    String marker = "for configuration " + name + ":";
    int at = message.indexOf(marker);
    return (at >= 0 ? message.substring(at + marker.length()) : message).trim();
  }

  private static String typeName(Type type) {
    return switch (type) {
      case INT, SHORT, LONG -> "a whole number";
      case DOUBLE -> "a number";
      case BOOLEAN -> "true or false";
      case PASSWORD -> "a secret";
      case LIST -> "a comma-separated list";
      default -> "text";
    };
  }

  /** {@code ". Did you mean a, b?"} naming the keys nearest to {@code name}, or empty. */
  String suggestions(String name, String prefix) {
    List<String> names = new ArrayList<>(keys.keySet());
    families.forEach(f -> names.add(f.documentedName()));
    List<String> near = new ArrayList<>(names.stream()
        .filter(candidate -> distance(name, candidate) <= Math.max(3, name.length() / 4))
        .sorted(Comparator.comparingInt(candidate -> distance(name, candidate)))
        .limit(3)
        .toList());
    for (KeyFamily family : families) {
      String literal = family.documentedName().substring(0, Math.max(0, family.documentedName().indexOf('<')));
      if (!literal.isEmpty() && name.startsWith(literal) && !near.contains(family.documentedName())) {
        near.add(family.documentedName());
      }
    }
    return near.isEmpty() ? "" : ". Did you mean " + String.join(", ", near.stream().map(n -> prefix + n).toList())
        + "?";
  }

  private static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
