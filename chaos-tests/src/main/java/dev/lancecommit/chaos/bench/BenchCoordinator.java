package dev.lancecommit.chaos.bench;

import dev.lancecommit.coordinator.Coordinator;
import dev.lancecommit.coordinator.CoordinatorConfig;
import dev.lancecommit.e2e.CommitApi;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** An in-process coordinator for one run, its warehouse on the cell's store, and its CommitTable client. */
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
  private static final Pattern LABEL = Pattern.compile("(code|method|route)=\"([^\"]*)\"");
  private final Coordinator coordinator;
  private final CommitApi api;

  private BenchCoordinator(Coordinator coordinator) {
    this.coordinator = coordinator;
    this.api = new CommitApi(coordinator.restUrl());
  }

  static BenchCoordinator start(Cell cell) {
    String warehouse = cell.store().uri(cell.name() + "/coordinator");
    CoordinatorConfig.Builder config = CoordinatorConfig.builder()
        .port(0)
        .warehouse(warehouse)
        .kafka(cell.kafka())
        .topic("lance.commits.bench." + cell.name())
        .set(CoordinatorConfig.COMMIT_VERIFY_FILES, Boolean.toString(cell.options().verifyFiles()))
        .set(CoordinatorConfig.STORE_LOCAL_FSYNC, Boolean.toString(cell.options().localFsync()));
    if (cell.store().isS3()) {
      config.s3(cell.store().s3Config());
    }
    cell.options().coordinatorSettings().forEach(config::set);
    return new BenchCoordinator(Coordinator.start(config.build()));
  }

  /**
   * Logs the coordinator's own mean time per commit, whole and by phase, and its answers by outcome, from its
   * metrics: set beside the writers' latency it tells what the request round trip and the client cost, and how often
   * a writer was sent back (a conflict, a throttle).
   */
  private void logOwnMetrics() {
    try {
      HttpResponse<String> metrics = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create(coordinator.restUrl() + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString());
      Map<String, double[]> sumAndCount = new TreeMap<>();
      Map<String, Double> outcomes = new TreeMap<>();
      Map<String, double[]> requests = new TreeMap<>();
      for (String line : metrics.body().lines().toList()) {
        Matcher outcome = OUTCOME.matcher(line);
        if (outcome.matches()) {
          outcomes.merge(outcome.group(1), Double.parseDouble(outcome.group(2)), Double::sum);
        }
        Matcher http = HTTP.matcher(line);
        if (http.matches()) {
          Map<String, String> labels = new TreeMap<>();
          Matcher label = LABEL.matcher(http.group(2));
          while (label.find()) {
            labels.put(label.group(1), label.group(2));
          }
          String key = labels.getOrDefault("method", "?") + " " + labels.getOrDefault("route", "?") + " "
              + labels.getOrDefault("code", "?");
          double[] entry = requests.computeIfAbsent(key, k -> new double[2]);
          entry[http.group(1).equals("sum") ? 0 : 1] += Double.parseDouble(http.group(3));
        }
        Matcher m = TIMER.matcher(line);
        if (m.matches()) {
          double[] entry = sumAndCount.computeIfAbsent(m.group(2) == null ? "all" : m.group(2), k -> new double[2]);
          entry[m.group(1).equals("sum") ? 0 : 1] += Double.parseDouble(m.group(3));
        }
      }
      StringBuilder line = new StringBuilder("coordinator's own mean ms per commit:");
      sumAndCount.forEach((name, v) -> line.append(String.format(Locale.ROOT, " %s %.2f", name,
          v[1] == 0 ? 0 : v[0] * 1000 / v[1])));
      CommitBenchmark.log(line.toString());
      StringBuilder answers = new StringBuilder("coordinator's answers to commits (CommitTable and version/create):");
      outcomes.forEach((name, n) -> answers.append(String.format(Locale.ROOT, " %s %.0f", name, n)));
      CommitBenchmark.log(answers.toString());
      StringBuilder calls = new StringBuilder("coordinator's HTTP requests (route code: count, mean ms):");
      requests.forEach((key, v) -> calls.append(String.format(Locale.ROOT, " [%s: %.0f, %.2f]", key, v[1],
          v[1] == 0 ? 0 : v[0] * 1000 / v[1])));
      CommitBenchmark.log(calls.toString());
    } catch (Exception e) {
      CommitBenchmark.log("the coordinator's metrics could not be read: " + e);
    }
  }

  CommitApi api() {
    return api;
  }

  String restUrl() {
    return coordinator.restUrl();
  }

  /** Creates namespace {@code namespace} with {@code propertiesJson} ({@code {}} for none). */
  void createNamespace(String namespace, String propertiesJson) {
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
    logOwnMetrics();
    coordinator.close();
  }
}
