package dev.lancecommit.e2e.managed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An HTTP proxy in front of the coordinator's namespace API for a stock client to talk to: it forwards every request
 * as it is, records the versions the client asks CreateTableVersion and DescribeTableVersion for, and runs a race
 * once, just before forwarding the first CreateTableVersion: another writer committing between the client's reload
 * and its request. The client must open the table through it too: a Lance Dataset commits through the namespace
 * client it was opened with.
 */
final class RacingNamespaceProxy implements AutoCloseable {
  private static final Set<String> NOT_FORWARDED = Set.of("host", "content-length", "connection", "transfer-encoding",
      "upgrade", "expect");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String upstream;
  private final HttpServer server;
  private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private final AtomicReference<Runnable> race;
  private final List<Long> created = new CopyOnWriteArrayList<>();
  private final List<Long> described = new CopyOnWriteArrayList<>();

  RacingNamespaceProxy(String upstream, Runnable beforeFirstCreate) {
    this.upstream = upstream;
    this.race = new AtomicReference<>(beforeFirstCreate);
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server.setExecutor(Executors.newCachedThreadPool());
    server.createContext("/", this::forward);
    server.start();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** The versions the client asked CreateTableVersion for, in order. */
  List<Long> created() {
    return List.copyOf(created);
  }

  /** The versions the client asked DescribeTableVersion for, in order. */
  List<Long> described() {
    return List.copyOf(described);
  }

  private void forward(HttpExchange exchange) throws IOException {
    try (exchange) {
      byte[] body = exchange.getRequestBody().readAllBytes();
      String path = exchange.getRequestURI().getRawPath();
      if (path.endsWith("/version/create")) {
        created.add(version(body));
        Runnable other = race.getAndSet(null);
        if (other != null) {
          other.run();
        }
      } else if (path.endsWith("/version/describe")) {
        described.add(version(body));
      }
      String query = exchange.getRequestURI().getRawQuery();
      HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(upstream + path + (query == null ? "" : "?"
          + query))).timeout(Duration.ofSeconds(60))
          .method(exchange.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body));
      exchange.getRequestHeaders().forEach((name, values) -> {
        if (!NOT_FORWARDED.contains(name.toLowerCase())) {
          values.forEach(v -> request.header(name, v));
        }
      });
      HttpResponse<byte[]> response = client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
      response.headers().map().forEach((name, values) -> {
        if (!NOT_FORWARDED.contains(name.toLowerCase()) && !name.startsWith(":")) {
          exchange.getResponseHeaders().put(name, values);
        }
      });
      byte[] answer = response.body();
      exchange.sendResponseHeaders(response.statusCode(), answer.length == 0 ? -1 : answer.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(answer);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  private static long version(byte[] body) throws IOException {
    JsonNode json = JSON.readTree(body);
    return json.path("version").asLong(-1);
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
