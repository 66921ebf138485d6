package dev.lancecommit.config;

import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import org.apache.kafka.common.config.ConfigDef;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;

/**
 * A command line (picocli) made from a {@link ConfigKeys} group: every key can be given as {@code --<key> VALUE} (or
 * {@code --<key>=VALUE}; a boolean key alone means true), every member of a key family likewise, {@code --config
 * FILE} reads a properties file of keys first (the command line wins), and {@code --help} prints the command's usage
 * followed by the keys' markdown table, so the help is generated from the same declarations as everything else.
 *
 * <p>{@code command} may be a picocli-annotated object with the command's own options besides the keys (they are
 * listed in the usage; the keys are documented in the table only).
 */
public final class ConfigCommandLine {
  private final ConfigKeys keys;
  private final String name;
  private final CommandSpec spec;
  private CommandLine commandLine;
  private final Map<String, String> commandLineValues = new LinkedHashMap<>();
  private Map<String, String> pairs = new LinkedHashMap<>();
  private Path configFile;

  /**
   * @param name the command's name in the usage
   * @param description one paragraph on what the command does
   * @param command picocli-annotated object holding the command's own options, or null
   * @param keys the configuration keys the command takes as options
   */
  public ConfigCommandLine(String name, String description, Object command, ConfigKeys keys) {
    this.keys = Objects.requireNonNull(keys, "keys");
    CommandSpec spec = command == null ? CommandSpec.create() : CommandSpec.forAnnotatedObject(command);
    spec.name(name);
    spec.usageMessage().description(description);
    spec.addOption(OptionSpec.builder("-h", "--help").usageHelp(true)
        .description("Print this help (the options and every configuration key) and exit.").build());
    spec.addOption(OptionSpec.builder("--config").paramLabel("FILE").type(String.class)
        .description("Properties file of configuration keys, read first; options on the command line win.")
        .setter(new CommandLine.Model.ISetter() {
          @Override
          public <T> T set(T value) {
            configFile = value == null ? null : Path.of((String) value);
            return null;
          }
        }).build());
    for (ConfigKey<?> key : keys.keys()) {
      boolean flag = key.type() == ConfigDef.Type.BOOLEAN;
      OptionSpec.Builder option = OptionSpec.builder("--" + key.name())
          .paramLabel(flag ? "true|false" : "VALUE")
          .type(String.class)
          .arity(flag ? "0..1" : "1")
          .hidden(true)
          .setter(new CommandLine.Model.ISetter() {
            @Override
            public <T> T set(T value) {
              if (value != null) {
                commandLineValues.put(key.name(), (String) value);
              }
              return null;
            }
          });
      if (flag) {
        option.fallbackValue("true");
      }
      spec.addOption(option.build());
    }
    spec.usageMessage().synopsisHeading("Usage: ").width(110);
    this.name = name;
    this.spec = spec;
  }

  /**
   * Adds {@code option} (e.g. {@code --bootstrap}) as another name of {@code key}, listed in the usage. Call before
   * {@link #parse}.
   */
  public ConfigCommandLine alias(String option, ConfigKey<?> key, String paramLabel) {
    keys.definition(key);
    spec.addOption(OptionSpec.builder(option).paramLabel(paramLabel).type(String.class)
        .description("Sets " + key.name() + " (see below).")
        .setter(new CommandLine.Model.ISetter() {
          @Override
          public <T> T set(T value) {
            if (value != null) {
              commandLineValues.put(key.name(), (String) value);
            }
            return null;
          }
        }).build());
    return this;
  }

  /** Adds {@code --set KEY=VALUE} (repeatable), another way to give any key. Call before {@link #parse}. */
  public ConfigCommandLine withSetOption() {
    spec.addOption(OptionSpec.builder("--set").paramLabel("KEY=VALUE").type(Map.class)
        .auxiliaryTypes(String.class, String.class)
        .description("Sets any configuration key below (repeatable).")
        .initialValue(pairs).hasInitialValue(true)
        .getter(new CommandLine.Model.IGetter() {
          @Override
          @SuppressWarnings("unchecked")
          public <T> T get() {
            return (T) pairs;
          }
        })
        .setter(new CommandLine.Model.ISetter() {
          @Override
          @SuppressWarnings("unchecked")
          public <T> T set(T value) {
            pairs = (Map<String, String>) value; // picocli may hand over a map of its own, then fill it
            return null;
          }
        }).build());
    return this;
  }

  private CommandLine commandLine() {
    if (commandLine == null) {
      spec.usageMessage().customSynopsis(synopsis(spec, name));
      commandLine = new CommandLine(spec);
      commandLine.setUnmatchedOptionsArePositionalParams(false);
    }
    return commandLine;
  }

  private static String synopsis(CommandSpec spec, String name) {
    StringBuilder out = new StringBuilder(name);
    for (OptionSpec option : spec.options()) {
      if (!option.hidden() && !option.usageHelp() && !option.versionHelp()) {
        out.append(" [").append(option.longestName())
            .append(option.arity().max() > 0 ? " " + option.paramLabel() : "").append("]")
            .append(option.isMultiValue() ? "..." : "");
      }
    }
    return out.append(" [--<key> VALUE]...").toString();
  }

  /**
   * Parses {@code args}. Returns false when they asked for help, which has been printed to {@code out}.
   *
   * @throws ConfigurationException for an unknown option, a missing value, or an unreadable {@code --config} file
   */
  public boolean parse(PrintStream out, String... args) {
    List<String> rest = new ArrayList<>();
    Map<String, String> members = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      String name = arg.startsWith("--") ? arg.substring(2) : null;
      String value = null;
      if (name != null && name.contains("=")) {
        value = name.substring(name.indexOf('=') + 1);
        name = name.substring(0, name.indexOf('='));
      }
      String option = name;
      boolean member = option != null && keys.key(option).isEmpty()
          && keys.families().stream().anyMatch(f -> f.member(option).isPresent());
      if (!member) {
        rest.add(arg);
        continue;
      }
      if (value == null) {
        if (i + 1 >= args.length) {
          throw new ConfigurationException(name, "Option --" + name + " needs a value");
        }
        value = args[++i];
      }
      members.put(name, value);
    }
    try {
      commandLine().parseArgs(rest.toArray(String[]::new));
    } catch (CommandLine.UnmatchedArgumentException e) {
      String unknown = e.getUnmatched().get(0);
      String option = unknown.startsWith("--") ? unknown.substring(2).split("=", 2)[0] : unknown;
      throw new ConfigurationException(null, "Unknown option '" + unknown + "'" + keys.suggestions(option, "--"), e);
    } catch (ParameterException e) {
      throw new ConfigurationException(null, e.getMessage(), e);
    }
    if (commandLine().isUsageHelpRequested()) {
      out.print(usage());
      out.flush();
      return false;
    }
    commandLineValues.putAll(members);
    return true;
  }

  /**
   * The key values asked for: the {@code --config} file's, then the command line's over them. Names are checked
   * when the values are parsed with the group ({@link ConfigKeys#parse}).
   */
  public Map<String, String> values() {
    Map<String, String> values = new LinkedHashMap<>();
    if (configFile != null) {
      values.putAll(load(configFile));
    }
    values.putAll(commandLineValues);
    if (pairs != null) {
      values.putAll(pairs);
    }
    return values;
  }

  /** {@link #values()} restricted to the names {@code group} accepts. */
  public Map<String, String> values(ConfigKeys group) {
    Map<String, String> values = new LinkedHashMap<>(values());
    values.keySet().removeIf(name -> !group.accepts(name));
    return values;
  }

  /** Whether {@code key} was given on the command line or in the {@code --config} file. */
  public boolean given(ConfigKey<?> key) {
    return values().containsKey(key.name());
  }

  /** The usage text: synopsis, the command's own options, and the keys' table. */
  public String usage() {
    // the table is appended as it is: picocli would wrap its rows
    return commandLine().getUsageMessage(CommandLine.Help.Ansi.OFF)
        + "\nConfiguration keys (each as --<key> VALUE, or in the --config file):\n\n" + keys.markdown();
  }

  /** Reads a properties file of configuration keys. */
  public static Map<String, String> load(Path file) {
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(file)) {
      properties.load(reader);
    } catch (IOException e) {
      throw new ConfigurationException(null, "Cannot read configuration file " + file + ": " + e.getMessage(), e);
    }
    Map<String, String> values = new LinkedHashMap<>();
    for (String name : properties.stringPropertyNames()) {
      values.put(name, properties.getProperty(name));
    }
    return values;
  }
}
