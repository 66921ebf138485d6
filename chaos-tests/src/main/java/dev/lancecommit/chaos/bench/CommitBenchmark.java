package dev.lancecommit.chaos.bench;

import dev.lancecommit.events.kafka.EmbeddedKafkaBroker;
import dev.lancecommit.testing.S3ProxyFixture;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The benchmark matrix: each cell (a workload on a store with N writers) runs the coordinator and stock Lance's own
 * commit loop one after the other in the same process, and checks afterwards, with Lance, that each table holds
 * exactly what was acknowledged. Results go to {@code results.csv} (appended run by run), {@code results.md} and one
 * chart per workload ({@code chart-<workload>.png}: commits/s and p99 against writers); {@code --chart-from} redraws
 * the table and charts from a CSV. {@code --help} lists the options; chaos-tests/BENCHMARK.md has the method.
 *
 * <pre>
 * mvn -B -q -pl chaos-tests -am package -DskipTests
 * java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "chaos-tests/target/chaos-tests.jar:chaos-tests/target/lib/*" \
 *     dev.lancecommit.chaos.bench.CommitBenchmark --workloads appends --stores local --writers 16 --seconds 8
 * </pre>
 */
public final class CommitBenchmark {
  private CommitBenchmark() {}

  /** The benchmark's configuration keys (its command line options). */
  public static dev.lancecommit.config.ConfigKeys keys() {
    return BenchOptions.keys();
  }

  public static void main(String[] args) throws Exception {
    quietLogging();
    BenchOptions options;
    try {
      options = BenchOptions.parse(args, System.out);
    } catch (IllegalArgumentException e) {
      System.err.println("error: " + e.getMessage());
      System.err.println("Run with --help for the options.");
      System.exit(2);
      return;
    }
    if (options == null) {
      return; // --help
    }
    int status = 0;
    try {
      List<MatrixReport.Row> rows;
      String heading;
      if (options.chartFrom().isPresent()) {
        rows = MatrixReport.readCsv(options.chartFrom().get());
        heading = "CommitBenchmark results from " + options.chartFrom().get();
      } else {
        String before = loadAverage();
        rows = run(options);
        heading = heading(options, before);
      }
      System.out.println(MatrixReport.write(options.out(), rows, heading));
      log("results in " + options.out().toAbsolutePath());
      if (rows.stream().anyMatch(r -> !r.verified())) {
        status = 1;
      }
    } catch (Exception e) {
      e.printStackTrace();
      status = 1;
    }
    // lance-core and Kafka client threads may linger; the numbers are written.
    System.exit(status);
  }

  /** Refuses a {@code --systems} name no workload has, before anything is started. */
  private static void requireKnownSystems(BenchOptions options, Optional<Path> python) {
    List<String> systems = new ArrayList<>(new AppendWorkload().systems());
    systems.addAll(new UpsertWorkload().systems());
    python.ifPresent(p -> systems.addAll(new PylanceWorkload(p).systems()));
    Set<String> known = systems.stream().map(BenchOptions::selectable)
        .collect(Collectors.toCollection(TreeSet::new));
    for (String system : options.systems()) {
      if (!known.contains(system)) {
        throw new IllegalArgumentException("--systems: no system '" + system + "'; the systems are " + known);
      }
    }
  }

  /**
   * Runs every selected cell, each system of it ({@code --systems}: the named ones); returns one row per run (also
   * appended to results.csv).
   */
  static List<MatrixReport.Row> run(BenchOptions options) throws Exception {
    Optional<Path> python = PylanceWorkload.locatePython(options.python());
    requireKnownSystems(options, python);
    Path workDir = Files.createTempDirectory("lcc-bench-");
    List<AutoCloseable> resources = new ArrayList<>();
    List<MatrixReport.Row> rows = new ArrayList<>();
    try {
      S3ProxyFixture s3 = null;
      if (options.stores().stream().anyMatch(k -> k != BenchStore.Kind.LOCAL)) {
        s3 = S3ProxyFixture.started();
        resources.add(s3);
      }
      String kafka = options.kafka();
      if (kafka.equals("embedded")) {
        EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.builder().dataDir(workDir.resolve("kafka")).build();
        resources.add(broker);
        broker.start();
        kafka = broker.bootstrapServers();
        log("embedded Kafka at " + kafka);
      }
      int run = 0;
      for (Workload.Kind kind : options.workloads()) {
        if (kind == Workload.Kind.PYLANCE && python.isEmpty()) {
          log("skipping the pylance workload: no python with pylance (give --python or set LCC_PYTHON_VENV)");
          continue;
        }
        Workload workload = switch (kind) {
          case APPENDS, TABLES -> new AppendWorkload();
          case UPSERTS -> new UpsertWorkload();
          case PYLANCE -> new PylanceWorkload(python.orElseThrow());
        };
        for (BenchStore.Kind storeKind : options.stores()) {
          try (BenchStore store = BenchStore.open(storeKind, workDir, s3);
              AutoCloseable ownJvm = () -> BenchCoordinator.stopOwnJvm(store)) {
            List<int[]> shapes = kind == Workload.Kind.TABLES
                ? List.<int[]>of(new int[] {options.tables(), options.writersPerTable()})
                : options.writers().stream().map(w -> new int[] {1, w}).toList();
            Set<String> warmed = new HashSet<>();
            for (int[] shape : shapes) {
              for (String system : workload.systems().stream().filter(options::runs).toList()) {
                if (options.warmupSeconds() > 0 && warmed.add(system)) {
                  for (int seconds : warmupRuns(options)) {
                    String name = "warmup" + (++run);
                    Path dir = Files.createDirectories(workDir.resolve(name));
                    Cell warmup = new Cell(kind, store, shape[0], shape[1], options.forWarmup(seconds), dir, name,
                        kafka, true);
                    MatrixReport.Row row = runOne(workload, system, warmup);
                    log(String.format(Locale.ROOT, "%s %s %s x %d, %s: warm-up (not reported), %d s: %.1f commits/s, "
                        + "%s", kind.cliName(), storeKind.cliName(), shape[0], shape[1], system, seconds,
                        row.commitsPerSecond(), row.verification()));
                    store.removeTablesOf(name);
                  }
                  settleAfterWarmup(store, options);
                }
                String name = "run" + (++run);
                Path dir = Files.createDirectories(workDir.resolve(name));
                Cell cell = new Cell(kind, store, shape[0], shape[1], options, dir, name, kafka, false);
                MatrixReport.Row row = runOne(workload, system, cell);
                MatrixReport.appendCsv(options.out(), row);
                rows.add(row);
                log(String.format(Locale.ROOT, "%s %s %s x %d, %s: %.1f commits/s, p50 %.1f ms, p99 %.1f ms, "
                        + "%d failed, %s", kind.cliName(), storeKind.cliName(), shape[0], shape[1], system,
                    row.commitsPerSecond(), row.p50(), row.p99(), row.failed(), row.verification()));
              }
            }
          }
        }
      }
      return rows;
    } finally {
      for (int i = resources.size() - 1; i >= 0; i--) {
        try {
          resources.get(i).close();
        } catch (Exception e) {
          log("closing " + resources.get(i) + ": " + e);
        }
      }
      deleteRecursively(workDir);
    }
  }

  /** {@link BenchOptions#SETTLE_SECONDS}: on a local disk, flush and wait before the window opens. */
  private static void settleAfterWarmup(BenchStore store, BenchOptions options) throws Exception {
    if (options.settleSeconds() == 0 || store.kind() != BenchStore.Kind.LOCAL) {
      return;
    }
    log(String.format(Locale.ROOT, "settling %d s after the warm-up's removals (%s)", options.settleSeconds(),
        sync()));
    Thread.sleep(options.settleSeconds() * 1000L);
  }

  /**
   * {@link BenchOptions#SETTLE_SECONDS}, after the files written ahead of a measured window on a local disk: flushed
   * before the clock starts, so that their writeback does not compete with the window's own writes (writers on other
   * machines would arrive with theirs without writing to this disk at all).
   */
  static void flushWrittenAhead(Cell cell) {
    if (cell.warmup() || cell.options().settleSeconds() == 0 || cell.store().kind() != BenchStore.Kind.LOCAL) {
      return;
    }
    long start = System.nanoTime();
    String flushed = sync();
    log(String.format(Locale.ROOT, "flushed what was written ahead of the window (%s, %d ms)", flushed,
        (System.nanoTime() - start) / 1_000_000));
  }

  /** Flushes the page cache with {@code sync}; says how that went. */
  private static String sync() {
    try {
      Process sync = new ProcessBuilder("sync").redirectErrorStream(true).start();
      sync.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
      return "sync exited " + sync.waitFor();
    } catch (java.io.IOException noSync) { // a system without the command: the wait alone still lets ext4 settle
      return "no sync: " + noSync.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "sync interrupted";
    }
  }

  /**
   * The lengths of the warm-up's runs: {@link BenchOptions#WARMUP_SECONDS} in runs no longer than the measured window,
   * each on tables of its own, so that no table grows past what a measured run's does.
   */
  static List<Integer> warmupRuns(BenchOptions options) {
    List<Integer> runs = new ArrayList<>();
    int window = Math.max(1, options.seconds());
    for (int left = options.warmupSeconds(); left > 0; left -= window) {
      runs.add(Math.min(left, window));
    }
    return runs;
  }

  private static MatrixReport.Row runOne(Workload workload, String system, Cell cell) {
    try {
      RunResult result = workload.run(system, cell);
      if (!result.failureKinds().isEmpty()) {
        log("failed commits by kind (" + system + "): " + result.failureKinds());
      }
      return MatrixReport.Row.of(cell, result);
    } catch (Exception e) {
      log("run " + cell.name() + " (" + system + ") failed: " + e);
      RunResult failed = new RunResult(system);
      failed.verification(false, "run failed: " + e.getClass().getSimpleName() + ": " + e.getMessage());
      return MatrixReport.Row.of(cell, failed);
    }
  }

  private static String heading(BenchOptions options, String loadBefore) {
    return String.format(Locale.ROOT, "CommitBenchmark %s: %d cores, load average %s before and %s after; options: "
            + "%s", Instant.now().toString().substring(0, 16), Runtime.getRuntime().availableProcessors(), loadBefore,
        loadAverage(), options.commandLine());
  }

  /** The 1, 5 and 15 minute load averages (Linux), or "?" elsewhere. */
  static String loadAverage() {
    try {
      String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return parts[0] + " " + parts[1] + " " + parts[2];
    } catch (IOException | RuntimeException e) {
      return "?";
    }
  }

  static void log(String message) {
    System.err.println("[bench] " + message);
  }

  /** Library loggers (s3proxy, Jetty, Kafka clients, Arrow) default to DEBUG without a config file. */
  private static void quietLogging() {
    org.slf4j.Logger root = org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    if (root instanceof ch.qos.logback.classic.Logger logback) {
      logback.setLevel(ch.qos.logback.classic.Level.WARN);
      // the embedded broker's readiness probe logs a warning per refused connection while the broker boots
      ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger("org.apache.kafka"))
          .setLevel(ch.qos.logback.classic.Level.ERROR);
    }
  }

  /** Removes {@code root} and everything under it, best effort: what is left costs only disk, and is logged. */
  static void deleteRecursively(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          // left, and logged below
        }
      });
    } catch (IOException | UncheckedIOException e) {
      // a directory that went away or could not be read while walking: logged below if anything is left
    }
    if (Files.exists(root)) {
      log("could not remove all of " + root);
    }
  }
}
