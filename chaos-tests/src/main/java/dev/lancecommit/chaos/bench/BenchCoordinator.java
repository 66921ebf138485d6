package dev.lancecommit.chaos.bench;

import dev.lancecommit.coordinator.Coordinator;
import dev.lancecommit.coordinator.CoordinatorConfig;
import dev.lancecommit.coordinator.Main;
import dev.lancecommit.e2e.CommitApi;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The coordinator of one run and its CommitTable client. In this process (the default) each run starts a
 * coordinator of its own; with {@link BenchOptions#COORDINATOR_OWN_JVM} one coordinator JVM per store serves every
 * run of the invocation (warm-ups included, so its JIT warms up as a long-running coordinator's does), each run in a
 * namespace of its own.
 */
final class BenchCoordinator implements AutoCloseable {
  /** {@code lance_commit_duration_seconds} (all operations) and {@code lance_commit_phase_seconds} by phase. */
  private static final Pattern TIMER = Pattern.compile(
      "lance_commit_(?:duration|phase)_seconds_(sum|count)\\{(?:operation=\"[^\"]*\"|phase=\"([^\"]*)\")\\} (\\S+)");
  /** {@code lance_commit_requests_total} by outcome (summed over operations). */
  private static final Pattern OUTCOME = Pattern.compile(
      "lance_commit_requests_total\\{.*outcome=\"([^\"]*)\".*\\} (\\S+)");
  /** {@code vertx_http_server_response_time_seconds} by route and code. */
  private static final Pattern HTTP = Pattern.compile(
      "vertx_http_server_response_time_seconds_(sum|count)\\{(.*)\\} (\\S+)");
  /** {@code lance_store_request_duration_seconds} by operation and outcome. */
  private static final Pattern STORE = Pattern.compile(
      "lance_store_request_duration_seconds_(sum|count)\\{(.*)\\} (\\S+)");
  private static final Pattern LABEL = Pattern.compile("(code|method|route|operation|outcome)=\"([^\"]*)\"");
  private static final Pattern REST_URL = Pattern.compile("REST URL:\\s+(\\S+)");
  private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
  /** The coordinator JVM of each store of this invocation ({@link BenchOptions#COORDINATOR_OWN_JVM}). */
  private static final Map<BenchStore, OwnJvm> OWN_JVMS = new IdentityHashMap<>();

  private final String restUrl;
  private final CommitApi api;
  private final String namespace;
  private final Metrics before;
  private final AutoCloseable stop;
  /** A warm-up's other requests to the coordinator's own JVM ({@link ServiceTraffic}); null for other runs. */
  private final ServiceTraffic traffic;

  private BenchCoordinator(String restUrl, String namespace, Metrics before, AutoCloseable stop,
      ServiceTraffic traffic) {
    this.restUrl = restUrl;
    this.api = new CommitApi(restUrl);
    this.namespace = namespace;
    this.before = before;
    this.stop = stop;
    this.traffic = traffic;
  }

  static BenchCoordinator start(Cell cell) {
    if (cell.options().coordinatorOwnJvm()) {
      OwnJvm jvm;
      synchronized (OWN_JVMS) {
        jvm = OWN_JVMS.get(cell.store());
        if (jvm == null) {
          String store = cell.store().kind().cliName();
          jvm = OwnJvm.start(config(cell, "coordinator-" + store, "lance.commits.bench." + store),
              cell.workDir().resolveSibling("coordinator-" + store), cell.options().coordinatorJvmOptions());
          OWN_JVMS.put(cell.store(), jvm);
        }
      }
      Metrics before = Metrics.read(jvm.restUrl);
      ServiceTraffic traffic = cell.warmup() ? ServiceTraffic.start(jvm.restUrl, cell.name() + "-service") : null;
      return new BenchCoordinator(jvm.restUrl, cell.name(), before, () -> { }, traffic);
    }
    Coordinator coordinator = Coordinator.start(
        config(cell, cell.name() + "/coordinator", "lance.commits.bench." + cell.name()));
    return new BenchCoordinator(coordinator.restUrl(), "bench", Metrics.NONE, coordinator::close, null);
  }

  /** Stops the coordinator JVM serving {@code store}'s runs, if one was started. */
  static void stopOwnJvm(BenchStore store) {
    OwnJvm jvm;
    synchronized (OWN_JVMS) {
      jvm = OWN_JVMS.remove(store);
    }
    if (jvm != null) {
      jvm.stop();
    }
  }

  private static CoordinatorConfig config(Cell cell, String warehouseName, String topic) {
    CoordinatorConfig.Builder config = CoordinatorConfig.builder()
        .port(0)
        .warehouse(cell.store().uri(warehouseName))
        .kafka(cell.kafka())
        .topic(topic)
        .set(CoordinatorConfig.COMMIT_VERIFY_FILES, Boolean.toString(cell.options().verifyFiles()))
        .set(CoordinatorConfig.STORE_LOCAL_FSYNC, Boolean.toString(cell.options().localFsync()));
    if (cell.store().isS3()) {
      config.s3(cell.store().s3Config());
    }
    cell.options().coordinatorSettings().forEach(config::set);
    return config.build();
  }

  /**
   * A coordinator in a JVM of its own: {@code java -cp <this classpath> dev.lancecommit.coordinator.Main --config
   * <dir>/coordinator.properties}, its output in {@code <dir>/coordinator.log}, its threads' CPU counted in the
   * windows ({@link ThreadCpu#watch}).
   */
  private static final class OwnJvm {
    private final Process process;
    private final String restUrl;
    /** Stops the coordinator's JVM when the benchmark's ends without {@link #stop} (killed, or a run that threw). */
    private final Thread stopAtExit;

    private OwnJvm(Process process, String restUrl) {
      this.process = process;
      this.restUrl = restUrl;
      this.stopAtExit = new Thread(process::destroy, "bench-coordinator-stop-at-exit");
      Runtime.getRuntime().addShutdownHook(stopAtExit);
    }

    static OwnJvm start(CoordinatorConfig config, Path dir, String jvmOptions) {
      try {
        Files.createDirectories(dir);
        Properties properties = new Properties();
        properties.putAll(config.given());
        Path file = dir.resolve("coordinator.properties");
        try (Writer out = Files.newBufferedWriter(file)) {
          properties.store(out, "CommitBenchmark: the configuration of this store's coordinator");
        }
        Path log = dir.resolve("coordinator.log");
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java, "--add-opens=java.base/java.nio=ALL-UNNAMED"));
        ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
            .filter(arg -> arg.startsWith("-Xmx") || arg.startsWith("-Xms")).forEach(command::add);
        Arrays.stream(jvmOptions.split("\\s+")).filter(option -> !option.isBlank()).forEach(command::add);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName(),
            "--config", file.toString()));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        String restUrl;
        try {
          restUrl = awaitRestUrl(process, log);
        } catch (RuntimeException e) {
          process.destroyForcibly();
          throw e;
        }
        ThreadCpu.watch(process.pid());
        CommitBenchmark.log("coordinator in its own JVM, pid " + process.pid() + ", at " + restUrl + " (log " + log
            + ")");
        return new OwnJvm(process, restUrl);
      } catch (IOException e) {
        throw new UncheckedIOException("The coordinator's JVM could not be started in " + dir, e);
      }
    }

    /** The URL Main prints once it serves ({@code "  REST URL:        http://..."}). */
    private static String awaitRestUrl(Process process, Path log) throws IOException {
      long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
      while (System.nanoTime() < deadline) {
        for (String line : Files.readAllLines(log)) {
          Matcher m = REST_URL.matcher(line);
          if (m.find()) {
            return m.group(1);
          }
        }
        if (!process.isAlive()) {
          throw new IllegalStateException("The coordinator's JVM exited with " + process.exitValue() + " before "
              + "it served; see " + log);
        }
        sleep(Duration.ofMillis(100));
      }
      throw new IllegalStateException("The coordinator's JVM did not serve within " + START_TIMEOUT + "; see "
          + log);
    }

    void stop() {
      try {
        Runtime.getRuntime().removeShutdownHook(stopAtExit);
      } catch (IllegalStateException e) {
        // the benchmark's JVM is exiting: the hook stops the coordinator's
      }
      ThreadCpu.unwatch(process.pid());
      process.destroy(); // SIGTERM: its shutdown hook closes the coordinator
      try {
        if (!process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
          CommitBenchmark.log("the coordinator's JVM did not stop within " + STOP_TIMEOUT + "; killed");
          process.destroyForcibly().waitFor();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        process.destroyForcibly();
      }
    }
  }

  /** The coordinator's counters that {@link #logOwnMetrics} reports, as read at one moment. */
  private record Metrics(Map<String, double[]> sumAndCount, Map<String, Double> outcomes,
      Map<String, double[]> requests, Map<String, double[]> storeRequests) {
    static final Metrics NONE = new Metrics(Map.of(), Map.of(), Map.of(), Map.of());

    static Metrics read(String restUrl) {
      Map<String, double[]> sumAndCount = new TreeMap<>();
      Map<String, Double> outcomes = new TreeMap<>();
      Map<String, double[]> requests = new TreeMap<>();
      Map<String, double[]> storeRequests = new TreeMap<>();
      HttpResponse<String> metrics;
      try {
        metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(restUrl + "/metrics")).build(),
            HttpResponse.BodyHandlers.ofString());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      for (String line : metrics.body().lines().toList()) {
        Matcher outcome = OUTCOME.matcher(line);
        if (outcome.matches()) {
          outcomes.merge(outcome.group(1), Double.parseDouble(outcome.group(2)), Double::sum);
        }
        Matcher http = HTTP.matcher(line);
        if (http.matches()) {
          Map<String, String> labels = labels(http.group(2));
          String key = labels.getOrDefault("method", "?") + " " + labels.getOrDefault("route", "?") + " "
              + labels.getOrDefault("code", "?");
          double[] entry = requests.computeIfAbsent(key, k -> new double[2]);
          entry[http.group(1).equals("sum") ? 0 : 1] += Double.parseDouble(http.group(3));
        }
        Matcher store = STORE.matcher(line);
        if (store.matches()) {
          Map<String, String> labels = labels(store.group(2));
          String key = labels.getOrDefault("operation", "?") + " " + labels.getOrDefault("outcome", "?");
          double[] entry = storeRequests.computeIfAbsent(key, k -> new double[2]);
          entry[store.group(1).equals("sum") ? 0 : 1] += Double.parseDouble(store.group(3));
        }
        Matcher m = TIMER.matcher(line);
        if (m.matches()) {
          double[] entry = sumAndCount.computeIfAbsent(m.group(2) == null ? "all" : m.group(2), k -> new double[2]);
          entry[m.group(1).equals("sum") ? 0 : 1] += Double.parseDouble(m.group(3));
        }
      }
      return new Metrics(sumAndCount, outcomes, requests, storeRequests);
    }

    private static Map<String, String> labels(String text) {
      Map<String, String> labels = new TreeMap<>();
      Matcher label = LABEL.matcher(text);
      while (label.find()) {
        labels.put(label.group(1), label.group(2));
      }
      return labels;
    }

    /** What was counted since {@code earlier}; what did not change is left out. */
    Metrics since(Metrics earlier) {
      Map<String, Double> outcomesSince = new TreeMap<>();
      outcomes.forEach((name, n) -> {
        double delta = n - earlier.outcomes.getOrDefault(name, 0.0);
        if (delta > 0) {
          outcomesSince.put(name, delta);
        }
      });
      return new Metrics(minus(sumAndCount, earlier.sumAndCount), outcomesSince, minus(requests, earlier.requests),
          minus(storeRequests, earlier.storeRequests));
    }

    private static Map<String, double[]> minus(Map<String, double[]> later, Map<String, double[]> earlier) {
      Map<String, double[]> since = new TreeMap<>();
      later.forEach((name, v) -> {
        double[] was = earlier.getOrDefault(name, new double[2]);
        if (v[1] - was[1] > 0) {
          since.put(name, new double[] {v[0] - was[0], v[1] - was[1]});
        }
      });
      return since;
    }
  }

  /**
   * Logs the coordinator's own mean time per commit, whole and by phase, and its answers by outcome, from its
   * metrics (counted during this run only): set beside the writers' latency it tells what the request round trip and
   * the client cost, and how often a writer was sent back (a conflict, a throttle).
   */
  private void logOwnMetrics() {
    Metrics run;
    try {
      run = Metrics.read(restUrl).since(before);
    } catch (RuntimeException e) {
      CommitBenchmark.log("the coordinator's metrics could not be read: " + e);
      return;
    }
    StringBuilder line = new StringBuilder("coordinator's own mean ms per commit:");
    run.sumAndCount().forEach((name, v) -> line.append(String.format(Locale.ROOT, " %s %.2f", name,
        v[1] == 0 ? 0 : v[0] * 1000 / v[1])));
    CommitBenchmark.log(line.toString());
    StringBuilder answers = new StringBuilder("coordinator's answers to commits (CommitTable and version/create):");
    run.outcomes().forEach((name, n) -> answers.append(String.format(Locale.ROOT, " %s %.0f", name, n)));
    CommitBenchmark.log(answers.toString());
    StringBuilder calls = new StringBuilder("coordinator's HTTP requests (route code: count, mean ms):");
    run.requests().forEach((key, v) -> calls.append(String.format(Locale.ROOT, " [%s: %.0f, %.2f]", key, v[1],
        v[1] == 0 ? 0 : v[0] * 1000 / v[1])));
    CommitBenchmark.log(calls.toString());
    StringBuilder store = new StringBuilder("coordinator's store requests (operation outcome: count, mean ms):");
    run.storeRequests().forEach((key, v) -> store.append(String.format(Locale.ROOT, " [%s: %.0f, %.2f]", key, v[1],
        v[1] == 0 ? 0 : v[0] * 1000 / v[1])));
    CommitBenchmark.log(store.toString());
  }

  CommitApi api() {
    return api;
  }

  String restUrl() {
    return restUrl;
  }

  /** The namespace this run's tables go in: one per run when runs share a coordinator. */
  String namespace() {
    return namespace;
  }

  /** Creates the run's namespace with {@code propertiesJson} ({@code {}} for none). */
  void createNamespace(String propertiesJson) {
    CommitApi.Response r = api.postJson("/v1/namespace/" + namespace + "/create",
        "{\"properties\": " + propertiesJson + "}");
    if (r.status() != 200) {
      throw new IllegalStateException("CreateNamespace " + namespace + " failed: " + r);
    }
  }

  String declare(List<String> table) {
    return api.declareTable(table);
  }

  @Override
  public void close() {
    if (traffic != null) {
      traffic.close();
    }
    logOwnMetrics();
    try {
      stop.close();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("The coordinator did not stop", e);
    }
  }

  private static void sleep(Duration pause) {
    try {
      Thread.sleep(pause.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while the coordinator's JVM started", e);
    }
  }
}
