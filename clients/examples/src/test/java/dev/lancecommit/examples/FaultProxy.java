package dev.lancecommit.examples;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Forwards HTTP requests to a coordinator, except that the next commits meet the faults queued with {@link #inject}:
 * the coordinator is real, only the network between it and the client misbehaves.
 */
final class FaultProxy implements AutoCloseable {
  /** What happens to one commit. */
  sealed interface Fault {}

  /** Forwarded (the commit lands) but the client is told 503/17 "outcome unknown". */
  record LostBehind503() implements Fault {}

  /** Forwarded, then the connection is closed without an answer. */
  record LostConnection() implements Fault {}

  /** Answered 503/17 without forwarding. */
  record Unavailable() implements Fault {}

  /** Answered 429/21 with {@code Retry-After: seconds} without forwarding. */
  record Throttled(int retryAfterSeconds) implements Fault {}

  private final String target;
  private final HttpServer server;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final Deque<Fault> faults = new ArrayDeque<>();
  private final List<byte[]> commitBodies = new ArrayList<>();
  private final AtomicInteger forwardedCommits = new AtomicInteger();

  FaultProxy(String target) throws IOException {
    this.target = target.endsWith("/") ? target.substring(0, target.length() - 1) : target;
    this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", this::handle);
    server.setExecutor(Executors.newCachedThreadPool());
    server.start();
  }

  String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  synchronized void inject(Fault... injected) {
    faults.addAll(List.of(injected));
  }

  synchronized void clear() {
    faults.clear();
  }

  int forwardedCommits() {
    return forwardedCommits.get();
  }

  synchronized List<byte[]> commitBodies() {
    return List.copyOf(commitBodies);
  }

  private synchronized Fault nextFault(byte[] body) {
    commitBodies.add(body);
    return faults.pollFirst();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      byte[] body = exchange.getRequestBody().readAllBytes();
      boolean commit = exchange.getRequestURI().getPath().endsWith("/commit");
      Fault fault = commit ? nextFault(body) : null;
      if (fault instanceof Throttled t) {
        exchange.getResponseHeaders().add("Retry-After", Integer.toString(t.retryAfterSeconds()));
        answer(exchange, 429, "{\"error\":\"throttled\",\"code\":21}");
        return;
      }
      if (fault instanceof Unavailable) {
        answer(exchange, 503, "{\"error\":\"Object store unavailable\",\"code\":17}");
        return;
      }
      HttpRequest.Builder forward = HttpRequest.newBuilder(URI.create(target + exchange.getRequestURI()))
          .POST(HttpRequest.BodyPublishers.ofByteArray(body));
      String contentType = exchange.getRequestHeaders().getFirst("Content-Type");
      if (contentType != null) {
        forward.header("Content-Type", contentType);
      }
      HttpResponse<byte[]> response;
      try {
        response = http.send(forward.build(), HttpResponse.BodyHandlers.ofByteArray());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException(e);
      }
      if (commit) {
        forwardedCommits.incrementAndGet();
      }
      if (fault instanceof LostConnection) {
        return; // closing the exchange without a status line drops the connection
      }
      if (fault instanceof LostBehind503) {
        answer(exchange, 503, "{\"error\":\"Commit outcome unknown\",\"code\":17}");
        return;
      }
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(response.statusCode(), response.body().length == 0 ? -1 : response.body().length);
      if (response.body().length > 0) {
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(response.body());
        }
      }
    }
  }

  private static void answer(HttpExchange exchange, int status, String json) throws IOException {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
  }
}
