package dev.lancecommit.chaos.bench;

import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;

import dev.lancecommit.config.Config;
import dev.lancecommit.config.ConfigCommandLine;
import dev.lancecommit.config.ConfigKey;
import dev.lancecommit.config.ConfigKeys;
import dev.lancecommit.testing.lance.LanceTables;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * Command-line options of {@link CommitBenchmark}, each a configuration key given as {@code --<key> VALUE}: which
 * cells of the matrix to run (workloads x stores x writers), for how long, and where the results go.
 */
record BenchOptions(List<Workload.Kind> workloads, List<BenchStore.Kind> stores, List<Integer> writers, int seconds,
    int warmupSeconds, int rowsPerCommit, int tables, int writersPerTable, int keysPerWriter, String kafka, Path out,
    Optional<Path> python, Optional<Path> chartFrom, boolean verifyFiles, boolean localFsync, int dataFilesAhead,
    String coordinatorConfig, boolean coordinatorOwnJvm, String coordinatorJvmOptions, List<String> systems,
    String lanceSession, int settleSeconds) {

  private static final ConfigKeys KEYS = new ConfigKeys();
  static final ConfigKey<String> WORKLOADS = KEYS.string("workloads", "appends,upserts,pylance,tables",
      list(Workload.Kind::parse, "appends, upserts, pylance, tables"), "Workloads to run, comma-separated: appends (N writers append: CommitTable vs "
          + "Lance's CommitBuilder), upserts (N writers upsert disjoint keys: the same scan-free writer commits "
          + "its Update through CommitTable, with affected_rows, and through Lance's CommitBuilder; and Lance's own "
          + "merge_insert), pylance (N stock pylance writers commit appends through the "
          + "namespace, with and without managed_versioning.appends_on_latest, vs the same writers on the path), "
          + "tables (--tables tables x --writers-per-table writers append; --writers is ignored).");
  static final ConfigKey<String> STORES = KEYS.string("stores", "local,s3proxy,s3proxy-20ms",
      list(BenchStore.Kind::parse, "local, s3proxy, s3proxy-20ms"), "Stores, comma-separated: local (a temp dir), s3proxy (in-process), "
          + "s3proxy-20ms (that s3proxy behind a proxy adding 20 ms to every request, for both systems).");
  static final ConfigKey<String> WRITERS = KEYS.string("writers", "1,4,16,64", list(BenchOptions::positive, "positive whole numbers"),
      "Writer counts on one table, comma-separated.");
  static final ConfigKey<Integer> SECONDS = KEYS.integer("seconds", 8, atLeast(1),
      "Measuring window of each run, in seconds.");
  static final ConfigKey<Integer> WARMUP_SECONDS = KEYS.integer("warmup-seconds", 3, atLeast(0),
      "Before the first measured run of each workload, store and system, the same run for this long, unmeasured and "
          + "not reported: the JIT compiles the coordinator's (and the Lance binding's) hot paths, as in a service "
          + "that has been up for a while. 0: measure from a cold JVM. The JIT settles slowly on two cores: at one "
          + "writer a coordinator in its own JVM still compiles after 80 s (9,300 methods, 52 s of compiling), and in "
          + "the benchmark's own JVM it never settles, since that JVM runs the coordinator, Lance and the file writes "
          + "in turn (each run logs the JIT's share of the CPU; see --coordinator-own-jvm). At 64 writers after a 40 s "
          + "warm-up the coordinator's compiler threads still took 19-25% of the two cores inside the window; after "
          + "120 s, 8% (BENCHMARK.md); a coordinator's steady state takes about 300 s. With --coordinator-own-jvm the "
          + "warm-up also sends, every 2 s, what a coordinator in service answers besides commits (a metrics scrape, "
          + "a namespace created, a table declared and described), so that the measured run's own first calls do not "
          + "send the compiled request path back to the interpreter. A warm-up longer than --seconds runs as "
          + "consecutive runs of --seconds each, every one on tables of its own, removed after it on a local disk: "
          + "no table grows past what a measured run's does (one table written by 16 writers for 300 s took 100,000 "
          + "commits, and every version's manifest rewrites every fragment: the disk filled; stock Lance's writers "
          + "held 17-19 GB of caches of its versions).");
  static final ConfigKey<Integer> SETTLE_SECONDS = KEYS.integer("settle-seconds", 0, atLeast(0),
      "After a warm-up on a local disk: flush the page cache (sync) and wait this long before the measured run, so "
          + "that its window does not open right after the removal of the warm-up's tables (tens of thousands of "
          + "files). ext4 without a journal makes every file created within 60 s of a removal (longer while the "
          + "removal is not yet written back) search past the removed inodes: in the 16-writer cell that search took "
          + "a fifth of the commit lanes' time, and the side that creates more files in the window pays more. 65 "
          + "clears it. The files written ahead of a measured window (--data-files-ahead) are flushed too before it "
          + "opens (since 2026-12-05 08:40), so that their writeback does not compete with the window's writes. 0: "
          + "neither; the window opens at once, as before 2026-12-05.");
  static final ConfigKey<Integer> ROWS_PER_COMMIT = KEYS.integer("rows-per-commit", 10, atLeast(1),
      "Rows in each appended data file.");
  static final ConfigKey<Integer> TABLES = KEYS.integer("tables", 64, atLeast(1), "Tables of the tables workload.");
  static final ConfigKey<Integer> WRITERS_PER_TABLE = KEYS.integer("writers-per-table", 4, atLeast(1),
      "Writers per table of the tables workload.");
  static final ConfigKey<Integer> KEYS_PER_WRITER = KEYS.integer("keys-per-writer", 20, atLeast(1),
      "Keys each upsert writer owns.");
  static final ConfigKey<String> KAFKA = KEYS.string("kafka", "embedded", null,
      "Coordinator events: embedded (one broker for the whole matrix), none, or host:port.");
  static final ConfigKey<String> OUT = KEYS.string("out", "target/bench-results", null,
      "Directory for results.csv (appended run by run), results.md and chart-<workload>.png.");
  static final ConfigKey<String> PYTHON = KEYS.string("python", "", null,
      "The python of a venv with pylance 14.0.2 and lance-namespace 0.13.0; empty: $LCC_PYTHON_VENV/bin/python, "
          + "else coordinator/target/python-venv/bin/python (the pylance workload is skipped when none exists).");
  static final ConfigKey<Boolean> VERIFY_FILES = KEYS.bool("verify-files", true,
      "The coordinator's commit.verify-files: run the matrix once with file checks on and once off to measure what "
          + "checking each commit's new files costs.");
  static final ConfigKey<Boolean> LOCAL_FSYNC = KEYS.bool("local-fsync", true,
      "The coordinator's store.local.fsync on the local store: false measures it without flushing each manifest to "
          + "disk before answering, as stock Lance's local commit does not (a crash of the machine may then lose an "
          + "acknowledged commit, on both sides).");
  static final ConfigKey<Integer> DATA_FILES_AHEAD = KEYS.integer("data-files-ahead", 0, atLeast(0),
      "Appends, upserts and pylance: data files written before each measured run's window opens, per second of the "
          + "window, shared by the run's writers (split evenly over its tables; pylance and upserts: each writer "
          + "writes its share; upserts: the fragment of each upsert's new row, not its deletion file, which depends "
          + "on the version it commits on; lance merge_insert writes its own), the same for both systems; a writer "
          + "takes one for each commit and writes its own only when they run out (logged). Writers on other machines "
          + "arrive with their files written; on one machine this keeps the writers' file writes off the cores the "
          + "commit path runs on. "
          + "0: every writer writes its file before each commit, inside the window. Warm-up runs always write "
          + "their own.");
  static final ConfigKey<String> COORDINATOR_CONFIG = KEYS.string("coordinator-config", "", null,
      "More of the coordinator's configuration keys (CONFIGURATION.md), comma-separated key=value pairs, e.g. "
          + "commit.verify-files.parallelism=32; applied after the benchmark's own settings.");
  static final ConfigKey<Boolean> COORDINATOR_OWN_JVM = KEYS.bool("coordinator-own-jvm", false,
      "Run the coordinator in a JVM of its own (java -cp <this classpath> dev.lancecommit.coordinator.Main), one "
          + "per store serving every run of the invocation, warm-ups included, each run in a namespace of its own, as "
          + "a coordinator runs in production; false starts one in the benchmark's process for each run. In its own "
          + "JVM its JIT compiles only the commit path, not also Lance's commit loop and the writers. Its threads' "
          + "CPU is logged with the window's.");
  static final ConfigKey<String> COORDINATOR_JVM_OPTIONS = KEYS.string("coordinator-jvm-options", "", null,
      "With --coordinator-own-jvm: more options for its java command, space-separated (e.g. -Xmx2g, "
          + "-XX:+PrintCompilation, -XX:StartFlightRecording=filename=coordinator.jfr).");
  static final ConfigKey<String> SYSTEMS = KEYS.string("systems", "", null,
      "Only these systems of each workload, comma-separated, as the report names them (coordinator, lance, "
          + "lance update, lance merge_insert, ...; a name that holds a comma without it: namespace "
          + "appends_on_latest); empty: every system, the coordinator and stock Lance side by side, as a cell of the matrix is meant to be. For one "
          + "side of a cell whose other side was measured already, or takes too long to drain (stock Lance at 64 "
          + "writers).");
  static final String LANCE_SESSION_TABLE = "table";
  static final String LANCE_SESSION_WRITER = "writer";
  static final ConfigKey<String> LANCE_SESSION = KEYS.string("lance-session", LANCE_SESSION_TABLE,
      ConfigKeys.oneOf(LANCE_SESSION_TABLE, LANCE_SESSION_WRITER),
      "How stock Lance's writers of one table (appends and upserts) hold Lance's caches. table: one Lance Session "
          + "(metadata and index caches, Lance's default sizes) shared by every writer of the table, as the writer "
          + "threads of one process share it; a manifest or transaction one writer read serves the others. writer: "
          + "each writer's dataset has a Session of its own (what Dataset.open gives without one), the benchmark's "
          + "setting before 2026-12-04: 16 writers' caches then reached 17-19 GB of native memory within a 300 s "
          + "warm-up.");
  static final ConfigKey<String> CHART_FROM = KEYS.string("chart-from", "", null,
      "Only redraw results.md and the charts into --out from this earlier results.csv.");

  static final String DESCRIPTION = "The benchmark matrix: each cell is a workload on a store with N writers on one "
      + "table, run through the coordinator and through stock Lance's own commit loop in the same process, each run "
      + "checked afterwards with Lance (latest version = 1 + acknowledged commits, rows = acknowledged rows).";

  static ConfigKeys keys() {
    return KEYS;
  }

  /** The options {@code args} ask for, or null when they ask for help (printed to {@code out}). */
  static BenchOptions parse(String[] args, PrintStream out) {
    ConfigCommandLine commandLine = new ConfigCommandLine("CommitBenchmark", DESCRIPTION, null, KEYS);
    if (!commandLine.parse(out, args)) {
      return null;
    }
    Config values = KEYS.parse(commandLine.values());
    return new BenchOptions(parseList(values.get(WORKLOADS), Workload.Kind::parse),
        parseList(values.get(STORES), BenchStore.Kind::parse), parseList(values.get(WRITERS), BenchOptions::positive),
        values.get(SECONDS), values.get(WARMUP_SECONDS), values.get(ROWS_PER_COMMIT), values.get(TABLES),
        values.get(WRITERS_PER_TABLE), values.get(KEYS_PER_WRITER), values.get(KAFKA).trim(), Path.of(values.get(OUT)),
        path(values.get(PYTHON)), path(values.get(CHART_FROM)), values.get(VERIFY_FILES),
        values.get(LOCAL_FSYNC), values.get(DATA_FILES_AHEAD), values.get(COORDINATOR_CONFIG).trim(),
        values.get(COORDINATOR_OWN_JVM), values.get(COORDINATOR_JVM_OPTIONS).trim(),
        values.get(SYSTEMS).isBlank() ? List.of() : parseList(values.get(SYSTEMS), BenchOptions::lower),
        values.get(LANCE_SESSION), values.get(SETTLE_SECONDS));
  }

  /** The command line that repeats these options (for the report). */
  String commandLine() {
    return String.join(" ", "--workloads", join(workloads.stream().map(Workload.Kind::cliName).toList()),
        "--stores", join(stores.stream().map(BenchStore.Kind::cliName).toList()),
        "--writers", join(writers.stream().map(String::valueOf).toList()),
        "--seconds", String.valueOf(seconds), "--warmup-seconds", String.valueOf(warmupSeconds),
        "--rows-per-commit", String.valueOf(rowsPerCommit),
        "--tables", String.valueOf(tables), "--writers-per-table", String.valueOf(writersPerTable),
        "--keys-per-writer", String.valueOf(keysPerWriter), "--kafka", kafka,
        "--verify-files", String.valueOf(verifyFiles), "--local-fsync", String.valueOf(localFsync),
        "--data-files-ahead", String.valueOf(dataFilesAhead))
        + (coordinatorConfig.isEmpty() ? "" : " --coordinator-config " + coordinatorConfig)
        + (coordinatorOwnJvm ? " --coordinator-own-jvm true" : "")
        + (coordinatorJvmOptions.isEmpty() ? "" : " --coordinator-jvm-options '" + coordinatorJvmOptions + "'")
        + (systems.isEmpty() ? "" : " --systems '" + join(systems) + "'")
        + " --lance-session " + lanceSession
        + (settleSeconds == 0 ? "" : " --settle-seconds " + settleSeconds);
  }

  /**
   * A warm-up run of {@code windowSeconds}: its writers write each commit's data file themselves, since files written
   * ahead for a warm-up long enough to quiet the JIT (a minute) would take longer to write than the warm-up itself.
   */
  BenchOptions forWarmup(int windowSeconds) {
    return new BenchOptions(workloads, stores, writers, windowSeconds, 0, rowsPerCommit, tables, writersPerTable,
        keysPerWriter, kafka, out, python, chartFrom, verifyFiles, localFsync, 0, coordinatorConfig, coordinatorOwnJvm,
        coordinatorJvmOptions, systems, lanceSession, 0);
  }

  /** Stock Lance's table at {@code uri} for its writers, holding Lance's caches as {@link #LANCE_SESSION} says. */
  LanceTables lanceTable(String uri, Map<String, String> storageOptions) {
    return lanceSession.equals(LANCE_SESSION_TABLE) ? LanceTables.sharingOneSession(uri, storageOptions)
        : LanceTables.at(uri, storageOptions);
  }

  /** Data files written before a measured run's window: {@link #DATA_FILES_AHEAD} per second of the window. */
  long dataFilesAheadOfWindow() {
    return (long) dataFilesAhead * seconds;
  }

  /** Whether {@link #SYSTEMS} asks for {@code system}. */
  boolean runs(String system) {
    return systems.isEmpty() || systems.contains(selectable(system));
  }

  /**
   * How {@link #SYSTEMS} names {@code system}: lower case, and without the commas of a name such as "namespace,
   * appends_on_latest", since commas separate the names.
   */
  static String selectable(String system) {
    return lower(system).replace(",", "");
  }

  /** The pairs of {@link #COORDINATOR_CONFIG}, in order. */
  Map<String, String> coordinatorSettings() {
    Map<String, String> settings = new LinkedHashMap<>();
    for (String pair : coordinatorConfig.split(",")) {
      if (pair.isBlank()) {
        continue;
      }
      int eq = pair.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("--coordinator-config wants key=value pairs, not '" + pair.trim() + "'");
      }
      settings.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
    }
    return settings;
  }

  static String lower(String value) {
    return value.trim().toLowerCase(Locale.ROOT);
  }

  private static Optional<Path> path(String value) {
    return value.isBlank() ? Optional.empty() : Optional.of(Path.of(value.trim()));
  }

  private static String join(List<String> values) {
    return String.join(",", values);
  }

  private static <T> List<T> parseList(String value, Function<String, T> parser) {
    List<T> items = new ArrayList<>();
    for (String part : Arrays.stream(value.split(",")).map(String::trim).filter(p -> !p.isEmpty()).toList()) {
      items.add(parser.apply(part));
    }
    if (items.isEmpty()) {
      throw new IllegalArgumentException("an empty list: '" + value + "'");
    }
    return List.copyOf(items);
  }

  /** A comma-separated list whose every item {@code parser} accepts; documented as a list of {@code items}. */
  private static ConfigDef.Validator list(Function<String, ?> parser, String items) {
    return ConfigDef.LambdaValidator.with((name, value) -> {
      try {
        parseList((String) value, parser);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(name, value, e.getMessage());
      }
    }, () -> "a comma-separated list of " + items);
  }

  private static int positive(String value) {
    try {
      int n = Integer.parseInt(value.trim());
      if (n > 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException("not a positive whole number: '" + value + "'");
  }
}
