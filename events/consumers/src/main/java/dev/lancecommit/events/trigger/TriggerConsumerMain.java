package dev.lancecommit.events.trigger;

import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;

import dev.lancecommit.config.Config;
import dev.lancecommit.config.ConfigCommandLine;
import dev.lancecommit.config.ConfigKey;
import dev.lancecommit.config.ConfigKeys;
import dev.lancecommit.events.consumer.CommitEventConsumer;
import dev.lancecommit.events.consumer.ConsumerCommands;
import dev.lancecommit.events.consumer.ConsumerOptions;
import dev.lancecommit.events.consumer.FileCheckpointStore;
import dev.lancecommit.events.tracing.Telemetry;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Option;

/**
 * The trigger consumer command: watches commits and runs compaction / index refreshes through the coordinator.
 *
 * <pre>
 * --bootstrap HOST:PORT --coordinator http://HOST:PORT [--topic lance.commits] [--group lance-commit-trigger]
 * [--min-fragments 8] [--max-small-rows 100000] [--max-fragments-per-compaction 256]
 * [--max-unindexed-rows 100000 (-1: no index refreshes)] [--max-attempts 5] [--detect-only false]
 * [--token TOKEN (or env LANCECOMMIT_TOKEN)] [--storage-option key=value]... [--actions trigger-actions.jsonl]
 * [--checkpoints trigger.checkpoints.jsonl] [--gap-timeout-ms N] [--set consumer-key=value]... [--config FILE]
 * </pre>
 *
 * Every option but {@code --storage-option} is a configuration key ({@code --help} lists them). Exit codes: 0
 * stopped, 1 failure, 2 bad usage.
 */
public final class TriggerConsumerMain {
  public static final String DEFAULT_GROUP = "lance-commit-trigger";
  public static final String TOKEN_ENV = "LANCECOMMIT_TOKEN";

  private static final ConfigKeys KEYS = new ConfigKeys();
  public static final ConfigKey<String> COORDINATOR = KEYS.requiredString("coordinator",
      "Base URL of the coordinator the maintenance commits go through, http(s)://host:port.");
  public static final ConfigKey<Integer> MAX_ATTEMPTS = KEYS.integer("max-attempts", 5, atLeast(1),
      "Commit attempts after retryable conflicts (409/14).");
  public static final ConfigKey<Boolean> DETECT_ONLY = KEYS.bool("detect-only", false,
      "Only record what is due, write nothing.");
  public static final ConfigKey<String> TOKEN = KEYS.secret("token",
      "Bearer token for the coordinator; empty = the environment variable " + TOKEN_ENV + ".");
  public static final ConfigKey<String> ACTIONS = KEYS.string("actions", "trigger-actions.jsonl",
      "One JSON line per decision: committed, due, abandoned, failed, unknown.");
  public static final ConfigKey<String> CHECKPOINTS = KEYS.string("checkpoints", "trigger.checkpoints.jsonl",
      "Consumer checkpoints (JSON lines).");

  private static final String DESCRIPTION = "Watches commit events and runs compaction and index refreshes, "
      + "committing them through the coordinator's CommitTable (group " + DEFAULT_GROUP + " unless --group says "
      + "otherwise).";

  /** The options that are not configuration keys. */
  static final class Flags {
    @Option(names = "--storage-option", paramLabel = "KEY=VALUE",
        description = "A Lance storage option for reading and writing tables (repeatable).")
    Map<String, String> storageOptions = new LinkedHashMap<>();
  }

  private TriggerConsumerMain() {}

  /** Every key the command takes: the consumer library's, the trigger policy's and the command's own. */
  public static ConfigKeys keys() {
    return ConfigKeys.of(ConsumerOptions.keys(), TriggerPolicy.keys(), KEYS);
  }

  public static void main(String[] args) {
    ConsumerCommands.initLogging();
    System.exit(run(args, System.err));
  }

  /** Runs until the JVM is stopped; returns the exit code. */
  public static int run(String[] args, PrintStream err) {
    Settings settings;
    try {
      settings = Settings.parse(args, System.out);
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      err.println("Run with --help for the options.");
      return 2;
    }
    if (settings == null) {
      return 0; // --help
    }
    MaintenanceWorker worker = settings.detectOnly ? null : new LanceMaintenance(settings.storageOptions);
    FileCheckpointStore store = FileCheckpointStore.open(settings.checkpoints);
    MaintenanceRunner runner = new MaintenanceRunner(settings.coordinator, settings.policy, worker,
        MaintenanceRecorder.jsonLines(settings.actions), settings.maxAttempts);
    Telemetry telemetry = Telemetry.fromEnvironment("lance-commit-trigger");
    CommitEventConsumer consumer = new CommitEventConsumer(settings.consumer, store, new TriggerHandler(runner),
        telemetry.openTelemetry());
    LoggerFactory.getLogger(TriggerConsumerMain.class).info(
        "watching topic {} of {} as group {}; committing through {}; {}; actions in {}",
        settings.consumer.topic(), settings.consumer.bootstrapServers(), settings.consumer.groupId(),
        settings.coordinator.baseUrl(), settings.policy, settings.actions.toAbsolutePath());
    return ConsumerCommands.runUntilStopped(consumer, telemetry, store, worker == null ? () -> { } : worker);
  }

  /** The parsed options. */
  record Settings(ConsumerOptions consumer, CoordinatorClient coordinator, TriggerPolicy policy, int maxAttempts,
      boolean detectOnly, Map<String, String> storageOptions, Path actions, Path checkpoints) {

    /** The settings {@code args} ask for, or null when they ask for help (printed to {@code out}). */
    static Settings parse(String[] args, PrintStream out) {
      ConfigKeys commandKeys = ConfigKeys.of(TriggerPolicy.keys(), KEYS);
      Flags flags = new Flags();
      ConfigCommandLine commandLine = ConsumerCommands.commandLine("TriggerConsumerMain", DESCRIPTION, flags,
          commandKeys);
      if (!commandLine.parse(out, args)) {
        return null;
      }
      Config values = commandKeys.parse(commandLine.values(commandKeys));
      ConsumerOptions consumer = ConsumerCommands.options(commandLine, DEFAULT_GROUP);
      String token = values.get(TOKEN);
      Optional<String> bearer = token.isBlank() ? Optional.ofNullable(System.getenv(TOKEN_ENV)) : Optional.of(token);
      CoordinatorClient coordinator = new CoordinatorClient(values.get(COORDINATOR), bearer, Duration.ofSeconds(60));
      return new Settings(consumer, coordinator, TriggerPolicy.from(values), values.get(MAX_ATTEMPTS),
          values.get(DETECT_ONLY), Map.copyOf(flags.storageOptions), Path.of(values.get(ACTIONS)),
          Path.of(values.get(CHECKPOINTS)));
    }
  }
}
