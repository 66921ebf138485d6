package dev.lancecommit.chaos.bench;

import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;

import dev.lancecommit.config.Config;
import dev.lancecommit.config.ConfigCommandLine;
import dev.lancecommit.config.ConfigKey;
import dev.lancecommit.config.ConfigKeys;
import java.io.PrintStream;
import java.util.Locale;

/** Command-line options of {@link CommitBenchmark}, each a configuration key given as {@code --<key> VALUE}. */
record BenchOptions(int writers, int seconds, int rowsPerCommit, String store, String warehouse, String kafka,
    String mode) {

  private static final ConfigKeys KEYS = new ConfigKeys();
  static final ConfigKey<Integer> WRITERS = KEYS.integer("writers", 16, atLeast(1), "Concurrent writer threads.");
  static final ConfigKey<Integer> SECONDS = KEYS.integer("seconds", 30, atLeast(1), "Duration of each run.");
  static final ConfigKey<Integer> ROWS_PER_COMMIT = KEYS.integer("rows-per-commit", 100, atLeast(1),
      "Rows in the data file of each commit.");
  static final ConfigKey<String> STORE = KEYS.string("store", "local", ConfigKeys.oneOf("local", "s3proxy"),
      "Where both tables live (s3proxy starts one in-process).");
  static final ConfigKey<String> WAREHOUSE = KEYS.string("warehouse", "",
      "Coordinator warehouse; empty: a temp dir, or s3://<bucket>/bench-coordinator.");
  static final ConfigKey<String> KAFKA = KEYS.string("kafka", "embedded", null,
      "Coordinator events: embedded, none, or host:port.");
  static final ConfigKey<String> MODE = KEYS.string("mode", "both", ConfigKeys.oneOf("both", "coordinator", "lance"),
      "Which runs: both, through the coordinator only, or through Lance's own commit loop only.");

  static final String DESCRIPTION = "N concurrent writers append to one table for a fixed time, through the "
      + "coordinator (HTTP CommitTable) and directly through Lance's own commit loop (CommitBuilder), on the same "
      + "kind of store.";

  /** The options {@code args} ask for, or null when they ask for help (printed to {@code out}). */
  static BenchOptions parse(String[] args, PrintStream out) {
    ConfigCommandLine commandLine = new ConfigCommandLine("CommitBenchmark", DESCRIPTION, null, KEYS);
    if (!commandLine.parse(out, args)) {
      return null;
    }
    Config values = KEYS.parse(commandLine.values());
    String warehouse = values.get(WAREHOUSE);
    return new BenchOptions(values.get(WRITERS), values.get(SECONDS), values.get(ROWS_PER_COMMIT),
        values.get(STORE).trim().toLowerCase(Locale.ROOT), warehouse.isBlank() ? null : warehouse,
        values.get(KAFKA), values.get(MODE).trim().toLowerCase(Locale.ROOT));
  }

  boolean runCoordinator() {
    return !mode.equals("lance");
  }

  boolean runLance() {
    return !mode.equals("coordinator");
  }
}
