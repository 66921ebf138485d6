package dev.lancecommit.chaos.bench;

import dev.lancecommit.coordinator.Coordinator;
import dev.lancecommit.coordinator.CoordinatorConfig;
import dev.lancecommit.e2e.CommitApi;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.S3ProxyFixture;
import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.testing.lance.LanceTables;
import dev.lancecommit.client.lance.TransactionFactory;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.FragmentMetadata;
import org.lance.operation.Append;
import org.lance.operation.ReserveFragments;

/**
 * Does the cost of one commit stay flat as a table and a warehouse grow? One writer commits one-row appends, one at a
 * time (its data file written before the clock), through the coordinator (CommitTable over HTTP, an in-process
 * Coordinator without Kafka) and directly through Lance's {@code CommitBuilder}, on tables that have
 * {@code --versions} versions (history built with ReserveFragments commits, which add versions and nothing else),
 * {@code --fragments} fragments, and in a warehouse holding {@code --tables} tables (the commits then go to one of
 * them, and once round the first {@code --commits} of them, each a lane the coordinator has not seen yet).
 *
 * <pre>
 * mvn -B -q -pl chaos-tests -am package -DskipTests
 * java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "chaos-tests/target/chaos-tests.jar:chaos-tests/target/lib/*" \
 *     dev.lancecommit.chaos.bench.ScalingBenchmark [--store local|s3proxy] [--commits 200] \
 *     [--versions 10,10000] [--fragments 10,1000] [--tables 1000] [--fsync true|false]
 * </pre>
 */
public final class ScalingBenchmark {
  private final String store;
  private final int commits;
  private final List<Integer> versions;
  private final List<Integer> fragments;
  private final int tables;
  private final boolean fsync;
  private final Path work;
  private final S3ProxyFixture s3;
  private final List<String[]> rows = new ArrayList<>();
  private final Map<List<String>, String> locations = new java.util.HashMap<>();
  private final Map<List<String>, Long> latest = new java.util.HashMap<>();
  private int tableCounter;

  private ScalingBenchmark(Map<String, String> args, Path work, S3ProxyFixture s3) {
    this.store = args.getOrDefault("--store", "local");
    this.commits = Integer.parseInt(args.getOrDefault("--commits", "200"));
    this.versions = ints(args.getOrDefault("--versions", "10,10000"));
    this.fragments = ints(args.getOrDefault("--fragments", "10,1000"));
    this.tables = Integer.parseInt(args.getOrDefault("--tables", "1000"));
    this.fsync = Boolean.parseBoolean(args.getOrDefault("--fsync", "true"));
    this.work = work;
    this.s3 = s3;
  }

  public static void main(String[] argv) throws Exception {
    quietLogging();
    Map<String, String> args = new java.util.HashMap<>();
    for (int i = 0; i + 1 < argv.length; i += 2) {
      args.put(argv[i], argv[i + 1]);
    }
    Path work = Files.createTempDirectory("lcc-scaling-");
    S3ProxyFixture s3 = "s3proxy".equals(args.get("--store")) ? S3ProxyFixture.started() : null;
    int status = 0;
    try {
      new ScalingBenchmark(args, work, s3).run(System.out);
    } catch (Exception e) {
      e.printStackTrace();
      status = 1;
    } finally {
      if (s3 != null) {
        s3.close();
      }
      deleteRecursively(work);
    }
    System.exit(status);
  }

  private void run(PrintStream out) throws Exception {
    CoordinatorConfig.Builder config = CoordinatorConfig.builder()
        .port(0)
        .warehouse(s3 != null ? s3.uri("scaling") : work.resolve("warehouse").toString())
        .kafka("none")
        .set(CoordinatorConfig.STORE_LOCAL_FSYNC, Boolean.toString(fsync));
    if (s3 != null) {
      config.s3(s3.s3Config());
    }
    try (Coordinator coordinator = Coordinator.start(config.build())) {
      CommitApi api = new CommitApi(coordinator.restUrl());
      api.createNamespace("scale");
      for (int v : versions) {
        List<String> id = newTable(api);
        try (LanceTables lance = lanceOf(id)) {
          grow(api, id, lance, v - 1, 0);
          String coordinatorCell = time(() -> commitThroughCoordinator(api, id, lance));
          try (LanceTables direct = directTable()) {
            growDirect(direct, v - 1, 0);
            String lanceCell = time(() -> commitDirectly(direct));
            rows.add(new String[] {v + " versions, 1 fragment", coordinatorCell, lanceCell});
          }
        }
      }
      for (int f : fragments) {
        List<String> id = newTable(api);
        try (LanceTables lance = lanceOf(id)) {
          grow(api, id, lance, 0, f - 1);
          String coordinatorCell = time(() -> commitThroughCoordinator(api, id, lance));
          try (LanceTables direct = directTable()) {
            growDirect(direct, 0, f - 1);
            String lanceCell = time(() -> commitDirectly(direct));
            rows.add(new String[] {f + " fragments, 2 versions", coordinatorCell, lanceCell});
          }
        }
      }
      if (tables > 0) {
        List<List<String>> ids = new ArrayList<>();
        long start = System.nanoTime();
        while (tableCounter < tables) {
          ids.add(newTable(api));
        }
        log(tables + " tables in the warehouse (" + (System.nanoTime() - start) / 1_000_000_000 + " s to create)");
        List<String> hot = ids.get(0);
        try (LanceTables lance = lanceOf(hot)) {
          rows.add(new String[] {tables + " tables, commits to one", time(() -> commitThroughCoordinator(api, hot,
              lance)), "(no warehouse)"});
        }
        // Round robin: each table is committed to again only after every other one, so its catalog entry has left
        // the catalog's cache (2 s) and is read from the store; its lane is still there (10 min idle timeout).
        int[] next = {1};
        rows.add(new String[] {tables + " tables, round robin (catalog entry not cached)", time(() -> {
          List<String> cold = ids.get(next[0]++ % ids.size());
          try (LanceTables lance = lanceOf(cold)) {
            return commitThroughCoordinator(api, cold, lance);
          }
        }), "(no warehouse)"});
      }
    }
    print(out);
  }

  // ------------------------------------------------------------------------------------------------ the coordinator

  private List<String> newTable(CommitApi api) {
    List<String> id = List.of("scale", "t" + (++tableCounter));
    String location = api.declareTable(id);
    locations.put(id, location);
    try (LanceTables lance = LanceTables.at(location, storageOptions())) {
      Transaction create = TransactionFactory.create(LanceProtos.schema(LanceTables.ROW_SCHEMA),
          LanceProtos.fragments(lance.writeRows(0, 1)));
      latest.put(id, require(api.commit(id, create), "create " + id).version());
    }
    return id;
  }

  private LanceTables lanceOf(List<String> id) {
    return LanceTables.at(locations.get(id), storageOptions());
  }

  /** Adds {@code versions} versions (ReserveFragments) and {@code fragments} fragments (one Append) to a table. */
  private void grow(CommitApi api, List<String> id, LanceTables lance, int versions, int fragments) {
    if (fragments > 0) {
      latest.put(id, require(api.commit(id, TransactionFactory.append(latest.get(id),
          LanceProtos.fragments(lance.writeRows(1_000_000, fragments, 1)))), "append fragments").version());
    }
    long start = System.nanoTime();
    for (int i = 0; i < versions; i++) {
      Transaction reserve = Transaction.newBuilder().setReadVersion(latest.get(id))
          .setUuid(TransactionFactory.newUuid())
          .setReserveFragments(Transaction.ReserveFragments.newBuilder().setNumFragments(1)).build();
      latest.put(id, require(api.commit(id, reserve), "reserve").version());
      if (i > 0 && i % 2000 == 0) {
        log(id + ": " + i + " versions (" + (System.nanoTime() - start) / 1_000_000 / i + " ms each)");
      }
    }
  }

  /** One timed append; its read version is the table's latest as this writer knows it (no describe call). */
  private long commitThroughCoordinator(CommitApi api, List<String> id, LanceTables lance) {
    Transaction append = TransactionFactory.append(latest.get(id), LanceProtos.fragments(lance.writeRows(0, 1)));
    long start = System.nanoTime();
    CommitApi.Response response = require(api.commit(id, append), "append");
    long nanos = System.nanoTime() - start;
    latest.put(id, response.version());
    return nanos;
  }

  private static CommitApi.Response require(CommitApi.Response response, String what) {
    if (response.status() != 200) {
      throw new IllegalStateException(what + " failed: " + response);
    }
    return response;
  }

  // ------------------------------------------------------------------------------------------------ Lance directly

  private LanceTables directTable() {
    String uri = s3 != null ? s3.uri("scaling-direct/d" + (++tableCounter) + ".lance")
        : work.resolve("direct").resolve("d" + (++tableCounter) + ".lance").toString();
    LanceTables lance = LanceTables.at(uri, storageOptions());
    lance.createWithLance(0, 1);
    return lance;
  }

  private void growDirect(LanceTables lance, int versions, int fragments) {
    if (fragments > 0) {
      lance.commitAppendWithLance(lance.latestVersion(), lance.writeRows(1_000_000, fragments, 1));
    }
    Dataset ds = lance.open();
    try {
      for (int i = 0; i < versions; i++) {
        try (org.lance.Transaction txn = new org.lance.Transaction(ds.version(),
            ReserveFragments.builder().numFragments(1).build())) {
          Dataset next = new CommitBuilder(ds).execute(txn);
          ds.close();
          ds = next;
        }
      }
    } finally {
      ds.close();
    }
  }

  private long commitDirectly(LanceTables lance) {
    List<FragmentMetadata> fragment = lance.writeRows(0, 1);
    try (Dataset ds = lance.open()) {
      long start = System.nanoTime();
      try (org.lance.Transaction txn = new org.lance.Transaction(ds.version(),
              Append.builder().fragments(fragment).build());
          Dataset next = new CommitBuilder(ds).execute(txn)) {
        return System.nanoTime() - start;
      }
    }
  }

  // ------------------------------------------------------------------------------------------------ timing

  /** Runs {@code commits} timed commits (after 10 untimed ones) and formats p50 / p99 in ms. */
  private String time(LongSupplier oneCommit) {
    for (int i = 0; i < 10; i++) {
      oneCommit.getAsLong();
    }
    long[] nanos = new long[commits];
    for (int i = 0; i < commits; i++) {
      nanos[i] = oneCommit.getAsLong();
    }
    Arrays.sort(nanos);
    return String.format(Locale.ROOT, "%.2f / %.2f", nanos[commits / 2] / 1e6, nanos[(int) (commits * 0.99)] / 1e6);
  }

  private void print(PrintStream out) {
    out.println();
    out.printf(Locale.ROOT, "ScalingBenchmark: store %s, fsync %s, %d timed one-row appends per cell, 1 writer (%d "
        + "cores); p50 / p99 ms per commit%n", store, fsync, commits, Runtime.getRuntime().availableProcessors());
    out.printf(Locale.ROOT, "%-48s %24s %24s%n", "", "coordinator (HTTP)", "lance (CommitBuilder)");
    for (String[] row : rows) {
      out.printf(Locale.ROOT, "%-48s %24s %24s%n", row[0], row[1], row[2]);
    }
  }

  private Map<String, String> storageOptions() {
    return s3 == null ? Map.of() : s3.lanceStorageOptions();
  }

  private static List<Integer> ints(String list) {
    return Arrays.stream(list.split(",")).map(String::trim).filter(s -> !s.isEmpty()).map(Integer::parseInt)
        .toList();
  }

  /** Library loggers (s3proxy, Jetty, Arrow) default to DEBUG without a configuration file. */
  private static void quietLogging() {
    if (org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)
        instanceof ch.qos.logback.classic.Logger root) {
      root.setLevel(ch.qos.logback.classic.Level.WARN);
    }
  }

  private static void log(String message) {
    System.err.println("[scaling] " + message);
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
