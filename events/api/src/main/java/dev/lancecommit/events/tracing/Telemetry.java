package dev.lancecommit.events.tracing;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The OpenTelemetry of a process (the coordinator, the audit and trigger consumers), from the standard {@code OTEL_*}
 * environment variables or {@code otel.*} system properties.
 *
 * <p>When they name an OTLP endpoint ({@code OTEL_EXPORTER_OTLP_ENDPOINT} or {@code
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT}) or a traces exporter ({@code OTEL_TRACES_EXPORTER}, e.g. {@code console}), the
 * SDK is configured by OpenTelemetry's autoconfigure module: every standard setting applies (sampler, resource,
 * headers, batch sizes). Defaults that differ from the SDK's own: protocol {@code http/protobuf} (the exporter uses
 * the JDK's HTTP client, which does not speak gRPC), metrics and logs exporters {@code none} (metrics are served by
 * {@code GET /metrics}), and the service name given by the process. {@code OTEL_SDK_DISABLED=true} turns it off.
 *
 * <p>Otherwise nothing is recorded and nothing exported: spans are no-ops, but the W3C trace context a request or an
 * event carries is still passed on, so traces started upstream stay connected through the coordinator.
 */
public final class Telemetry implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Telemetry.class);
  private static final List<String> ENDPOINT_KEYS =
      List.of("otel.exporter.otlp.endpoint", "otel.exporter.otlp.traces.endpoint");

  private final OpenTelemetry openTelemetry;
  private final OpenTelemetrySdk sdk;

  private Telemetry(OpenTelemetry openTelemetry, OpenTelemetrySdk sdk) {
    this.openTelemetry = openTelemetry;
    this.sdk = sdk;
  }

  /** The process's telemetry as the environment and system properties ask for it. */
  public static Telemetry fromEnvironment(String serviceName) {
    return from(Telemetry::environmentSetting, serviceName);
  }

  /** As {@link #fromEnvironment}, deciding from {@code settings} whether to start the SDK (which reads its own). */
  static Telemetry from(Function<String, String> settings, String serviceName) {
    Objects.requireNonNull(serviceName, "serviceName");
    if (!exportRequested(settings)) {
      return propagatingOnly();
    }
    OpenTelemetrySdk sdk = AutoConfiguredOpenTelemetrySdk.builder()
        .addPropertiesSupplier(() -> Map.of(
            "otel.service.name", serviceName,
            "otel.exporter.otlp.protocol", "http/protobuf",
            "otel.metrics.exporter", "none",
            "otel.logs.exporter", "none"))
        .disableShutdownHook()
        .build()
        .getOpenTelemetrySdk();
    LOG.info("Tracing: exporting spans ({})", describe(settings));
    return new Telemetry(sdk, sdk);
  }

  /** Passes W3C trace context on, records nothing. */
  public static Telemetry propagatingOnly() {
    return new Telemetry(
        OpenTelemetry.propagating(ContextPropagators.create(W3CTraceContextPropagator.getInstance())), null);
  }

  /** An OpenTelemetry built elsewhere (tests hand in an SDK with an in-memory exporter); not closed by this. */
  public static Telemetry of(OpenTelemetry openTelemetry) {
    return new Telemetry(Objects.requireNonNull(openTelemetry, "openTelemetry"), null);
  }

  static boolean exportRequested(Function<String, String> settings) {
    if ("true".equalsIgnoreCase(trim(settings.apply("otel.sdk.disabled")))) {
      return false;
    }
    String exporter = trim(settings.apply("otel.traces.exporter"));
    if (exporter != null) {
      return !exporter.equalsIgnoreCase("none");
    }
    return ENDPOINT_KEYS.stream().anyMatch(key -> trim(settings.apply(key)) != null);
  }

  private static String describe(Function<String, String> settings) {
    String exporter = trim(settings.apply("otel.traces.exporter"));
    String endpoint = ENDPOINT_KEYS.stream().map(settings).map(Telemetry::trim).filter(Objects::nonNull)
        .reduce((a, b) -> b).orElse(null);
    return "exporter " + (exporter == null ? "otlp" : exporter) + (endpoint == null ? "" : ", endpoint " + endpoint);
  }

  /** {@code otel.foo.bar} from the system property, else from the environment variable {@code OTEL_FOO_BAR}. */
  static String environmentSetting(String key) {
    String value = System.getProperty(key);
    if (value == null) {
      value = System.getenv(key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_'));
    }
    return value;
  }

  private static String trim(String value) {
    return value == null || value.isBlank() ? null : value.trim();
  }

  public OpenTelemetry openTelemetry() {
    return openTelemetry;
  }

  /** Whether spans are recorded and exported (an SDK is running). */
  public boolean exporting() {
    return sdk != null;
  }

  /** Flushes and stops the SDK, if this started one. */
  @Override
  public void close() {
    if (sdk != null) {
      sdk.shutdown().join(10, TimeUnit.SECONDS);
    }
  }
}
