package dev.lancecommit.coordinator.observe;

import dev.lancecommit.coordinator.commit.CommitObserver;
import dev.lancecommit.coordinator.commit.LaneCommitService;
import dev.lancecommit.coordinator.credentials.CredentialVendor;
import dev.lancecommit.coordinator.publication.Publication;
import dev.lancecommit.coordinator.storage.ObjectStore;
import dev.lancecommit.events.CommitEventPublisher;
import dev.lancecommit.events.tracing.Telemetry;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.vertx.core.VertxOptions;
import io.vertx.micrometer.Label;
import io.vertx.micrometer.MetricsDomain;
import io.vertx.micrometer.MicrometerMetricsOptions;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * The coordinator's metrics registry and tracing, and the pieces that feed them. Every family the service exports is
 * registered through this class or the decorators it hands out; the names (Prometheus form) are listed in
 * ARCHITECTURE.md.
 */
public final class Observability implements AutoCloseable {
  public static final String SERVICE_NAME = "lance-commit-coordinator";
  static final String OUTBOX_BACKLOG = "lance.events.outbox.backlog";
  static final String PUBLISH_LAG = "lance.events.publish.lag";
  static final String PUBLISHED = "lance.events.published";
  static final String RECONCILED = "lance.reconciler.versions";
  static final String QUEUE_DEPTH = "lance.lane.queue.depth";
  static final String LANES_ACTIVE = "lance.lanes.active";
  /** Counted by the REST server's authentication ({@code reason}: missing, malformed, invalid, forbidden). */
  public static final String AUTH_FAILURES = "lance.auth.failures";

  private final ObservabilityConfig config;
  private final PrometheusMeterRegistry prometheus;
  private final MeterRegistry registry;
  private final Telemetry telemetry;
  private final Tracer tracer;
  private JvmGcMetrics gcMetrics;
  private final String vertxRegistryName = "lcc-" + UUID.randomUUID();

  private Observability(ObservabilityConfig config, Telemetry telemetry) {
    this.config = config;
    this.telemetry = telemetry;
    this.tracer = telemetry.openTelemetry().getTracer("dev.lancecommit.coordinator");
    if (config.metricsEnabled()) {
      prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      registry = prometheus;
    } else {
      prometheus = null;
      registry = new CompositeMeterRegistry(); // no registry inside: every meter is a no-op
    }
  }

  /**
   * Registers the JVM and process meters and the zero series of rare events. Called once the Vert.x instance built
   * from {@link #vertxOptions} exists: Vert.x configures a meter filter on the registry when it starts, and a filter
   * configured after a meter was registered does not apply to that meter (Micrometer warns about it).
   */
  public synchronized void registerProcessMeters() {
    if (prometheus == null || gcMetrics != null) {
      return;
    }
    new ClassLoaderMetrics().bindTo(registry);
    new JvmMemoryMetrics().bindTo(registry);
    gcMetrics = new JvmGcMetrics();
    gcMetrics.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
    registerZeroSeries();
  }

  /**
   * The series of rare events start at 0, so dashboards and alerts see the families before the first one happens
   * (and {@code increase()} sees the first one).
   */
  private void registerZeroSeries() {
    for (String reason : List.of("missing", "malformed", "invalid", "forbidden")) {
      Counter.builder(AUTH_FAILURES).tag("reason", reason).register(registry);
    }
    for (String mode : List.of("read", "read_write")) {
      for (String outcome : List.of("vended", "invalid_location", "failed")) {
        Counter.builder(ObservedCredentialVendor.VENDED).tag("mode", mode).tag("outcome", outcome).register(registry);
      }
    }
  }

  /** Metrics as {@code config} asks, tracing as the standard OpenTelemetry settings ask. */
  public static Observability start(ObservabilityConfig config) {
    return new Observability(config, Telemetry.fromEnvironment(SERVICE_NAME));
  }

  /** With an OpenTelemetry of the caller's (tests hand in an SDK with an in-memory span exporter). */
  public static Observability start(ObservabilityConfig config, OpenTelemetry openTelemetry) {
    return new Observability(config, Telemetry.of(openTelemetry));
  }

  public ObservabilityConfig config() {
    return config;
  }

  public MeterRegistry registry() {
    return registry;
  }

  public OpenTelemetry openTelemetry() {
    return telemetry.openTelemetry();
  }

  /** The Prometheus text exposition of every meter, or empty when metrics are disabled. */
  public Optional<String> scrape() {
    return prometheus == null ? Optional.empty() : Optional.of(prometheus.scrape());
  }

  /** Vert.x options whose HTTP server reports {@code vertx_http_server_*} (method, code, route) into this registry. */
  public VertxOptions vertxOptions() {
    VertxOptions options = new VertxOptions();
    if (prometheus == null) {
      return options;
    }
    MicrometerMetricsOptions metrics = new MicrometerMetricsOptions()
        .setEnabled(true)
        .setMicrometerRegistry(registry)
        .setRegistryName(vertxRegistryName)
        .setLabels(EnumSet.of(Label.HTTP_METHOD, Label.HTTP_CODE, Label.HTTP_ROUTE));
    for (MetricsDomain domain : MetricsDomain.values()) {
      if (domain != MetricsDomain.HTTP_SERVER) {
        metrics.addDisabledMetricsCategory(domain);
      }
    }
    return options.setMetricsOptions(metrics);
  }

  /** The commit lanes' observer: commit metrics, the commit spans, the commit log. */
  public CommitObserver commitObserver() {
    return new CommitTelemetry(registry, tracer, config.perTable(), new CommitLog());
  }

  /** Wraps every object store: {@code lance_store_request_duration_seconds} and a span per call. */
  public UnaryOperator<ObjectStore> storeDecorator() {
    return ObservedObjectStore.decorator(registry, tracer);
  }

  /** A publish span per attempt, in the trace each event carries. */
  public CommitEventPublisher tracedPublisher(CommitEventPublisher kafka, String topic) {
    return new TracedEventPublisher(kafka, tracer, topic);
  }

  /** Counts what {@code vendor} vends. */
  public CredentialVendor credentialVendor(CredentialVendor vendor) {
    return new ObservedCredentialVendor(vendor, registry);
  }

  /** {@code lance_lane_queue_depth} and {@code lance_lanes_active}. */
  public void bindCommits(LaneCommitService commits) {
    Gauge.builder(QUEUE_DEPTH, commits, LaneCommitService::queuedCommits)
        .description("Commits waiting in their table's lane, all lanes together").register(registry);
    Gauge.builder(LANES_ACTIVE, commits, LaneCommitService::activeLanes)
        .description("Tables with a commit lane in memory").register(registry);
  }

  /** The {@code lance_events_*} and {@code lance_reconciler_*} families. */
  public void bindPublication(Publication publication) {
    Gauge.builder(OUTBOX_BACKLOG, publication.outbox(), o -> o.backlog())
        .description("Commit events waiting in memory to be published (in flight included)").register(registry);
    Gauge.builder(PUBLISH_LAG, publication.outbox(), o -> lagSeconds(o.oldestUnpublished()))
        .description("Age of the oldest commit whose event waits to be published; 0 when none waits")
        .baseUnit("seconds").register(registry);
    FunctionCounter.builder(PUBLISHED, publication.outbox(), o -> o.publishedEvents())
        .description("Commit events Kafka acknowledged").register(registry);
    for (boolean governed : new boolean[] {true, false}) {
      FunctionCounter.builder(RECONCILED, publication.reconciler(), r -> r.recoveredVersions(governed))
          .description("Versions the reconciler published from storage: governed (their event was lost) or not "
              + "(written bypassing the coordinator)")
          .tag("governed", Boolean.toString(governed)).register(registry);
    }
  }

  private static double lagSeconds(Optional<Instant> oldest) {
    return oldest.map(t -> Math.max(0, Duration.between(t, Instant.now()).toMillis() / 1000.0)).orElse(0.0);
  }

  @Override
  public synchronized void close() {
    if (gcMetrics != null) {
      gcMetrics.close();
    }
    registry.close();
    telemetry.close();
  }
}
