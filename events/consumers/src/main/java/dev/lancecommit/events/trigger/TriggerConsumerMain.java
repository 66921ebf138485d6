package dev.lancecommit.events.trigger;

import dev.lancecommit.events.consumer.CommandArgs;
import dev.lancecommit.events.consumer.CommitEventConsumer;
import dev.lancecommit.events.consumer.ConsumerCommands;
import dev.lancecommit.events.consumer.ConsumerOptions;
import dev.lancecommit.events.consumer.FileCheckpointStore;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.LoggerFactory;

/**
 * The trigger consumer command: watches commits and runs compaction / index refreshes through the coordinator.
 *
 * <pre>
 * --bootstrap HOST:PORT --coordinator http://HOST:PORT [--topic lance.commits] [--group lance-commit-trigger]
 * [--min-fragments 8] [--max-small-rows 100000] [--max-fragments-per-compaction 256]
 * [--max-unindexed-rows 100000 (-1: no index refreshes)] [--max-attempts 5] [--detect-only false]
 * [--token TOKEN (or env LANCECOMMIT_TOKEN)] [--storage-option key=value]... [--actions trigger-actions.jsonl]
 * [--checkpoints trigger.checkpoints.jsonl] [--gap-timeout-ms N] [--set consumer-key=value]...
 * </pre>
 *
 * Exit codes: 0 stopped, 1 failure, 2 bad usage.
 */
public final class TriggerConsumerMain {
  public static final String DEFAULT_GROUP = "lance-commit-trigger";
  public static final String TOKEN_ENV = "LANCECOMMIT_TOKEN";

  private static final List<String> FLAGS = List.of("coordinator", "min-fragments", "max-small-rows",
      "max-fragments-per-compaction", "max-unindexed-rows", "max-attempts", "detect-only", "token",
      "storage-option", "actions");

  private static final String USAGE = """
      usage: TriggerConsumerMain --bootstrap HOST:PORT --coordinator http://HOST:PORT [--topic T] [--group G]
                                 [--min-fragments N] [--max-small-rows M] [--max-fragments-per-compaction K]
                                 [--max-unindexed-rows L|-1] [--max-attempts A] [--detect-only true|false]
                                 [--token TOKEN] [--storage-option key=value]... [--actions FILE]
                                 [--checkpoints FILE] [--gap-timeout-ms N] [--set key=value]...""";

  private TriggerConsumerMain() {}

  public static void main(String[] args) {
    ConsumerCommands.initLogging();
    System.exit(run(args, System.err));
  }

  /** Runs until the JVM is stopped; returns the exit code. */
  public static int run(String[] args, PrintStream err) {
    Settings settings;
    try {
      settings = Settings.parse(args);
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      err.println(USAGE);
      return 2;
    }
    MaintenanceWorker worker = settings.detectOnly ? null : new LanceMaintenance(settings.storageOptions);
    FileCheckpointStore store = FileCheckpointStore.open(settings.checkpoints);
    MaintenanceRunner runner = new MaintenanceRunner(settings.coordinator, settings.policy, worker,
        MaintenanceRecorder.jsonLines(settings.actions), settings.maxAttempts);
    CommitEventConsumer consumer = new CommitEventConsumer(settings.consumer, store, new TriggerHandler(runner));
    LoggerFactory.getLogger(TriggerConsumerMain.class).info(
        "watching topic {} of {} as group {}; committing through {}; {}; actions in {}",
        settings.consumer.topic(), settings.consumer.bootstrapServers(), settings.consumer.groupId(),
        settings.coordinator.baseUrl(), settings.policy, settings.actions.toAbsolutePath());
    return ConsumerCommands.runUntilStopped(consumer, store, worker == null ? () -> { } : worker);
  }

  /** The parsed flags. */
  record Settings(ConsumerOptions consumer, CoordinatorClient coordinator, TriggerPolicy policy, int maxAttempts,
      boolean detectOnly, Map<String, String> storageOptions, Path actions, Path checkpoints) {

    static Settings parse(String[] args) {
      Set<String> allowed = new HashSet<>(ConsumerCommands.CONSUMER_FLAGS);
      allowed.addAll(FLAGS);
      CommandArgs parsed = CommandArgs.parse(args, allowed);
      if (parsed.command().isPresent()) {
        throw new IllegalArgumentException("unexpected argument '" + parsed.command().get() + "'");
      }
      ConsumerOptions consumer = ConsumerCommands.options(parsed, DEFAULT_GROUP);
      Optional<String> token = parsed.get("token").or(() -> Optional.ofNullable(System.getenv(TOKEN_ENV)));
      CoordinatorClient coordinator = new CoordinatorClient(parsed.require("coordinator"), token,
          Duration.ofSeconds(60));
      TriggerPolicy policy = new TriggerPolicy(
          (int) parsed.getLong("min-fragments", TriggerPolicy.DEFAULT_MIN_FRAGMENTS),
          parsed.getLong("max-small-rows", TriggerPolicy.DEFAULT_MAX_SMALL_ROWS),
          (int) parsed.getLong("max-fragments-per-compaction", TriggerPolicy.DEFAULT_MAX_FRAGMENTS_PER_COMPACTION),
          parsed.getLong("max-unindexed-rows", TriggerPolicy.DEFAULT_MAX_UNINDEXED_ROWS));
      int maxAttempts = (int) parsed.getLong("max-attempts", 5);
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("--max-attempts must be >= 1");
      }
      String detect = parsed.get("detect-only", "false");
      if (!detect.equals("true") && !detect.equals("false")) {
        throw new IllegalArgumentException("--detect-only must be true or false, got '" + detect + "'");
      }
      return new Settings(consumer, coordinator, policy, maxAttempts, Boolean.parseBoolean(detect),
          parsed.pairs("storage-option"), Path.of(parsed.get("actions", "trigger-actions.jsonl")),
          Path.of(parsed.get("checkpoints", "trigger.checkpoints.jsonl")));
    }
  }
}
