package dev.lancecommit.chaos.cluster;

import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;

import dev.lancecommit.chaos.harness.CoordinatorCluster;
import dev.lancecommit.chaos.harness.CoordinatorProcess;
import dev.lancecommit.config.Config;
import dev.lancecommit.config.ConfigCommandLine;
import dev.lancecommit.config.ConfigKey;
import dev.lancecommit.config.ConfigKeys;
import dev.lancecommit.coordinator.storage.ObjectStores;
import dev.lancecommit.e2e.CommitApi;
import dev.lancecommit.events.kafka.EmbeddedKafkaBroker;
import dev.lancecommit.testing.HandMadeTransactions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The cluster's yardsticks, with coordinator processes on one local warehouse and an embedded Kafka broker:
 *
 * <ul>
 *   <li>{@code --mode throughput}: {@code --writers} writers append to {@code --tables} tables for {@code --seconds},
 *       once through one coordinator (single-node mode, as without a cluster) and once through {@code --instances}
 *       instances in cluster mode, every request to a random instance. Prints commits/s, p50/p99 latency and
 *       failures side by side and the ratios (target: cluster/one &ge; 0.9x commits/s, p99 &le; 1.5x, 0 failures).
 *       With {@code --follow-owner after|first} the cluster also runs with writers that send a table's commits to the
 *       owner a forwarded answer named, as the Java and Python clients do (on a fresh namespace of tables).
 *   <li>{@code --mode kill}: the same writers through the cluster; halfway, the owner of the first table is killed
 *       with SIGKILL. Prints how long each table went without an acknowledged commit (target: &le; 10 s), and checks
 *       that no acknowledged commit was lost or forked and that every version has its event.
 * </ul>
 *
 * <pre>
 * mvn -B -q -pl chaos-tests -am package -DskipTests
 * java -cp "chaos-tests/target/chaos-tests.jar:chaos-tests/target/lib/*" \
 *     dev.lancecommit.chaos.cluster.ClusterBenchmark --mode throughput --writers 16 --seconds 30 --instances 3
 * </pre>
 */
public final class ClusterBenchmark {
  private static final ConfigKeys KEYS = new ConfigKeys();
  static final ConfigKey<String> MODE = KEYS.string("mode", "throughput", ConfigKeys.oneOf("throughput", "kill"),
      "throughput: one instance against the cluster; kill: SIGKILL of a table's owner under load.");
  static final ConfigKey<Integer> WRITERS = KEYS.integer("writers", 16, atLeast(1), "Concurrent writer threads.");
  static final ConfigKey<Integer> SECONDS = KEYS.integer("seconds", 30, atLeast(1), "Measured duration of each run.");
  static final ConfigKey<Integer> WARMUP = KEYS.integer("warmup-seconds", 10, atLeast(0),
      "Writers run this long before each measured run (JIT, connection pools, lanes).");
  static final ConfigKey<Integer> INSTANCES = KEYS.integer("instances", 3, atLeast(1), "Instances of the cluster.");
  static final ConfigKey<Integer> TABLES = KEYS.integer("tables", 1, atLeast(1), "Tables written (at random).");
  static final ConfigKey<Integer> PARTITIONS = KEYS.integer("partitions", 6, atLeast(1),
      "Partitions of the events topic (the unit of ownership).");
  static final ConfigKey<String> FOLLOW_OWNER = KEYS.string("follow-owner", "none",
      ConfigKeys.oneOf("none", "after", "first"),
      "throughput: also run the cluster with writers that send a table's commits to the owner a forwarded answer "
          + "named (x-lcc-served-by), as the Java and Python clients do: after the run with a random instance per "
          + "request, or first.");
  static final String DESCRIPTION = "Writers append through coordinator processes picked at random: one instance "
      + "against a cluster (throughput), or a cluster whose table owner is killed under load (kill).";

  private final Config options;
  private final Path workDir;
  private final EmbeddedKafkaBroker kafka;
  private final ObjectStores stores = new ObjectStores(null);

  private ClusterBenchmark(Config options, Path workDir, EmbeddedKafkaBroker kafka) {
    this.options = options;
    this.workDir = workDir;
    this.kafka = kafka;
  }

  public static void main(String[] args) throws Exception {
    ConfigCommandLine commandLine = new ConfigCommandLine("ClusterBenchmark", DESCRIPTION, null, KEYS);
    Config options;
    try {
      if (!commandLine.parse(System.out, args)) {
        return;
      }
      options = KEYS.parse(commandLine.values());
    } catch (IllegalArgumentException e) {
      System.err.println("error: " + e.getMessage());
      System.exit(2);
      return;
    }
    Path workDir = Files.createTempDirectory("lcc-cluster-bench-");
    int status = 0;
    try (EmbeddedKafkaBroker kafka = EmbeddedKafkaBroker.builder().dataDir(workDir.resolve("kafka")).build()) {
      kafka.start();
      ClusterBenchmark bench = new ClusterBenchmark(options, workDir, kafka);
      status = options.get(MODE).equals("kill") ? bench.kill() : bench.throughput();
    } catch (Exception e) {
      e.printStackTrace();
      status = 2;
    } finally {
      deleteRecursively(workDir);
    }
    System.exit(status);
  }

  /** The numbers of one measured run. */
  record Numbers(String label, int acks, double commitsPerSecond, double p50Millis, double p99Millis,
      double maxMillis, int failures, long resubmits) {
    static Numbers of(String label, ClusterWorkload workload, long fromNanos, Duration measured) {
      List<Long> latencies = workload.acks().stream().filter(a -> a.sentNanos() >= fromNanos)
          .map(ClusterWorkload.Ack::latencyNanos).sorted().toList();
      long inWindow = workload.acks().stream()
          .filter(a -> a.ackedNanos() >= fromNanos && a.ackedNanos() <= fromNanos + measured.toNanos()).count();
      return new Numbers(label, (int) inWindow, inWindow / (measured.toNanos() / 1e9), percentile(latencies, 0.50),
          percentile(latencies, 0.99), latencies.isEmpty() ? 0 : latencies.get(latencies.size() - 1) / 1e6,
          workload.failures().size(), workload.resubmits());
    }
  }

  private int throughput() throws Exception {
    log("machine load before: " + loadAverage());
    Numbers one;
    try (CoordinatorProcess single = new CoordinatorProcess(workDir.resolve("single"), freePort(),
        commonArgs("single"), null)) {
      single.start();
      one = measure("1 instance (single-node mode)", List.of(single.baseUrl()), "single", false);
    }
    log("machine load between: " + loadAverage());
    Numbers many;
    Numbers following = null;
    int instances = options.get(INSTANCES);
    try (CoordinatorCluster cluster = new CoordinatorCluster(workDir.resolve("cluster"), instances,
        commonArgs("cluster"), null, "bench-" + UUID.randomUUID())) {
      cluster.start();
      cluster.awaitSettled(cluster.instances(), Duration.ofSeconds(120));
      List<String> urls = cluster.instances().stream().map(CoordinatorProcess::baseUrl).toList();
      String follow = options.get(FOLLOW_OWNER);
      String followLabel = instances + " instances (cluster, commits to the owner once named)";
      if (follow.equals("first")) {
        following = measure(followLabel, urls, "cluster", true);
      }
      many = measure(instances + " instances (cluster, random instance per request)", urls, "cluster", false);
      if (follow.equals("after")) {
        following = measure(followLabel, urls, "cluster", true);
      }
    }
    log("machine load after: " + loadAverage());
    System.out.printf(Locale.ROOT, "%n%d writers, %d table(s), %d s measured after %d s warm-up%n",
        options.get(WRITERS), options.get(TABLES), options.get(SECONDS), options.get(WARMUP));
    System.out.println("| run | commits | commits/s | p50 ms | p99 ms | max ms | failed | resubmits |");
    System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (Numbers n : following == null ? List.of(one, many) : List.of(one, many, following)) {
      System.out.printf(Locale.ROOT, "| %s | %d | %.1f | %.1f | %.1f | %.0f | %d | %d |%n", n.label(), n.acks(),
          n.commitsPerSecond(), n.p50Millis(), n.p99Millis(), n.maxMillis(), n.failures(), n.resubmits());
    }
    double rate = many.commitsPerSecond() / one.commitsPerSecond();
    double p99 = many.p99Millis() / one.p99Millis();
    System.out.printf(Locale.ROOT, "cluster/one: %.2fx commits/s (target >= 0.9), p99 %.2fx (target <= 1.5), "
        + "failures %d%n", rate, p99, many.failures());
    if (following != null) {
      System.out.printf(Locale.ROOT, "following the owner/one: %.2fx commits/s, p99 %.2fx, failures %d%n",
          following.commitsPerSecond() / one.commitsPerSecond(), following.p99Millis() / one.p99Millis(),
          following.failures());
    }
    return many.failures() == 0 && one.failures() == 0 && (following == null || following.failures() == 0) ? 0 : 1;
  }

  private Numbers measure(String label, List<String> urls, String warehouse, boolean followOwner) throws Exception {
    List<List<String>> tables = createTables(urls.get(0), followOwner ? "following" : "bench");
    int warmup = options.get(WARMUP);
    if (warmup > 0) {
      new ClusterWorkload(tables, () -> urls, followOwner).run(options.get(WRITERS), Duration.ofSeconds(warmup),
          Duration.ofSeconds(60));
    }
    ClusterWorkload workload = new ClusterWorkload(tables, () -> urls, followOwner);
    long from = System.nanoTime();
    Duration measured = Duration.ofSeconds(options.get(SECONDS));
    workload.run(options.get(WRITERS), measured, Duration.ofSeconds(60));
    Numbers numbers = Numbers.of(label, workload, from, measured);
    for (List<String> table : tables) {
      String location = locationOf(urls.get(0), table);
      List<ClusterWorkload.Ack> acks = workload.acks().stream().filter(a -> a.table().equals(table)).toList();
      List<String> problems = ClusterChecks.acknowledgedCommitsLanded(stores, location, acks);
      if (!problems.isEmpty()) {
        throw new IllegalStateException(label + ": " + problems);
      }
    }
    log(label + ": " + numbers);
    return numbers;
  }

  private int kill() throws Exception {
    log("machine load before: " + loadAverage());
    int instances = Math.max(2, options.get(INSTANCES));
    String topic = "lance.commits." + UUID.randomUUID();
    try (CoordinatorCluster cluster = new CoordinatorCluster(workDir.resolve("cluster"), instances,
        commonArgs("kill", topic), null, "bench-kill-" + UUID.randomUUID())) {
      cluster.start();
      cluster.awaitSettled(cluster.instances(), Duration.ofSeconds(120));
      List<String> urls = cluster.instances().stream().map(CoordinatorProcess::baseUrl).toList();
      List<List<String>> tables = createTables(urls.get(0), "bench");
      ClusterWorkload workload = new ClusterWorkload(tables, () -> urls);
      Duration measured = Duration.ofSeconds(options.get(SECONDS));
      long from = System.nanoTime();
      CompletableFuture<Void> run = CompletableFuture.runAsync(() -> {
        try {
          workload.run(options.get(WRITERS), measured, Duration.ofSeconds(120));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      Thread.sleep(measured.toMillis() / 2);
      String victimTable = String.join("$", tables.get(0));
      CoordinatorProcess owner = cluster.ownerOf(victimTable).orElseThrow();
      long killedAt = System.nanoTime();
      owner.kill();
      log("killed " + owner.baseUrl() + " (owner of " + victimTable + ") with SIGKILL");
      run.get(10, TimeUnit.MINUTES);
      long until = from + measured.toNanos();

      boolean passed = workload.failures().isEmpty();
      System.out.printf(Locale.ROOT, "%n%d writers through %d instances, %d table(s), %d s; owner of %s killed at "
          + "%.1f s%n", options.get(WRITERS), instances, tables.size(), measured.toSeconds(), victimTable,
          (killedAt - from) / 1e9);
      System.out.println("| table | acknowledged | longest without a commit after the kill (ms) | lost or forked "
          + "| versions without event |");
      System.out.println("|---|---:|---:|---:|---:|");
      for (List<String> table : tables) {
        String survivor = urls.stream().filter(u -> !u.equals(owner.baseUrl())).findFirst().orElseThrow();
        String location = locationOf(survivor, table);
        List<ClusterWorkload.Ack> acks = workload.acks().stream().filter(a -> a.table().equals(table)).toList();
        List<String> problems = ClusterChecks.acknowledgedCommitsLanded(stores, location, acks);
        long latest = ClusterChecks.latestVersion(stores, location);
        var missing = ClusterChecks.versionsWithoutEvent(kafka.bootstrapServers(), topic, table, latest,
            Duration.ofSeconds(120));
        Duration gap = ClusterChecks.longestGap(acks, killedAt, until);
        System.out.printf(Locale.ROOT, "| %s | %d | %d | %d | %d |%n", String.join("$", table), acks.size(),
            gap.toMillis(), problems.size(), missing.size());
        problems.forEach(p -> System.out.println("  problem: " + p));
        passed &= problems.isEmpty() && missing.isEmpty() && gap.compareTo(Duration.ofSeconds(10)) <= 0;
      }
      System.out.printf(Locale.ROOT, "failures %d, resubmits %d; %s%n", workload.failures().size(),
          workload.resubmits(), passed ? "PASSED" : "FAILED");
      workload.failures().stream().limit(10).forEach(f -> System.out.println("  failure: " + f));
      log("machine load after: " + loadAverage());
      return passed ? 0 : 1;
    }
  }

  private List<String> commonArgs(String name) {
    return commonArgs(name, "lance.commits." + name + "." + UUID.randomUUID());
  }

  private List<String> commonArgs(String name, String topic) {
    return new ArrayList<>(List.of(
        "--warehouse", workDir.resolve("warehouse-" + name).toString(),
        "--kafka", kafka.bootstrapServers(),
        "--kafka.topic", topic,
        "--kafka.topic.partitions", Integer.toString(options.get(PARTITIONS)),
        "--publication.reconcile-interval.ms", "5000",
        // the hand-made transactions name data files that are never written: file checks would refuse them
        "--commit.verify-files", "false"));
  }

  private List<List<String>> createTables(String url, String namespace) {
    CommitApi api = new CommitApi(url);
    api.createNamespace(namespace);
    HandMadeTransactions txns = new HandMadeTransactions();
    List<List<String>> tables = new ArrayList<>();
    for (int i = 0; i < options.get(TABLES); i++) {
      List<String> table = List.of(namespace, "t" + i);
      api.declareTable(table);
      CommitApi.Response created = api.commit(table, txns.create());
      if (created.status() != 200) {
        throw new IllegalStateException("could not create " + table + ": " + created);
      }
      tables.add(table);
    }
    return tables;
  }

  private String locationOf(String url, List<String> table) {
    CommitApi.Response described = new CommitApi(url).describe(table);
    return described.body().get("location").asText();
  }

  private static double percentile(List<Long> sorted, double p) {
    if (sorted.isEmpty()) {
      return 0;
    }
    int index = (int) Math.min(sorted.size() - 1, Math.ceil(p * sorted.size()) - 1);
    return sorted.get(Math.max(0, index)) / 1e6;
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (IOException e) {
      return "unknown";
    }
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void log(String message) {
    System.err.println("[cluster-bench] " + message);
  }

  private static void deleteRecursively(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // best effort: a temp dir
    }
  }
}
