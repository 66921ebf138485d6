package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.batch.BatchCoordinator;
import dev.lancecommit.coordinator.batch.LeasedHolds;
import dev.lancecommit.coordinator.auth.AccessControl;
import dev.lancecommit.coordinator.credentials.CredentialVendor;
import dev.lancecommit.coordinator.observe.Readiness;
import dev.lancecommit.coordinator.refs.RefLocks;
import dev.lancecommit.coordinator.retention.RemovalLog;
import dev.lancecommit.coordinator.publication.TableEventIntents;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.events.TableEventPublisher;
import dev.lancecommit.events.tracing.Telemetry;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import java.time.Clock;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Settings of the REST server.
 *
 * <p>{@code maxBodyBytes}: larger request bodies get 413 (default 64 MiB; a Lance transaction listing many
 * fragments stays far below). {@code blockingExecutor}: where catalog and storage calls run; when absent they run
 * through {@code Vertx.executeBlocking} on Vert.x's worker pool. {@code accessControl}: authentication and grants;
 * {@link AccessControl#disabled()} (the default) serves everyone as {@code anonymous}. {@code credentialVendor}: hands
 * out storage credentials in DescribeTable/DeclareTable {@code storage_options}; absent (the default) vends nothing.
 * {@code tableStorage}: resolves a table location to its store, for CreateTableVersion to read and remove the
 * manifest a client staged; absent, CreateTableVersion answers 501. {@code managedVersioningByDefault}: whether
 * tables without a {@value ManagedVersioning#PROPERTY} property are reported as namespace-managed (default false).
 * {@code tableEvents}: receives a table event after each successful declare, register, deregister, rename and drop
 * (not waited for: a failed publish is logged, the request still succeeds); {@link TableEventPublisher#noop()} by
 * default. The caller closes it. {@code openTelemetry}: every API request continues the W3C trace context it carries
 * in a SERVER span (default: context passed on, nothing recorded). {@code meterRegistry}: where
 * {@code lance_auth_failures_total} is counted (default: nowhere). {@code readiness}: what {@code GET /readyz} reports
 * (default: no checks, always ready). {@code metrics}: the Prometheus exposition {@code GET /metrics} serves; absent
 * (the default), there is no such route. {@code refLocks}: the per-table permits tag, branch and version-record
 * changes take ({@link RefLocks}), and {@code removalLog}, when version records were deleted ({@link RemovalLog});
 * share both with the retention cleanup  (new ones by default). {@code eventLoops}: how many HTTP server instances
 * share the port, each on its own event loop (default 1; the coordinator runs one per core).
 */
public final class RestServerOptions {
  public static final long DEFAULT_MAX_BODY_BYTES = 64L * 1024 * 1024;

  private final long maxBodyBytes;
  private final Executor blockingExecutor;
  private final AccessControl accessControl;
  private final CredentialVendor credentialVendor;
  private final Function<String, StorageLocation> tableStorage;
  private final BatchCoordinator batches;
  private final LeasedHolds laneLeases;
  private final boolean managedVersioningByDefault;
  private final TableEventPublisher tableEvents;
  private final Supplier<String> eventsStatus;
  private final OpenTelemetry openTelemetry;
  private final MeterRegistry meterRegistry;
  private final Readiness readiness;
  private final Supplier<String> metrics;
  private final RefLocks refLocks;
  private final RemovalLog removalLog;
  private final int verifyParallelism;
  private final int eventLoops;
  private final ClusterOptions cluster;

  private RestServerOptions(Builder builder) {
    this.openTelemetry = builder.openTelemetry;
    this.meterRegistry = builder.meterRegistry;
    this.readiness = builder.readiness;
    this.metrics = builder.metrics;
    this.maxBodyBytes = builder.maxBodyBytes;
    this.blockingExecutor = builder.blockingExecutor;
    this.eventLoops = builder.eventLoops;
    this.accessControl = builder.accessControl;
    this.credentialVendor = builder.credentialVendor;
    this.tableStorage = builder.tableStorage;
    this.batches = builder.batches;
    this.laneLeases = builder.laneLeases;
    this.verifyParallelism = builder.verifyParallelism;
    this.managedVersioningByDefault = builder.managedVersioningByDefault;
    this.tableEvents = builder.tableEvents;
    this.eventsStatus = builder.eventsStatus;
    this.refLocks = builder.refLocks;
    this.removalLog = builder.removalLog;
    this.cluster = builder.cluster;
  }

  public static RestServerOptions defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  public long maxBodyBytes() {
    return maxBodyBytes;
  }

  public Optional<Executor> blockingExecutor() {
    return Optional.ofNullable(blockingExecutor);
  }

  public AccessControl accessControl() {
    return accessControl;
  }

  public Optional<CredentialVendor> credentialVendor() {
    return Optional.ofNullable(credentialVendor);
  }

  /** The atomic multi-table commits (BatchCreateTableVersions, BatchCommitTables); empty: they answer 501. */
  public Optional<BatchCoordinator> batches() {
    return Optional.ofNullable(batches);
  }

  /** Cluster mode: the holds of this instance's lanes that batches coordinated elsewhere take. */
  public Optional<LeasedHolds> laneLeases() {
    return Optional.ofNullable(laneLeases);
  }

  public Optional<Function<String, StorageLocation>> tableStorage() {
    return Optional.ofNullable(tableStorage);
  }

  public boolean managedVersioningByDefault() {
    return managedVersioningByDefault;
  }

  /** What {@code GET /healthz} reports about event publication, e.g. "publishing". */
  public Supplier<String> eventsStatus() {
    return eventsStatus;
  }

  /** Store requests a {@code POST .../verify} keeps in flight at most. */
  public int verifyParallelism() {
    return verifyParallelism;
  }

  /** HTTP server instances sharing the port, one per event loop. */
  public int eventLoops() {
    return eventLoops;
  }

  public TableEventPublisher tableEvents() {
    return tableEvents;
  }

  public OpenTelemetry openTelemetry() {
    return openTelemetry;
  }

  public MeterRegistry meterRegistry() {
    return meterRegistry;
  }

  public Readiness readiness() {
    return readiness;
  }

  public Optional<Supplier<String>> metrics() {
    return Optional.ofNullable(metrics);
  }

  public RefLocks refLocks() {
    return refLocks;
  }

  public RemovalLog removalLog() {
    return removalLog;
  }

  /**
   * Where catalog changes are announced before they are made: the table event publisher itself when it keeps
   * announcements ({@code DurableTableEvents} does), else none (events go straight to the publisher).
   */
  public TableEventIntents tableEventIntents() {
    return tableEvents instanceof TableEventIntents intents ? intents : TableEventIntents.none(tableEvents);
  }

  /** Cluster mode: table-changing requests go to their table's owner; absent on a single coordinator. */
  public Optional<ClusterOptions> cluster() {
    return Optional.ofNullable(cluster);
  }

  public static final class Builder {
    private long maxBodyBytes = DEFAULT_MAX_BODY_BYTES;
    private Executor blockingExecutor;
    private AccessControl accessControl = AccessControl.disabled();
    private CredentialVendor credentialVendor;
    private Function<String, StorageLocation> tableStorage;
    private BatchCoordinator batches;
    private LeasedHolds laneLeases;
    private boolean managedVersioningByDefault;
    private TableEventPublisher tableEvents = TableEventPublisher.noop();
    private Supplier<String> eventsStatus = () -> "disabled";
    private OpenTelemetry openTelemetry = Telemetry.propagatingOnly().openTelemetry();
    private MeterRegistry meterRegistry = new CompositeMeterRegistry();
    private Readiness readiness = new Readiness();
    private Supplier<String> metrics;
    private RefLocks refLocks = new RefLocks();
    private RemovalLog removalLog = new RemovalLog(Clock.systemUTC());
    private int verifyParallelism = 8;
    private ClusterOptions cluster;

    private int eventLoops = 1;

    private Builder() {}

    public Builder eventLoops(int eventLoops) {
      if (eventLoops < 1) {
        throw new IllegalArgumentException("eventLoops must be at least 1: " + eventLoops);
      }
      this.eventLoops = eventLoops;
      return this;
    }

    public Builder openTelemetry(OpenTelemetry openTelemetry) {
      this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
      return this;
    }

    public Builder meterRegistry(MeterRegistry meterRegistry) {
      this.meterRegistry = Objects.requireNonNull(meterRegistry, "meterRegistry");
      return this;
    }

    public Builder readiness(Readiness readiness) {
      this.readiness = Objects.requireNonNull(readiness, "readiness");
      return this;
    }

    /** Serve {@code GET /metrics} with what {@code scrape} returns; null: no such route. */
    public Builder metrics(Supplier<String> scrape) {
      this.metrics = scrape;
      return this;
    }

    /** Cluster mode (null: a single coordinator). */
    public Builder cluster(ClusterOptions cluster) {
      this.cluster = cluster;
      return this;
    }

    public Builder maxBodyBytes(long maxBodyBytes) {
      if (maxBodyBytes <= 0) {
        throw new IllegalArgumentException("maxBodyBytes must be positive: " + maxBodyBytes);
      }
      this.maxBodyBytes = maxBodyBytes;
      return this;
    }

    public Builder blockingExecutor(Executor blockingExecutor) {
      this.blockingExecutor = blockingExecutor;
      return this;
    }

    public Builder accessControl(AccessControl accessControl) {
      this.accessControl = Objects.requireNonNull(accessControl, "accessControl");
      return this;
    }

    /** The vendor of DescribeTable/DeclareTable credentials; null vends none. The caller closes it. */
    public Builder credentialVendor(CredentialVendor credentialVendor) {
      this.credentialVendor = credentialVendor;
      return this;
    }

    /** Resolves a table location to its store and key, e.g. {@code ObjectStores::resolve}; null disables it. */
    public Builder batches(BatchCoordinator batches) {
      this.batches = batches;
      return this;
    }

    /** Cluster mode: serves the internal lane routes ({@link LeasedHolds}); the caller closes it. */
    public Builder laneLeases(LeasedHolds laneLeases) {
      this.laneLeases = laneLeases;
      return this;
    }

    public Builder tableStorage(Function<String, StorageLocation> tableStorage) {
      this.tableStorage = tableStorage;
      return this;
    }

    public Builder managedVersioningByDefault(boolean managedVersioningByDefault) {
      this.managedVersioningByDefault = managedVersioningByDefault;
      return this;
    }

    /** Where catalog changes are published as table events; the caller closes it. */
    public Builder tableEvents(TableEventPublisher tableEvents) {
      this.tableEvents = Objects.requireNonNull(tableEvents, "tableEvents");
      return this;
    }

    public Builder eventsStatus(Supplier<String> eventsStatus) {
      this.eventsStatus = Objects.requireNonNull(eventsStatus, "eventsStatus");
      return this;
    }

    /** The per-table permits of ref and version-record changes; share the retention cleanup's. */
    public Builder refLocks(RefLocks refLocks) {
      this.refLocks = Objects.requireNonNull(refLocks, "refLocks");
      return this;
    }

    /** When version records were deleted; share the retention cleanup's. */
    public Builder removalLog(RemovalLog removalLog) {
      this.removalLog = Objects.requireNonNull(removalLog, "removalLog");
      return this;
    }

    public Builder verifyParallelism(int verifyParallelism) {
      if (verifyParallelism < 1) {
        throw new IllegalArgumentException("verifyParallelism must be at least 1: " + verifyParallelism);
      }
      this.verifyParallelism = verifyParallelism;
      return this;
    }

    public RestServerOptions build() {
      return new RestServerOptions(this);
    }
  }
}
