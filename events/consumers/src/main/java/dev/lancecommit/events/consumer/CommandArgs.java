package dev.lancecommit.events.consumer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Command-line flags of the consumer commands: an optional leading subcommand, then {@code --name value} or
 * {@code --name=value} pairs. A flag may repeat (all values are kept); a flag outside the allowed set is an error.
 */
public final class CommandArgs {
  private final String command;
  private final Map<String, List<String>> values;

  private CommandArgs(String command, Map<String, List<String>> values) {
    this.command = command;
    this.values = values;
  }

  /**
   * Parses {@code args}.
   *
   * @param allowed the flag names (without dashes) accepted
   * @throws IllegalArgumentException naming the offending argument
   */
  public static CommandArgs parse(String[] args, Set<String> allowed) {
    String command = null;
    Map<String, List<String>> values = new LinkedHashMap<>();
    int i = 0;
    if (args.length > 0 && !args[0].startsWith("--")) {
      command = args[0];
      i = 1;
    }
    for (; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("--") || arg.length() == 2) {
        throw new IllegalArgumentException("unexpected argument '" + arg + "' (flags are --name value)");
      }
      String name = arg.substring(2);
      String value;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      } else if (i + 1 < args.length) {
        value = args[++i];
      } else {
        throw new IllegalArgumentException("flag --" + name + " needs a value");
      }
      if (!allowed.contains(name)) {
        throw new IllegalArgumentException("unknown flag --" + name + "; known: --" + String.join(", --",
            allowed.stream().sorted().toList()));
      }
      values.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
    }
    return new CommandArgs(command, values);
  }

  /** The subcommand, if the first argument was not a flag. */
  public Optional<String> command() {
    return Optional.ofNullable(command);
  }

  public Optional<String> get(String name) {
    List<String> all = values.get(name);
    if (all == null) {
      return Optional.empty();
    }
    if (all.size() > 1) {
      throw new IllegalArgumentException("flag --" + name + " was given " + all.size() + " times");
    }
    return Optional.of(all.get(0));
  }

  public String require(String name) {
    return get(name).filter(v -> !v.isBlank())
        .orElseThrow(() -> new IllegalArgumentException("missing --" + name));
  }

  public String get(String name, String defaultValue) {
    return get(name).orElse(defaultValue);
  }

  public List<String> all(String name) {
    return values.getOrDefault(name, List.of());
  }

  public long getLong(String name, long defaultValue) {
    Optional<String> value = get(name);
    if (value.isEmpty()) {
      return defaultValue;
    }
    try {
      return Long.parseLong(value.get().trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + " must be an integer, got '" + value.get() + "'");
    }
  }

  /** {@code --set key=value} pairs (repeatable), as a map; a pair without '=' is an error. */
  public Map<String, String> pairs(String name) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String pair : all(name)) {
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("--" + name + " takes key=value, got '" + pair + "'");
      }
      out.put(pair.substring(0, eq), pair.substring(eq + 1));
    }
    return out;
  }
}
