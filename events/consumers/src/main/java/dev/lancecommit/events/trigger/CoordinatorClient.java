package dev.lancecommit.events.trigger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancecommit.events.tracing.EventTracing;
import dev.lancecommit.format.pb.Transaction;
import io.opentelemetry.context.Context;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * CommitTable over HTTP, as any writer calls it: {@code POST {coordinator}/v1/table/{id}/commit} with {@code
 * Content-Type: application/x-protobuf} and the raw Transaction bytes. An optional bearer token is sent as {@code
 * Authorization: Bearer}. The W3C trace context of the current span ({@code traceparent}, {@code tracestate}) goes
 * with every request, so the commit continues the trace of the event that asked for it. Thread-safe.
 */
public final class CoordinatorClient {
  public static final int CODE_RETRYABLE_CONFLICT = 14;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String baseUrl;
  private final Optional<String> token;
  private final Duration timeout;
  private final HttpClient http;

  public CoordinatorClient(String baseUrl, Optional<String> token, Duration timeout) {
    Objects.requireNonNull(baseUrl, "baseUrl");
    URI uri = URI.create(baseUrl);
    if (uri.getScheme() == null || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))) {
      throw new IllegalArgumentException("coordinator URL must be http(s)://host:port, got '" + baseUrl + "'");
    }
    this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    this.token = token.filter(t -> !t.isBlank());
    this.timeout = timeout;
    this.http = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(10))
        .build();
  }

  public CoordinatorClient(String baseUrl) {
    this(baseUrl, Optional.empty(), Duration.ofSeconds(60));
  }

  public String baseUrl() {
    return baseUrl;
  }

  /** Commits {@code txn} to {@code tableId}; never throws for an HTTP or I/O failure (see {@link CommitOutcome}). */
  public CommitOutcome commit(List<String> tableId, Transaction txn) {
    String id = URLEncoder.encode(String.join("$", tableId), StandardCharsets.UTF_8).replace("%24", "$");
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + "/v1/table/" + id + "/commit"))
        .timeout(timeout)
        .header("Content-Type", "application/x-protobuf")
        .POST(HttpRequest.BodyPublishers.ofByteArray(txn.toByteArray()));
    token.ifPresent(t -> request.header("Authorization", "Bearer " + t));
    EventTracing.headers(Context.current()).forEach(request::header);
    HttpResponse<String> response;
    try {
      response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      return new CommitOutcome.Unavailable("no answer from " + baseUrl + ": " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new CommitOutcome.Unavailable("interrupted while committing");
    }
    JsonNode body = parse(response.body());
    int status = response.statusCode();
    int code = body != null && body.has("code") ? body.get("code").asInt(-1) : -1;
    String detail = body != null && body.hasNonNull("detail") ? body.get("detail").asText()
        : body != null && body.hasNonNull("error") ? body.get("error").asText() : response.body();
    if (status == 200 && body != null && body.has("version")) {
      return new CommitOutcome.Committed(body.get("version").asLong());
    }
    if (status == 409 && code == CODE_RETRYABLE_CONFLICT) {
      return new CommitOutcome.RetryableConflict(detail);
    }
    if (status == 429 || status >= 500 || status == 200) {
      return new CommitOutcome.Unavailable("HTTP " + status + " (code " + code + "): " + detail);
    }
    return new CommitOutcome.Rejected(status, code, detail);
  }

  private static JsonNode parse(String body) {
    if (body == null || body.isBlank()) {
      return null;
    }
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      return null;
    }
  }
}
