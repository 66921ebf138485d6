package dev.lancecommit.coordinator.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.coordinator.Coordinator;
import dev.lancecommit.coordinator.CoordinatorConfig;
import dev.lancecommit.coordinator.publication.PublicationConfig;
import dev.lancecommit.e2e.CommitApi;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.CommitEventReader;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.lance.LanceTables;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slf4j.LoggerFactory;

/**
 * A real coordinator (local warehouse, embedded Kafka broker, Lance writing the data) traced into an in-memory span
 * exporter: after a known sequence of commits, a conflict, a resubmission, garbage and a version written around the
 * coordinator, {@code /metrics} counts exactly those, the spans nest as the commit path runs, the event carries the
 * request's trace and the commit log names it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ObservabilityE2eTest {
  static final Duration WAIT = Duration.ofSeconds(60);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String CALLER_SPAN = "00f067aa0ba902b7";

  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final ListAppender<ILoggingEvent> commitLog = new ListAppender<>();
  private OpenTelemetrySdk otel;
  private Coordinator coordinator;
  private CommitApi api;
  private Path dir;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  void start() throws IOException {
    dir = Files.createTempDirectory("lcc-observe-");
    otel = OpenTelemetrySdk.builder()
        .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
        .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
        .build();
    commitLog.start();
    ((Logger) LoggerFactory.getLogger(CommitLog.LOGGER)).addAppender(commitLog);
    coordinator = Coordinator.start(CoordinatorConfig.builder()
        .port(0)
        .warehouse(dir.resolve("warehouse").toString())
        .kafka("embedded")
        .set(CoordinatorConfig.KAFKA_EMBEDDED_DIR, dir.resolve("kafka").toString())
        .set(PublicationConfig.RECONCILE_INTERVAL_MS, "300")
        .build(), otel);
    api = new CommitApi(coordinator.restUrl());
  }

  @AfterAll
  void stop() {
    ((Logger) LoggerFactory.getLogger(CommitLog.LOGGER)).detachAppender(commitLog);
    if (coordinator != null) {
      coordinator.close();
    }
    otel.close();
  }

  @Test
  @Order(1)
  void knownCommitsAreCountedTracedPublishedWithTheirTraceAndLogged() throws Exception {
    List<String> id = List.of("obs", "orders");
    api.createNamespace("obs");
    String location = api.declareTable(id);
    CommitApi.Response conflict;
    try (LanceTables lance = LanceTables.at(location, Map.of())) {
      var schema = LanceProtos.schema(LanceTables.ROW_SCHEMA);
      assertThat(api.commit(id, TransactionFactory.create(schema, LanceProtos.fragments(lance.writeRows(0, 10))))
          .version()).isEqualTo(1);
      Transaction traced = TransactionFactory.append(1, LanceProtos.fragments(lance.writeRows(10, 5)));
      HttpResponse<String> tracedAnswer = commitWithTraceParent(id, traced, "00-" + TRACE_ID + "-" + CALLER_SPAN + "-01");
      assertThat(tracedAnswer.statusCode()).as(tracedAnswer.body()).isEqualTo(200);
      Transaction third = TransactionFactory.append(2, LanceProtos.fragments(lance.writeRows(15, 5)));
      assertThat(api.commit(id, third).version()).isEqualTo(3);
      assertThat(api.commit(id, TransactionFactory.overwrite(3, schema, LanceProtos.fragments(lance.writeRows(20, 4))))
          .version()).isEqualTo(4);
      conflict = api.commit(id, TransactionFactory.append(3, LanceProtos.fragments(lance.writeRows(30, 2))));
      assertThat(conflict.status()).isEqualTo(409);
      assertThat(conflict.code()).isEqualTo(19);
      assertThat(api.commit(id, third).version()).isEqualTo(3); // already committed
      assertThat(api.commitBytes(id, new byte[] {1, 2, 3}, CommitApi.PROTOBUF).status()).isEqualTo(400);
      assertThat(lance.appendWithLance(100, 3)).isEqualTo(5); // around the coordinator: ungoverned
    }

    // Publication settles: v1..v4 from their commits, v5 from the reconciler; the resubmission is not sent again.
    await().atMost(WAIT).until(() -> {
      PrometheusText m = scrape();
      return m.value("lance_events_published_total") == 5
          && m.value("lance_reconciler_versions_total", "governed", "false") == 1
          && m.value("lance_events_outbox_backlog") == 0;
    });
    PrometheusText m = scrape();
    assertThat(m.value("lance_commit_requests_total", "operation", "Overwrite", "outcome", "committed")).isEqualTo(2);
    assertThat(m.value("lance_commit_requests_total", "operation", "Append", "outcome", "committed")).isEqualTo(2);
    assertThat(m.value("lance_commit_requests_total", "operation", "Append", "outcome", "conflict_incompatible"))
        .isEqualTo(1);
    assertThat(m.value("lance_commit_requests_total", "operation", "Append", "outcome", "already_committed"))
        .isEqualTo(1);
    assertThat(m.value("lance_commit_requests_total", "operation", "unknown", "outcome", "invalid")).isEqualTo(1);
    assertThat(m.value("lance_commit_requests_total")).isEqualTo(7);
    assertThat(m.labelSets("lance_commit_requests_total")).allSatisfy(labels ->
        assertThat(labels.keySet()).containsExactlyInAnyOrder("operation", "outcome"));

    Matcher rule = Pattern.compile("rule (\\S+);").matcher(conflict.body().get("detail").asText());
    assertThat(rule.find()).as(conflict.raw()).isTrue();
    assertThat(m.value("lance_commit_conflicts_total", "rule", rule.group(1))).isEqualTo(1);
    assertThat(m.value("lance_commit_conflicts_total")).isEqualTo(1);

    assertThat(m.value("lance_commit_duration_seconds_count", "operation", "Append")).isEqualTo(4);
    assertThat(m.value("lance_commit_duration_seconds_count", "operation", "Overwrite")).isEqualTo(2);
    assertThat(m.value("lance_commit_duration_seconds_sum")).isPositive();
    assertThat(m.value("lance_commit_duration_seconds_bucket", "operation", "Append", "le", "+Inf")).isEqualTo(4);
    assertThat(m.value("lance_commit_phase_seconds_count", "phase", "queue_wait")).isEqualTo(7);
    assertThat(m.value("lance_commit_phase_seconds_count", "phase", "checks")).isEqualTo(7);
    assertThat(m.value("lance_commit_phase_seconds_count", "phase", "build")).isEqualTo(4);
    assertThat(m.value("lance_commit_phase_seconds_count", "phase", "file_checks")).isEqualTo(4);
    assertThat(m.value("lance_commit_phase_seconds_count", "phase", "storage_write")).isEqualTo(4);
    assertThat(m.value("lance_commit_phase_seconds_count", "phase", "event_handoff")).isEqualTo(5);
    assertThat(m.value("lance_commit_group_size_count")).isEqualTo(4);
    assertThat(m.value("lance_commit_group_size_sum")).isEqualTo(4);
    assertThat(m.value("lance_lanes_active")).isEqualTo(1);
    assertThat(m.value("lance_lane_queue_depth")).isZero();
    assertThat(m.value("lance_events_publish_lag_seconds")).isZero();
    assertThat(m.value("lance_reconciler_versions_total", "governed", "true")).isZero();
    // four manifests (and the catalog's own creates) went through put-if-absent, each answered
    assertThat(m.value("lance_store_request_duration_seconds_count", "store", "local", "operation", "put_if_absent",
        "outcome", "ok")).isGreaterThanOrEqualTo(4);
    assertThat(m.value("lance_store_request_duration_seconds_count", "store", "local", "outcome", "error")).isZero();
    assertThat(m.value("vertx_http_server_requests_total", "method", "POST", "route", "/v1/table/:id/commit"))
        .isEqualTo(7);
    assertThat(m.sampleNames()).contains("jvm_memory_used_bytes", "jvm_threads_live_threads", "process_cpu_usage",
        "process_uptime_seconds", "jvm_classes_loaded_classes");

    assertTraced();
    assertEventsCarryTheTrace(id);
    assertCommitLog();

    HttpResponse<String> ready = get("/readyz");
    assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
    JsonNode checks = JSON.readTree(ready.body()).get("checks");
    assertThat(checks.get("store").get("status").asText()).isEqualTo("up");
    assertThat(checks.get("commits").get("status").asText()).isEqualTo("up");
    assertThat(checks.get("publication").get("status").asText()).isEqualTo("up");
  }

  /** After the commits above (a conflict and an ungoverned version among them) every family is there. */
  @Test
  @Order(2)
  void everyMetricTheDashboardAndTheAlertsQueryIsExported() throws Exception {
    Path observability = deployDir().resolve("observability");
    List<String> expressions = new ArrayList<>();
    JSON.readTree(observability.resolve("grafana-dashboard.json").toFile()).get("panels")
        .forEach(panel -> panel.get("targets").forEach(target -> expressions.add(target.get("expr").asText())));
    JsonNode rules = new ObjectMapper(new YAMLFactory()).readTree(observability.resolve("alerts.yaml").toFile());
    rules.get("groups").forEach(group -> group.get("rules").forEach(rule -> expressions.add(rule.get("expr").asText())));
    assertThat(expressions).hasSizeGreaterThan(10);

    Set<String> queried = new TreeSet<>();
    expressions.forEach(expr -> queried.addAll(PromQlNames.of(expr)));
    assertThat(queried).contains("lance_commit_requests_total", "lance_commit_conflicts_total",
        "lance_lane_queue_depth", "lance_events_publish_lag_seconds", "lance_store_request_duration_seconds_count",
        "lance_reconciler_versions_total");
    PrometheusText exported = scrape();
    assertThat(exported.sampleNames()).containsAll(queried);
  }

  private static Path deployDir() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isDirectory(dir.resolve("deploy/observability"))) {
      dir = dir.getParent();
    }
    assertThat(dir).as("the repository's deploy/ directory").isNotNull();
    return dir.resolve("deploy");
  }

  private void assertTraced() {
    List<SpanData> trace = spans.getFinishedSpanItems().stream()
        .filter(s -> s.getTraceId().equals(TRACE_ID)).toList();
    SpanData server = only(trace, "POST /v1/table/:id/commit");
    assertThat(server.getKind()).isEqualTo(SpanKind.SERVER);
    assertThat(server.getParentSpanId()).isEqualTo(CALLER_SPAN);
    SpanData commit = only(trace, "lance.commit");
    assertThat(commit.getParentSpanId()).isEqualTo(server.getSpanId());
    assertThat(commit.getAttributes().asMap().toString()).contains("lance.outcome=committed", "lance.version=2");
    for (String phase : List.of("queue_wait", "checks", "build", "file_checks", "storage_write", "event_handoff")) {
      assertThat(only(trace, "lance.commit." + phase).getParentSpanId()).as(phase).isEqualTo(commit.getSpanId());
    }
    SpanData write = only(trace, "lance.commit.storage_write");
    assertThat(trace).filteredOn(s -> s.getName().equals("lance.store put_if_absent"))
        .isNotEmpty()
        .allSatisfy(s -> {
          assertThat(s.getParentSpanId()).isEqualTo(write.getSpanId());
          assertThat(s.getKind()).isEqualTo(SpanKind.CLIENT);
        });
    await().atMost(WAIT).untilAsserted(() -> assertThat(spans.getFinishedSpanItems())
        .anySatisfy(s -> {
          assertThat(s.getName()).isEqualTo("publish " + coordinator.topic());
          assertThat(s.getKind()).isEqualTo(SpanKind.PRODUCER);
          assertThat(s.getTraceId()).isEqualTo(TRACE_ID);
          assertThat(s.getParentSpanId()).isEqualTo(commit.getSpanId());
        }));
  }

  private void assertEventsCarryTheTrace(List<String> id) {
    SpanData commit = only(spans.getFinishedSpanItems().stream()
        .filter(s -> s.getTraceId().equals(TRACE_ID)).toList(), "lance.commit");
    try (CommitEventReader reader = new CommitEventReader(coordinator.kafkaBootstrap(), coordinator.topic())) {
      List<CommitEvent> events = reader.readTable(id, 5, WAIT);
      assertThat(events).extracting(CommitEvent::version).containsExactly(1L, 2L, 3L, 4L, 5L);
      CommitEvent traced = events.get(1);
      assertThat(traced.traceId()).isEqualTo(TRACE_ID);
      assertThat(traced.trace().spanId()).isEqualTo(commit.getSpanId());
      // a request without traceparent starts a trace of its own: its event carries that one
      CommitEvent third = events.get(2);
      SpanData thirdCommit = spans.getFinishedSpanItems().stream()
          .filter(s -> s.getName().equals("lance.commit") && s.getSpanId().equals(third.trace().spanId()))
          .findFirst().orElseThrow();
      assertThat(thirdCommit.getTraceId()).isEqualTo(third.traceId()).isNotEqualTo(TRACE_ID);
      assertThat(events.get(4).governed()).isFalse();
      assertThat(events.get(4).trace()).isNull(); // rebuilt from storage: no request, no trace
    }
  }

  private void assertCommitLog() {
    List<ILoggingEvent> lines = List.copyOf(commitLog.list);
    assertThat(lines).hasSize(7);
    ILoggingEvent traced = lines.stream().filter(e -> e.getFormattedMessage().contains("trace_id=" + TRACE_ID))
        .findFirst().orElseThrow();
    assertThat(traced.getFormattedMessage())
        .startsWith("commit table=obs$orders version=2 operation=Append outcome=committed duration_ms=")
        .contains(" group_size=1 ");
    assertThat(traced.getKeyValuePairs()).extracting(kv -> kv.key + "=" + kv.value)
        .contains("table=obs$orders", "version=2", "operation=Append", "outcome=committed", "group_size=1",
            "trace_id=" + TRACE_ID);
    assertThat(lines).filteredOn(e -> e.getFormattedMessage().contains("outcome=conflict_incompatible")).hasSize(1);
  }

  private static SpanData only(List<SpanData> spans, String name) {
    List<SpanData> named = spans.stream().filter(s -> s.getName().equals(name)).toList();
    assertThat(named).as("spans named %s among %s", name, spans.stream().map(SpanData::getName).toList())
        .hasSize(1);
    return named.get(0);
  }

  private HttpResponse<String> commitWithTraceParent(List<String> id, Transaction txn, String traceParent)
      throws Exception {
    HttpRequest request = HttpRequest.newBuilder(
            URI.create(coordinator.restUrl() + "/v1/table/" + CommitApi.joined(id) + "/commit"))
        .header("Content-Type", CommitApi.PROTOBUF)
        .header("traceparent", traceParent)
        .header("tracestate", "vendor=abc")
        .POST(HttpRequest.BodyPublishers.ofByteArray(txn.toByteArray()))
        .build();
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(coordinator.restUrl() + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  PrometheusText scrape() throws Exception {
    HttpResponse<String> response = get("/metrics");
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("content-type").orElse("")).startsWith("text/plain");
    return PrometheusText.parse(response.body());
  }
}
