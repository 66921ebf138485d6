package dev.lancecommit.chaos.bench;

import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.coordinator.Coordinator;
import dev.lancecommit.coordinator.CoordinatorConfig;
import dev.lancecommit.e2e.CommitApi;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.S3ProxyFixture;
import dev.lancecommit.testing.lance.LanceTables;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.FragmentMetadata;
import org.lance.operation.Append;

/**
 * The benchmark yardstick: {@code --writers} threads append to one table for {@code --seconds}, once through the
 * coordinator (CommitTable over HTTP, an in-process Coordinator) and once directly through Lance's own commit loop
 * ({@code CommitBuilder}, which lists, checks conflicts, rebases and retries by itself), on the same kind of store.
 * Prints commits/s, p50/p99 commit latency, failed commits and retries side by side, and checks afterwards that
 * every acknowledged commit is a version holding its rows.
 *
 * <p>Each writer writes its data file with Lance first; only the commit is timed, in both runs.
 *
 * <pre>
 * mvn -B -q -pl chaos-tests -am package -DskipTests
 * java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "chaos-tests/target/chaos-tests.jar:chaos-tests/target/lib/*" \
 *     dev.lancecommit.chaos.bench.CommitBenchmark --writers 16 --seconds 30 --store local
 * </pre>
 */
public final class CommitBenchmark {
  private static final int MAX_ATTEMPTS_PER_COMMIT = 100;
  private static final List<String> TABLE = List.of("bench", "appends");

  private final BenchOptions options;
  private final Path workDir;
  private final S3ProxyFixture s3;

  private CommitBenchmark(BenchOptions options, Path workDir, S3ProxyFixture s3) {
    this.options = options;
    this.workDir = workDir;
    this.s3 = s3;
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
    Path workDir = Files.createTempDirectory("lcc-bench-");
    int status = 0;
    S3ProxyFixture s3 = options.store().equals("s3proxy") ? S3ProxyFixture.started() : null;
    try {
      CommitBenchmark bench = new CommitBenchmark(options, workDir, s3);
      RunResult coordinator = options.runCoordinator() ? bench.runThroughCoordinator() : null;
      RunResult lance = options.runLance() ? bench.runThroughLance() : null;
      bench.print(System.out, coordinator, lance);
    } catch (Exception e) {
      e.printStackTrace();
      status = 1;
    } finally {
      if (s3 != null) {
        s3.close();
      }
      deleteRecursively(workDir);
    }
    // lance-core and Kafka client threads may linger; the numbers are printed.
    System.exit(status);
  }

  private RunResult runThroughCoordinator() throws Exception {
    String warehouse = options.warehouse() != null ? options.warehouse()
        : s3 != null ? s3.uri("bench-coordinator") : workDir.resolve("coordinator-warehouse").toString();
    CoordinatorConfig.Builder config = CoordinatorConfig.builder()
        .port(0)
        .warehouse(warehouse)
        .kafka(options.kafka())
        .set(CoordinatorConfig.KAFKA_EMBEDDED_DIR, workDir.resolve("kafka").toString());
    if (s3 != null) {
      config.s3(s3.s3Config());
    }
    log("starting the coordinator on " + warehouse + " (kafka " + options.kafka() + ")");
    try (Coordinator coordinator = Coordinator.start(config.build())) {
      CommitApi api = new CommitApi(coordinator.restUrl());
      api.createNamespace(TABLE.get(0));
      String location = api.declareTable(TABLE);
      try (LanceTables lance = LanceTables.at(location, storageOptions())) {
        Transaction create = TransactionFactory.create(LanceProtos.schema(LanceTables.ROW_SCHEMA),
            LanceProtos.fragments(lance.writeRows(0, options.rowsPerCommit())));
        CommitApi.Response created = api.commit(TABLE, create);
        if (created.status() != 200) {
          throw new IllegalStateException("could not create the benchmark table: " + created);
        }
        RunResult result = new RunResult("coordinator (HTTP)");
        result.countsRetries();
        AtomicLong nextId = new AtomicLong(options.rowsPerCommit());
        run(result, deadline -> {
          long seen = 1;
          while (System.nanoTime() < deadline) {
            long firstId = nextId.getAndAdd(options.rowsPerCommit());
            Transaction txn = TransactionFactory.append(seen,
                LanceProtos.fragments(lance.writeRows(firstId, options.rowsPerCommit())));
            if (System.nanoTime() >= deadline) {
              break;
            }
            long start = System.nanoTime();
            try {
              seen = commitThroughCoordinator(api, txn, result, start, deadline);
            } catch (RuntimeException e) {
              result.failed(e);
              seen = api.latestVersion(TABLE);
            }
          }
        });
        long latest = api.latestVersion(TABLE);
        verify(result, lance, latest);
        return result;
      }
    }
  }

  private long commitThroughCoordinator(CommitApi api, Transaction txn, RunResult result, long start,
      long deadline) {
    Transaction attempt = txn;
    for (int i = 1; i <= MAX_ATTEMPTS_PER_COMMIT; i++) {
      CommitApi.Response r = api.commit(TABLE, attempt);
      if (r.status() == 200) {
        long end = System.nanoTime();
        result.committed(end - start, options.rowsPerCommit(), end <= deadline);
        return r.version();
      }
      if (!(r.status() == 409 && r.code() == 14) && r.status() != 429) {
        throw new IllegalStateException("commit refused: " + r);
      }
      result.retried();
      attempt = TransactionFactory.rebased(txn, api.latestVersion(TABLE));
    }
    throw new IllegalStateException("no commit after " + MAX_ATTEMPTS_PER_COMMIT + " attempts");
  }

  private RunResult runThroughLance() throws Exception {
    String uri = s3 != null ? s3.uri("bench-lance/appends.lance")
        : workDir.resolve("lance").resolve("appends.lance").toString();
    log("writing directly with Lance to " + uri);
    try (LanceTables lance = LanceTables.at(uri, storageOptions())) {
      lance.createWithLance(0, options.rowsPerCommit());
      RunResult result = new RunResult("lance (CommitBuilder)");
      AtomicLong nextId = new AtomicLong(options.rowsPerCommit());
      run(result, deadline -> {
        Dataset ds = lance.open();
        try {
          while (System.nanoTime() < deadline) {
            long firstId = nextId.getAndAdd(options.rowsPerCommit());
            List<FragmentMetadata> fragments = lance.writeRows(firstId, options.rowsPerCommit());
            if (System.nanoTime() >= deadline) {
              break;
            }
            long start = System.nanoTime();
            try (org.lance.Transaction txn =
                     new org.lance.Transaction(ds.version(), Append.builder().fragments(fragments).build())) {
              Dataset next = new CommitBuilder(ds).execute(txn);
              long end = System.nanoTime();
              result.committed(end - start, options.rowsPerCommit(), end <= deadline);
              ds.close();
              ds = next;
            } catch (RuntimeException e) {
              result.failed(e);
              ds.close();
              ds = lance.open();
            }
          }
        } finally {
          ds.close();
        }
      });
      verify(result, lance, lance.latestVersion());
      return result;
    }
  }

  /** A writer's loop until the deadline (System.nanoTime()). */
  private interface Writer {
    void run(long deadline) throws Exception;
  }

  private void run(RunResult result, Writer writer) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(options.writers());
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> futures = new ArrayList<>();
    long[] deadline = new long[1];
    for (int w = 0; w < options.writers(); w++) {
      futures.add(pool.submit(() -> {
        start.await();
        writer.run(deadline[0]);
        return null;
      }));
    }
    log("running " + result.name() + ": " + options.writers() + " writers for " + options.seconds() + " s");
    long begin = System.nanoTime();
    deadline[0] = begin + TimeUnit.SECONDS.toNanos(options.seconds());
    start.countDown();
    try {
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    result.elapsed(deadline[0] - begin, System.nanoTime() - begin);
  }

  /** Every acknowledged commit must be one version holding its rows: latest = 1 + commits, rows = all rows. */
  private void verify(RunResult result, LanceTables lance, long latest) {
    long expectedRows = (long) options.rowsPerCommit() + result.rowsCommitted();
    long rows = lance.countRows(latest);
    boolean ok = latest == 1 + result.commits() && rows == expectedRows;
    result.verification((ok ? "ok" : "MISMATCH") + ": v" + latest + ", " + rows + " rows (expected v"
        + (1 + result.commits()) + ", " + expectedRows + ")");
  }

  private Map<String, String> storageOptions() {
    return s3 == null ? Map.of() : s3.lanceStorageOptions();
  }

  private void print(PrintStream out, RunResult coordinator, RunResult lance) {
    List<RunResult> runs = Stream.of(coordinator, lance).filter(r -> r != null).toList();
    out.println();
    out.printf(Locale.ROOT, "CommitBenchmark: %d writers, %d s, %d rows/commit, store %s (%d cores)%n",
        options.writers(), options.seconds(), options.rowsPerCommit(), options.store(),
        Runtime.getRuntime().availableProcessors());
    StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-22s", ""));
    for (RunResult r : runs) {
      header.append(String.format(Locale.ROOT, "%28s", r.name()));
    }
    out.println(header);
    row(out, "commits", runs, r -> Integer.toString(r.commits()));
    row(out, "commits/s", runs, r -> String.format(Locale.ROOT, "%.1f", r.commitsPerSecond()));
    row(out, "commits/s incl. drain", runs, r -> String.format(Locale.ROOT, "%.1f", r.commitsPerSecondWithDrain()));
    row(out, "drain after end (s)", runs, r -> String.format(Locale.ROOT, "%.1f", r.drainSeconds()));
    row(out, "p50 latency (ms)", runs, r -> String.format(Locale.ROOT, "%.1f", r.percentileMillis(50)));
    row(out, "p99 latency (ms)", runs, r -> String.format(Locale.ROOT, "%.1f", r.percentileMillis(99)));
    row(out, "max latency (ms)", runs, r -> String.format(Locale.ROOT, "%.1f", r.percentileMillis(100)));
    row(out, "failed commits", runs, r -> Integer.toString(r.failedCommits()));
    row(out, "retries", runs, RunResult::retriesText);
    row(out, "rows committed", runs, r -> Long.toString(r.rowsCommitted()));
    for (RunResult r : runs) {
      out.println("verified " + r.name() + ": " + r.verification());
      r.failureKinds().entrySet().stream()
          .sorted(Map.Entry.<String, Integer>comparingByValue(Comparator.reverseOrder()))
          .limit(5)
          .forEach(e -> out.println("  failure x" + e.getValue() + ": " + e.getKey()));
    }
    out.println("(commits/s counts commits finished inside the window; 'incl. drain' also counts commits still running at");
    out.println(" the deadline, over the wall time until the last one finished. Latency = the commit call only, retries");
    out.println(" included; each data file is written before its clock starts.)");
  }

  private interface Cell {
    String of(RunResult r);
  }

  private static void row(PrintStream out, String label, List<RunResult> runs, Cell cell) {
    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-22s", label));
    for (RunResult r : runs) {
      line.append(String.format(Locale.ROOT, "%28s", cell.of(r)));
    }
    out.println(line);
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

  private static void log(String message) {
    System.err.println("[bench] " + message);
  }

  private static void deleteRecursively(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          // best effort: a temp dir
        }
      });
    } catch (IOException e) {
      // best effort
    }
  }
}
