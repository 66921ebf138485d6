package dev.lancecommit.chaos.bench;

import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.coordinator.Coordinator;
import dev.lancecommit.coordinator.CoordinatorConfig;
import dev.lancecommit.format.pb.Transaction;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;

/**
 * What the writer's HTTP client adds to each request: one thread sends {@code --requests} requests one after the
 * other to an in-process coordinator (local warehouse, no Kafka), through each client in turn, {@code --rounds} times
 * interleaved, and reports each client's latency (median of the rounds' p50 and mean). Two requests: {@code GET
 * /healthz} (answered on the event loop) and a CommitTable resubmission of a transaction that already landed (the
 * commit route's parsing, the lane's uuid lookup and the JSON answer, no storage write). The clients: the JDK's
 * {@code java.net.http} (what the Java client and the benchmark writers used before), Apache HttpClient 5 classic
 * with a connection pool (what they use now) and {@code HttpURLConnection}.
 *
 * <pre>
 * java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "chaos-tests/target/chaos-tests.jar:chaos-tests/target/lib/*" \
 *     dev.lancecommit.chaos.bench.HttpTransportBenchmark [--requests 2000] [--rounds 5]
 * </pre>
 */
public final class HttpTransportBenchmark {
  private interface Client extends AutoCloseable {
    /** Sends the request and returns the status after reading the whole answer. */
    int send(String url, byte[] body) throws IOException;

    @Override
    default void close() throws IOException {}
  }

  public static void main(String[] argv) throws Exception {
    Map<String, String> args = new LinkedHashMap<>();
    for (int i = 0; i + 1 < argv.length; i += 2) {
      args.put(argv[i], argv[i + 1]);
    }
    int requests = Integer.parseInt(args.getOrDefault("--requests", "2000"));
    int rounds = Integer.parseInt(args.getOrDefault("--rounds", "5"));
    if (org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)
        instanceof ch.qos.logback.classic.Logger root) {
      root.setLevel(ch.qos.logback.classic.Level.WARN);
    }
    Path work = Files.createTempDirectory("lcc-transport-");
    int status = 0;
    try {
      run(work, requests, rounds, System.out);
    } catch (Exception e) {
      e.printStackTrace();
      status = 1;
    } finally {
      try (Stream<Path> paths = Files.walk(work)) {
        paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    System.exit(status);
  }

  /** One row of the report: a request through a client, the median over the rounds of their p50 and mean. */
  record Row(String request, String client, double p50Millis, double meanMillis) {}

  /** Runs every client on both requests against a coordinator over {@code work} and prints the table. */
  static List<Row> run(Path work, int requests, int rounds, PrintStream out) throws Exception {
    CoordinatorConfig config = CoordinatorConfig.builder().port(0).warehouse(work.resolve("warehouse").toString())
        .kafka("none").build();
    try (Coordinator coordinator = Coordinator.start(config)) {
      String base = coordinator.restUrl().replaceAll("/$", "");
      dev.lancecommit.e2e.CommitApi api = new dev.lancecommit.e2e.CommitApi(base);
      api.createNamespace("transport");
      List<String> id = List.of("transport", "t");
      api.declareTable(id);
      Transaction created = TransactionFactory.create(
          dev.lancecommit.client.lance.LanceProtos.schema(dev.lancecommit.testing.lance.LanceTables.ROW_SCHEMA),
          List.of());
      if (api.commit(id, created).status() != 200) {
        throw new IllegalStateException("could not create the table");
      }
      byte[] resubmission = created.toByteArray();
      String commitUrl = base + "/v1/table/" + dev.lancecommit.e2e.CommitApi.joined(id) + "/commit";
      Map<String, Map<String, List<double[]>>> results = new LinkedHashMap<>();
      for (String request : List.of("GET /healthz", "CommitTable resubmission")) {
        String url = request.startsWith("GET") ? base + "/healthz" : commitUrl;
        byte[] body = request.startsWith("GET") ? null : resubmission;
        Map<String, List<double[]>> byClient = new LinkedHashMap<>();
        for (int round = 0; round <= rounds; round++) { // round 0 warms every client up and is not reported
          for (Map.Entry<String, java.util.function.Supplier<Client>> client : clients().entrySet()) {
            try (Client c = client.getValue().get()) {
              double[] measured = measure(c, url, body, requests);
              if (round > 0) {
                byClient.computeIfAbsent(client.getKey(), k -> new ArrayList<>()).add(measured);
              }
            }
          }
        }
        results.put(request, byClient);
      }
      out.printf(Locale.ROOT, "HttpTransportBenchmark: %d requests per client per round, %d rounds, one thread%n%n",
          requests, rounds);
      out.println("| request | client | p50 ms (median of rounds) | mean ms (median of rounds) |");
      out.println("|---|---|---:|---:|");
      List<Row> rows = new ArrayList<>();
      results.forEach((request, byClient) -> byClient.forEach((client, measured) ->
          rows.add(new Row(request, client, median(measured, 0), median(measured, 1)))));
      rows.forEach(row -> out.printf(Locale.ROOT, "| %s | %s | %.3f | %.3f |%n", row.request(), row.client(),
          row.p50Millis(), row.meanMillis()));
      return rows;
    }
  }

  private static Map<String, java.util.function.Supplier<Client>> clients() {
    Map<String, java.util.function.Supplier<Client>> clients = new LinkedHashMap<>();
    clients.put("JDK java.net.http", HttpTransportBenchmark::jdk);
    clients.put("Apache HttpClient 5 classic", HttpTransportBenchmark::apache);
    clients.put("HttpURLConnection", () -> HttpTransportBenchmark::urlConnection);
    return clients;
  }

  /** p50 and mean in ms of {@code n} requests, each sent when the previous answer was read. */
  private static double[] measure(Client client, String url, byte[] body, int n) throws IOException {
    long[] nanos = new long[n];
    for (int i = 0; i < n; i++) {
      long start = System.nanoTime();
      int status = client.send(url, body);
      nanos[i] = System.nanoTime() - start;
      if (status != 200) {
        throw new IllegalStateException(url + " answered " + status);
      }
    }
    double mean = Arrays.stream(nanos).average().orElse(0) / 1e6;
    Arrays.sort(nanos);
    return new double[] {nanos[n / 2] / 1e6, mean};
  }

  private static double median(List<double[]> rounds, int index) {
    double[] values = rounds.stream().mapToDouble(r -> r[index]).sorted().toArray();
    return values[values.length / 2];
  }

  private static Client jdk() {
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    return (url, body) -> {
      HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url));
      if (body != null) {
        request.header("Content-Type", "application/x-protobuf").POST(HttpRequest.BodyPublishers.ofByteArray(body));
      }
      try {
        return http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray()).statusCode();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException(e);
      }
    };
  }

  private static Client apache() {
    CloseableHttpClient http = HttpClients.custom().disableAutomaticRetries().disableContentCompression().build();
    return new Client() {
      @Override
      public int send(String url, byte[] body) throws IOException {
        if (body == null) {
          return http.execute(new HttpGet(url), response -> {
            EntityUtils.consume(response.getEntity());
            return response.getCode();
          });
        }
        HttpPost post = new HttpPost(url);
        post.setEntity(new ByteArrayEntity(body, ContentType.create("application/x-protobuf")));
        return http.execute(post, response -> {
          EntityUtils.consume(response.getEntity());
          return response.getCode();
        });
      }

      @Override
      public void close() throws IOException {
        http.close();
      }
    };
  }

  private static int urlConnection(String url, byte[] body) throws IOException {
    HttpURLConnection connection = (HttpURLConnection) URI.create(url).toURL().openConnection();
    if (body != null) {
      connection.setRequestMethod("POST");
      connection.setDoOutput(true);
      connection.setRequestProperty("Content-Type", "application/x-protobuf");
      try (OutputStream out = connection.getOutputStream()) {
        out.write(body);
      }
    }
    int status = connection.getResponseCode();
    try (InputStream in = status < 400 ? connection.getInputStream() : connection.getErrorStream()) {
      if (in != null) {
        in.readAllBytes();
      }
    }
    return status;
  }
}
