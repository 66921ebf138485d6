package dev.lancecommit.events.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.KafkaCommitEventPublisher;
import dev.lancecommit.events.KafkaTopics;
import dev.lancecommit.events.TraceContext;
import dev.lancecommit.events.audit.AuditHandler;
import dev.lancecommit.events.audit.AuditLog;
import dev.lancecommit.events.consumer.CommitEventConsumer;
import dev.lancecommit.events.consumer.ConsumerOptions;
import dev.lancecommit.events.consumer.InMemoryCheckpointStore;
import dev.lancecommit.events.consumer.TestEvents;
import dev.lancecommit.events.trigger.CommitOutcome;
import dev.lancecommit.events.trigger.CoordinatorClient;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.kafka.KafkaBrokerFixture;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A commit event's trace continues through the consumer library into its handler: the audit log records it and the
 * trigger's commit request carries it to the coordinator. Real broker, real HTTP.
 */
class TraceContinuationTest {
  private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String COMMIT_SPAN = "00f067aa0ba902b7";

  @RegisterExtension static final KafkaBrokerFixture broker = new KafkaBrokerFixture();

  @TempDir
  Path dir;

  @Test
  void theConsumerSpanContinuesTheEventsTraceIntoTheAuditLogAndTheTriggersCommit() throws Exception {
    InMemorySpanExporter spans = InMemorySpanExporter.create();
    OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
        .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
        .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
        .build();
    List<String> received = new CopyOnWriteArrayList<>();
    HttpServer coordinator = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    coordinator.createContext("/", exchange -> {
      received.add(exchange.getRequestHeaders().getFirst("traceparent"));
      byte[] body = "{\"version\": 8}".getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    coordinator.start();
    CommitEvent event = TestEvents.append(List.of("shop", "orders"), "uuid-orders", 1)
        .trace(TraceContext.of("00-" + TRACE_ID + "-" + COMMIT_SPAN + "-01", "k=v"))
        .build();
    List<String> seenInHandler = new CopyOnWriteArrayList<>();
    List<CommitOutcome> outcomes = new CopyOnWriteArrayList<>();
    CoordinatorClient client = new CoordinatorClient("http://127.0.0.1:" + coordinator.getAddress().getPort());
    try (AuditLog log = AuditLog.open(dir.resolve("audit.db"))) {
      String topic = "trace-" + UUID.randomUUID();
      KafkaTopics.ensureTopic(broker.bootstrapServers(), topic);
      try (KafkaCommitEventPublisher publisher =
          KafkaCommitEventPublisher.builder(broker.bootstrapServers()).topic(topic).build()) {
        publisher.publish(event).get(30, TimeUnit.SECONDS);
      }
      AuditHandler audit = new AuditHandler(log);
      ConsumerOptions options = ConsumerOptions.builder(broker.bootstrapServers(), "g-trace").topic(topic)
          .pollTimeout(Duration.ofMillis(100)).build();
      try (CommitEventConsumer consumer = new CommitEventConsumer(options, new InMemoryCheckpointStore(), e -> {
        seenInHandler.add(Span.current().getSpanContext().getTraceId());
        audit.onCommit(e);
        outcomes.add(client.commit(e.tableId(), Transaction.newBuilder().setUuid("u").setReadVersion(1).build()));
      }, otel).start()) {
        await().atMost(Duration.ofSeconds(60)).until(() -> outcomes.size() == 1);
      }
      assertThat(log.find("uuid-orders", 1).orElseThrow().event().trace()).isEqualTo(event.trace());
    } finally {
      coordinator.stop(0);
    }

    SpanData process = spans.getFinishedSpanItems().stream().filter(s -> s.getKind() == SpanKind.CONSUMER)
        .findFirst().orElseThrow();
    assertThat(process.getName()).startsWith("process trace-");
    assertThat(process.getTraceId()).isEqualTo(TRACE_ID);
    assertThat(process.getParentSpanId()).isEqualTo(COMMIT_SPAN);
    assertThat(process.getAttributes().asMap().toString()).contains("lance.table=shop$orders", "lance.version=1");
    assertThat(seenInHandler).containsExactly(TRACE_ID);
    assertThat(outcomes.get(0)).isInstanceOf(CommitOutcome.Committed.class);
    // the trigger's commit continues the trace: its parent is the consumer span
    assertThat(received).containsExactly("00-" + TRACE_ID + "-" + process.getSpanId() + "-01");
    otel.close();
  }

  @Test
  void exportStartsOnlyWhenTheStandardSettingsNameAnEndpointOrAnExporter() {
    assertThat(Telemetry.exportRequested(Map.<String, String>of()::get)).isFalse();
    assertThat(Telemetry.exportRequested(Map.of("otel.exporter.otlp.endpoint", "http://collector:4318")::get))
        .isTrue();
    assertThat(Telemetry.exportRequested(Map.of("otel.exporter.otlp.traces.endpoint", "http://c:4318/v1/traces")::get))
        .isTrue();
    assertThat(Telemetry.exportRequested(Map.of("otel.traces.exporter", "console")::get)).isTrue();
    assertThat(Telemetry.exportRequested(Map.of("otel.exporter.otlp.endpoint", "http://c:4318",
        "otel.traces.exporter", "none")::get)).isFalse();
    assertThat(Telemetry.exportRequested(Map.of("otel.exporter.otlp.endpoint", "http://c:4318",
        "otel.sdk.disabled", "true")::get)).isFalse();
    try (Telemetry off = Telemetry.propagatingOnly()) {
      assertThat(off.exporting()).isFalse();
      // nothing recorded, but a caller's trace context is passed on
      var context = EventTracing.contextOf(TraceContext.of("00-" + TRACE_ID + "-" + COMMIT_SPAN + "-01", null));
      Span span = off.openTelemetry().getTracer("t").spanBuilder("s").setParent(context).startSpan();
      assertThat(span.isRecording()).isFalse();
      assertThat(EventTracing.traceOf(context.with(span)).traceId()).isEqualTo(TRACE_ID);
    }
  }
}
