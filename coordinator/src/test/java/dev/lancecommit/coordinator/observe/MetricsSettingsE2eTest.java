package dev.lancecommit.coordinator.observe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancecommit.coordinator.Coordinator;
import dev.lancecommit.coordinator.CoordinatorConfig;
import dev.lancecommit.testing.HandMadeTransactions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The metrics settings on a real coordinator (local warehouse, no Kafka): {@code metrics.port} moves {@code /metrics}
 * off the REST port, {@code metrics.per-table} adds the table label, {@code metrics.enabled=false} serves none; auth
 * failures are counted by reason; {@code /readyz} is ready without Kafka and says publication is disabled.
 */
class MetricsSettingsE2eTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http = HttpClient.newHttpClient();
  private final HandMadeTransactions transactions = new HandMadeTransactions();

  @TempDir
  Path dir;

  @Test
  void aSeparatePortPerTableLabelsAndAuthFailuresByReason() throws Exception {
    CoordinatorConfig config = CoordinatorConfig.builder()
        .port(0)
        .warehouse(dir.resolve("warehouse").toString())
        .kafka("none")
        .set(CoordinatorConfig.COMMIT_VERIFY_FILES, "false") // hand-made transactions name files never written
        .set(ObservabilityConfig.METRICS_PORT, "0")
        .set(ObservabilityConfig.METRICS_PER_TABLE, "true")
        .set("auth.enabled", "true")
        .set("auth.principals.admin.api-key", "admin-key")
        .set("auth.principals.reader.api-key", "reader-key")
        .set("auth.grants.admin", "$:admin")
        .set("auth.grants.reader", "obs:read")
        .build();
    try (Coordinator coordinator = Coordinator.start(config)) {
      String rest = coordinator.restUrl();
      String metrics = coordinator.metricsUrl().orElseThrow();
      assertThat(metrics).doesNotStartWith(rest).endsWith("/metrics");
      assertThat(send(rest + "/metrics", "GET", null, Map.of()).statusCode()).isEqualTo(401);

      assertThat(send(rest + "/v1/namespace/obs/create", "POST", "{}", Map.of("x-api-key", "admin-key"))
          .statusCode()).isEqualTo(200);
      assertThat(send(rest + "/v1/table/obs$t/declare", "POST", "{}", Map.of("x-api-key", "admin-key"))
          .statusCode()).isEqualTo(200);
      HttpResponse<String> created = commit(rest, transactions.create().toByteArray(), Map.of("x-api-key", "admin-key"));
      assertThat(created.statusCode()).as(created.body()).isEqualTo(200);

      assertThat(commit(rest, transactions.append(1).toByteArray(), Map.of()).statusCode()).isEqualTo(401);
      assertThat(commit(rest, transactions.append(1).toByteArray(), Map.of("x-api-key", "wrong")).statusCode())
          .isEqualTo(401);
      assertThat(commit(rest, transactions.append(1).toByteArray(), Map.of("Authorization", "Basic eDp5"))
          .statusCode()).isEqualTo(401);
      assertThat(commit(rest, transactions.append(1).toByteArray(), Map.of("x-api-key", "reader-key")).statusCode())
          .isEqualTo(403);

      HttpResponse<String> scraped = send(metrics, "GET", null, Map.of());
      assertThat(scraped.statusCode()).isEqualTo(200);
      PrometheusText m = PrometheusText.parse(scraped.body());
      assertThat(m.value("lance_commit_requests_total", "table", "obs$t", "operation", "Overwrite", "outcome",
          "committed")).isEqualTo(1);
      assertThat(m.value("lance_commit_requests_total")).isEqualTo(1); // refused requests never reach a lane
      assertThat(m.labelSets("lance_commit_duration_seconds_count"))
          .containsExactly(Map.of("table", "obs$t", "operation", "Overwrite"));
      // missing: the commit without credentials and the /metrics request on the REST port
      assertThat(m.value("lance_auth_failures_total", "reason", "missing")).isEqualTo(2);
      for (String reason : new String[] {"invalid", "malformed", "forbidden"}) {
        assertThat(m.value("lance_auth_failures_total", "reason", reason)).as(reason).isEqualTo(1);
      }
      assertThat(m.value("lance_credentials_vended_total")).isZero();
      assertThat(m.sampleNames()).doesNotContain("lance_events_published_total"); // kafka=none: no publication

      HttpResponse<String> ready = send(rest + "/readyz", "GET", null, Map.of());
      assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
      JsonNode body = JSON.readTree(ready.body());
      assertThat(body.get("status").asText()).isEqualTo("ready");
      assertThat(body.at("/checks/publication/status").asText()).isEqualTo("disabled");
      assertThat(body.at("/checks/publication/required").asBoolean()).isFalse();
      assertThat(body.at("/checks/store/status").asText()).isEqualTo("up");
      assertThat(send(rest + "/healthz", "GET", null, Map.of()).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void metricsDisabledServesNoMetrics() throws Exception {
    CoordinatorConfig config = CoordinatorConfig.builder()
        .port(0)
        .warehouse(dir.resolve("warehouse").toString())
        .kafka("none")
        .set(ObservabilityConfig.METRICS_ENABLED, "false")
        .build();
    try (Coordinator coordinator = Coordinator.start(config)) {
      assertThat(coordinator.metricsUrl()).isEmpty();
      assertThat(send(coordinator.restUrl() + "/metrics", "GET", null, Map.of()).statusCode()).isEqualTo(404);
      assertThat(send(coordinator.restUrl() + "/readyz", "GET", null, Map.of()).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void badSettingsAreRefusedWithTheKeyNamed() {
    assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> CoordinatorConfig.builder()
        .set(ObservabilityConfig.LOG_FORMAT, "xml").build().observabilityConfig()))
        .hasMessageContaining("log.format");
    assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> CoordinatorConfig.builder()
        .set(ObservabilityConfig.METRICS_PORT, "70000").build().observabilityConfig()))
        .hasMessageContaining("metrics.port");
  }

  private HttpResponse<String> commit(String rest, byte[] body, Map<String, String> headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(rest + "/v1/table/obs$t/commit"))
        .header("Content-Type", "application/x-protobuf")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    headers.forEach(request::header);
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> send(String url, String method, String json, Map<String, String> headers)
      throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url))
        .method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
    if (json != null) {
      request.header("Content-Type", "application/json");
    }
    headers.forEach(request::header);
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
