package dev.lancecommit.coordinator;

import dev.lancecommit.coordinator.auth.AuthConfig;
import dev.lancecommit.coordinator.cluster.ClusterConfig;
import dev.lancecommit.coordinator.cluster.ClusterHandover;
import dev.lancecommit.coordinator.cluster.ClusterMembership;
import dev.lancecommit.coordinator.cluster.OwnedCommits;
import dev.lancecommit.coordinator.commit.CommitPermit;
import dev.lancecommit.coordinator.commit.LaneOpening;
import dev.lancecommit.coordinator.commit.CommitService;
import dev.lancecommit.coordinator.commit.TableLanes;
import dev.lancecommit.coordinator.commit.TableNotOwnedException;
import dev.lancecommit.coordinator.http.ClusterLanes;
import dev.lancecommit.coordinator.http.ClusterOptions;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.coordinator.commit.CommitEventSink;
import dev.lancecommit.coordinator.commit.CommitSettings;
import dev.lancecommit.coordinator.batch.BatchCoordinator;
import dev.lancecommit.coordinator.batch.LaneTakeover;
import dev.lancecommit.coordinator.batch.LeasedHolds;
import dev.lancecommit.coordinator.batch.PendingBatches;
import dev.lancecommit.coordinator.commit.LaneCommitService;
import dev.lancecommit.coordinator.credentials.CredentialVendor;
import dev.lancecommit.coordinator.http.MetricsServer;
import dev.lancecommit.coordinator.http.RestServer;
import dev.lancecommit.coordinator.http.RestServerOptions;
import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.observe.Observability;
import dev.lancecommit.coordinator.observe.ObservabilityConfig;
import dev.lancecommit.coordinator.observe.Readiness;
import dev.lancecommit.coordinator.observe.StoreProbe;
import dev.lancecommit.coordinator.publication.CatalogTableSource;
import dev.lancecommit.coordinator.publication.DurableTableEvents;
import dev.lancecommit.coordinator.publication.Publication;
import dev.lancecommit.coordinator.publication.PublicationConfig;
import dev.lancecommit.coordinator.refs.RefLocks;
import dev.lancecommit.coordinator.retention.RemovalLog;
import dev.lancecommit.coordinator.retention.RetentionConfig;
import dev.lancecommit.coordinator.retention.RetentionService;
import dev.lancecommit.coordinator.retention.TableCleanup;
import dev.lancecommit.coordinator.storage.ConditionalPutProbe;
import dev.lancecommit.coordinator.storage.ObjectStores;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.storage.StoreOutcomeUnknownException;
import dev.lancecommit.coordinator.storage.StoreUnavailableException;
import dev.lancecommit.events.KafkaCommitEventPublisher;
import dev.lancecommit.events.KafkaTableEventPublisher;
import dev.lancecommit.events.TableEventPublisher;
import dev.lancecommit.events.kafka.EmbeddedKafkaBroker;
import dev.lancecommit.format.FormatFeatures;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.deletion.DeletionVectors;
import dev.lancecommit.format.WriterVersions;
import dev.lancecommit.retry.Backoff;
import dev.lancecommit.retry.RetryPolicy;
import io.opentelemetry.api.OpenTelemetry;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A running coordinator: REST server, commit lanes, catalog, storage and the event publisher, wired together. */
public final class Coordinator implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Coordinator.class);
  /** The start-up conditional-put probe: ten attempts, a store still failing after them is not served. */
  private static final RetryPolicy PROBE_RETRY =
      RetryPolicy.exponential(Duration.ofMillis(400), Duration.ofSeconds(5)).withMaxAttempts(10);

  private final Deque<AutoCloseable> resources;
  private final String restUrl;
  private final String warehouse;
  private final String kafkaBootstrap;
  private final String topic;
  private final String metricsUrl;
  private final Observability observability;
  private final ClusterMembership cluster;
  private final LeasedHolds batchHolds;

  private Coordinator(Deque<AutoCloseable> resources, String restUrl, String warehouse, String kafkaBootstrap,
      String topic, String metricsUrl, Observability observability, ClusterMembership cluster,
      LeasedHolds batchHolds) {
    this.cluster = cluster;
    this.batchHolds = batchHolds;
    this.resources = resources;
    this.restUrl = restUrl;
    this.warehouse = warehouse;
    this.kafkaBootstrap = kafkaBootstrap;
    this.topic = topic;
    this.metricsUrl = metricsUrl;
    this.observability = observability;
  }

  /**
   * Starts everything the configuration asks for and returns once the REST server accepts requests. Traces go where
   * the standard OpenTelemetry settings say (nowhere unless they name an endpoint).
   */
  public static Coordinator start(CoordinatorConfig config) {
    return start(config, null);
  }

  /** As {@link #start(CoordinatorConfig)}, recording spans with {@code openTelemetry} (tests: an in-memory exporter). */
  public static Coordinator start(CoordinatorConfig config, OpenTelemetry openTelemetry) {
    Deque<AutoCloseable> resources = new ArrayDeque<>();
    try {
      AuthConfig auth = config.authConfig(); // a bad auth configuration fails before anything starts
      ObservabilityConfig observabilityConfig = config.observabilityConfig();
      CredentialVendor vendor = config.credentialsConfig().createVendor().orElse(null); // so does credentials.*
      Observability observability = openTelemetry == null ? Observability.start(observabilityConfig)
          : Observability.start(observabilityConfig, openTelemetry);
      resources.push(observability);
      // Vert.x configures the registry when it starts: before any meter is registered (Observability explains why).
      Vertx vertx = Vertx.vertx(observability.vertxOptions());
      resources.push(() -> vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS));
      observability.registerProcessMeters();
      if (vendor != null) {
        vendor = observability.credentialVendor(vendor);
        resources.push(vendor);
      }
      DeletionVectors.checkArrowAvailable(); // server-side rebase reads and writes Arrow deletion files
      ObjectStores stores = new ObjectStores(config.s3Config(), config.get(CoordinatorConfig.STORE_LOCAL_FSYNC),
          config.get(CoordinatorConfig.STORE_LOCAL_DIRECT_IO), observability.storeDecorator());
      resources.push(stores);
      String warehouseUri = normalizeWarehouse(config.get(CoordinatorConfig.WAREHOUSE));
      StorageLocation warehouse = stores.resolve(warehouseUri);
      if (config.get(CoordinatorConfig.STORE_VERIFY_CONDITIONAL_PUT)) {
        verifyConditionalPut(warehouse);
      }

      StoreProbe storeProbe = new StoreProbe(warehouse, observabilityConfig.storeProbeInterval(), Clock.systemUTC());
      resources.push(storeProbe);
      storeProbe.start();
      Readiness readiness = new Readiness().add("store", storeProbe::check);

      // Versions of atomic batches recorded but not finished (a coordinator died in the middle) are hidden from
      // namespace readers and the reconciler before anything starts; they are completed once the lanes exist.
      PendingBatches pendingBatches = new PendingBatches();
      BatchCoordinator.Unfinished unfinished = BatchCoordinator.hideUnfinished(warehouse, pendingBatches);
      Catalog catalog = new Catalog(warehouse, Catalog.DEFAULT_CACHE_TTL, Clock.systemUTC(), pendingBatches);
      PublicationConfig publicationConfig = config.publicationConfig();
      String topic = publicationConfig.eventsTopic();
      ClusterConfig clusterConfig = config.clusterConfig();
      String bootstrap = startKafka(config, resources);
      // Cluster mode: tables are owned through Kafka's group protocol, on the partitions of the events topic.
      ClusterMembership membership = null;
      if (clusterConfig.enabled()) {
        if (bootstrap == null) {
          throw new IllegalArgumentException("cluster.enabled needs Kafka: tables are owned through its consumer "
              + "group protocol (kafka is 'none')");
        }
        membership = new ClusterMembership(clusterConfig, bootstrap, topic);
      }
      ClusterMembership member = membership;
      Predicate<TableRef> publishesHere = member == null ? table -> true : table -> member.publishes(table.joinedId());
      CommitEventSink events;
      Publication publication = null;
      Supplier<String> eventsStatus = () -> "disabled";
      if (bootstrap == null) {
        events = CommitEventSink.discard();
        readiness.add("publication", () -> new Readiness.Check("disabled", false, "kafka=none: no events"));
      } else {
        KafkaCommitEventPublisher kafka = KafkaCommitEventPublisher.builder(bootstrap)
            .topic(topic)
            .publishTimeout(publicationConfig.publishTimeout())
            .build();
        // Commits are answered once their manifest lands; the outbox publishes in version order per table and the
        // reconciler republishes whatever storage holds that Kafka does not (crashes, writers bypassing us). Start
        // does not wait for Kafka: the topics are ensured and the progress loaded in the background.
        CatalogTableSource catalogTables = new CatalogTableSource(catalog, stores::resolve);
        Publication started = Publication.start(publicationConfig, bootstrap,
            observability.tracedPublisher(kafka, topic), stores::resolve,
            () -> catalogTables.tables().stream().filter(t -> !pendingBatches.hides(t)).toList(), publishesHere);
        resources.push(started);
        events = started.outbox();
        eventsStatus = () -> started.ready() ? "publishing"
            : "waiting for Kafka" + started.startupProblem().map(problem -> ": " + problem).orElse("");
        publication = started;
        observability.bindPublication(started);
        // Reported, not required: commits are answered whether Kafka is up or not.
        readiness.add("publication", () -> started.ready()
            ? new Readiness.Check(Readiness.Check.UP, false, "publishing to " + topic)
            : new Readiness.Check("waiting", false, "waiting for Kafka"
                + started.startupProblem().map(problem -> ": " + problem).orElse("")));
      }

      // Lanes and HTTP routes get pools of their own: a burst of catalog calls never delays a commit's write.
      ExecutorService laneThreads = Executors.newFixedThreadPool(
          config.get(CoordinatorConfig.COMMIT_THREADS), namedThreads("lcc-lane-"));
      resources.push(() -> {
        laneThreads.shutdown();
        laneThreads.awaitTermination(10, TimeUnit.SECONDS);
      });
      ExecutorService workers = Executors.newFixedThreadPool(
          config.get(CoordinatorConfig.HTTP_WORKER_THREADS), namedThreads("lcc-worker-"));
      resources.push(() -> {
        workers.shutdown();
        workers.awaitTermination(10, TimeUnit.SECONDS);
      });
      CommitSettings settings = new CommitSettings(
          config.get(CoordinatorConfig.COMMIT_MAX_QUEUED_PER_TABLE),
          config.get(CoordinatorConfig.COMMIT_MAX_REBUILD_ATTEMPTS),
          config.get(CoordinatorConfig.COMMIT_AMBIGUOUS_WRITE_ATTEMPTS),
          config.get(CoordinatorConfig.COMMIT_RECENT_TRANSACTIONS),
          WriterVersions.coordinator(),
          config.get(CoordinatorConfig.COMMIT_STORAGE_VERSION),
          namingScheme(config.get(CoordinatorConfig.COMMIT_MANIFEST_NAMING)),
          formatFeatures(config),
          config.get(CoordinatorConfig.COMMIT_VERIFY_FILES),
          config.get(CoordinatorConfig.COMMIT_VERIFY_FILES_PARALLELISM),
          config.get(CoordinatorConfig.COMMIT_GROUP_MAX_TRANSACTIONS),
          config.get(CoordinatorConfig.COMMIT_GROUP_MAX_BYTES),
          config.get(CoordinatorConfig.COMMIT_VERIFY_FILES_AHEAD_THREADS),
          config.get(CoordinatorConfig.COMMIT_TRANSACTION_FILE_BESIDE_MANIFEST));
      // In cluster mode a lane writes only while this instance owns the table; otherwise the commit goes back,
      // unwritten, to be sent to the owner.
      CommitPermit permit = member == null ? CommitPermit.ALWAYS : table -> {
        if (!member.serves(table.joinedId())) {
          throw new TableNotOwnedException("This coordinator no longer owns table " + table.joinedId());
        }
      };
      // In cluster mode a lane made here (the table was taken over, or its lane was idle) first settles the atomic
      // batches another instance may have left holding the table's next version (LaneTakeover).
      LaneOpening opening = member == null ? LaneOpening.NONE
          : new LaneTakeover(warehouse, pendingBatches, Clock.systemUTC(), clusterConfig.advertisedUrl());
      LaneCommitService lanes = new LaneCommitService(stores::resolve, settings, events, laneThreads,
          Clock.systemUTC(),
          config.get(CoordinatorConfig.COMMIT_LANE_IDLE_TIMEOUT_MS), observability.commitObserver(), permit, opening);
      observability.bindCommits(lanes);
      OwnedCommits owned = member == null ? null : new OwnedCommits(lanes, member);
      CommitService commits = owned == null ? lanes : owned;
      AtomicBoolean takingCommits = new AtomicBoolean(true);
      readiness.add("commits", () -> takingCommits.get()
          ? new Readiness.Check(Readiness.Check.UP, true, "commit lanes running")
          : new Readiness.Check("down", true, "shutting down"));
      if (member != null) {
        // Ready once this instance is a member: before that it cannot say who owns a table.
        readiness.add("cluster", () -> member.isMember()
            ? new Readiness.Check(Readiness.Check.UP, true, "member of " + clusterConfig.group())
            : new Readiness.Check("joining", true, "joining group " + clusterConfig.group()));
      }
      ClusterOptions clusterOptions = member == null ? null : ClusterOptions.of(member, clusterConfig);
      // Batches hold the lanes themselves. In cluster mode a batch is coordinated by the instance that received it
      // (ClusterRouting sends one whose tables a single other instance owns there): the lanes of tables owned
      // elsewhere are held on their owners (ClusterLanes), which lease them (LeasedHolds).
      TableLanes batchLanes = lanes;
      LeasedHolds laneLeases = null;
      if (member != null) {
        laneLeases = new LeasedHolds(lanes, warehouse, pendingBatches, workers, Clock.systemUTC(),
            clusterConfig.batchHoldLease(), clusterConfig.advertisedUrl(), clusterConfig.abandonHoldsOnClose());
        resources.push(laneLeases);
        ClusterLanes clusterLanes = new ClusterLanes(vertx, clusterOptions, lanes);
        resources.push(clusterLanes);
        batchLanes = clusterLanes;
      }
      BatchCoordinator batches = new BatchCoordinator(batchLanes, warehouse, pendingBatches, workers,
          Clock.systemUTC(), config.get(CoordinatorConfig.BATCH_APPLY_ATTEMPTS),
          config.get(CoordinatorConfig.BATCH_RECORD_RETENTION_MS),
          config.get(CoordinatorConfig.BATCH_TEST_APPLY_PAUSE_MS), config.get(CoordinatorConfig.BATCH_TEST_RECORD_PAUSE_MS));
      resources.push(batches);
      if (member == null) {
        batches.completeUnfinished(unfinished); // roll forward before the REST server answers anyone
      } else {
        // The lanes of a recorded batch's tables are held where they are owned, known once this instance is a
        // member: roll forward in the background (the members stay hidden here meanwhile). Any instance completes
        // a batch its recording instance left unfinished for two leases (it died, or lost its holds).
        workers.execute(() -> batches.completeUnfinished(unfinished));
        batches.sweepUnfinished(clusterConfig.batchHoldLease(), clusterConfig.batchHoldLease().multipliedBy(2));
      }
      TableEventPublisher tableEvents = TableEventPublisher.noop();
      if (publication != null) {
        // Table events wait in the warehouse until Kafka acknowledges them; the ones left from an outage or a crash
        // are sent once publication is ready, and again every reconcile interval.
        DurableTableEvents durable = new DurableTableEvents(KafkaTableEventPublisher.builder(bootstrap).topic(topic)
            .publishTimeout(publicationConfig.publishTimeout()).build(),
            warehouse, publication::ready, workers, publicationConfig.reconcileInterval(), catalog,
            tableKey -> member == null || member.publishes(tableKey), Clock.systemUTC());
        publication.whenReady().thenRunAsync(durable::republishPending, workers);
        tableEvents = durable;
      }
      resources.push(tableEvents);

      // Tag, branch and version-record changes and the retention cleanup share the per-table permits and the log of
      // deleted version records (files are only collected a grace after their records went).
      RefLocks refLocks = new RefLocks();
      RemovalLog removals = new RemovalLog(Clock.systemUTC());
      RetentionConfig retention = config.retentionConfig();
      if (retention.enabled()) {
        RetentionService cleanup = new RetentionService(catalog, new TableCleanup(stores::resolve, refLocks, removals,
            Clock.systemUTC(), retention.commitGrace()), retention.policy(),
            member == null ? table -> true : table -> member.serves(table.joinedId())).start(retention.interval());
        resources.push(cleanup);
      }

      int eventLoops = config.get(CoordinatorConfig.HTTP_EVENT_LOOPS);
      RestServer server = new RestServer(vertx, catalog, commits, RestServerOptions.builder()
          .maxBodyBytes(config.get(CoordinatorConfig.HTTP_MAX_BODY_BYTES))
          .eventLoops(eventLoops > 0 ? eventLoops : Runtime.getRuntime().availableProcessors())
          .blockingExecutor(workers)
          .accessControl(auth.accessControl())
          .tableEvents(tableEvents)
          .credentialVendor(vendor)
          .tableStorage(stores::resolve)
          .batches(batches)
          .verifyParallelism(config.get(CoordinatorConfig.COMMIT_VERIFY_FILES_PARALLELISM))
          .eventsStatus(eventsStatus)
          .openTelemetry(observability.openTelemetry())
          .meterRegistry(observability.registry())
          .readiness(readiness)
          .metrics(observabilityConfig.metricsEnabled() && observabilityConfig.metricsPort().isEmpty()
              ? () -> observability.scrape().orElse("") : null)
          .refLocks(refLocks)
          .removalLog(removals)
          .cluster(clusterOptions)
          .laneLeases(laneLeases)
          .build());
      LOG.info("Authentication {}", auth.enabled() ? "enabled for principals " + auth.principals()
          : "disabled (every request acts as 'anonymous')");
      String host = config.get(CoordinatorConfig.HOST);
      int port = server.start(host, config.get(CoordinatorConfig.PORT))
          .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      resources.push(() -> server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS));
      String restUrl = url(host, port);
      String metricsUrl = null;
      if (observabilityConfig.metricsEnabled()) {
        if (observabilityConfig.metricsPort().isPresent()) {
          MetricsServer metricsServer = new MetricsServer(vertx, () -> observability.scrape().orElse(""));
          int metricsPort = metricsServer.start(host, observabilityConfig.metricsPort().getAsInt())
              .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
          resources.push(() -> metricsServer.close().toCompletionStage().toCompletableFuture()
              .get(10, TimeUnit.SECONDS));
          metricsUrl = url(host, metricsPort) + "/metrics";
        } else {
          metricsUrl = restUrl + "/metrics";
        }
      }
      if (member != null) {
        // Joined once the events topic exists and the server answers (others forward here as soon as the map names
        // this instance). Closed before the server: leaving the group hands the partitions over while requests are
        // still forwarded from here.
        ClusterHandover handover = new ClusterHandover(owned, lanes, publication, clusterConfig.handoverDrain());
        resources.push(member);
        // Closed before leaving the group: the holds batches coordinated elsewhere have here are decided (fenced, or
        // their members written) while this instance still owns and publishes their tables, so the versions' events
        // go out with their batch id. (Closing again at the end of the stack is a no-op.)
        resources.push(laneLeases);
        if (publication != null) {
          publication.whenReady().thenRun(() -> member.start(handover));
        }
      }
      // Closed first: readiness turns 503 before anything stops.
      resources.push(() -> takingCommits.set(false));
      LOG.info("Coordinator serving at {} (warehouse {}, kafka {}, topic {}, metrics {})", restUrl, warehouseUri,
          bootstrap == null ? "disabled" : bootstrap, topic, metricsUrl == null ? "disabled" : metricsUrl);
      return new Coordinator(resources, restUrl, warehouseUri, bootstrap, topic, metricsUrl, observability, member,
          laneLeases);
    } catch (Exception e) {
      closeAll(resources);
      if (e instanceof RuntimeException re) {
        throw re;
      }
      throw new IllegalStateException("The coordinator could not start: " + e.getMessage(), e);
    }
  }

  /**
   * Proves the store rejects a second create of one key. A transient failure (a 5xx, a lost answer) is retried
   * with fresh probe keys; a store that answers but does not honour If-None-Match is refused at once.
   */
  private static void verifyConditionalPut(StorageLocation warehouse) throws InterruptedException {
    Backoff backoff = PROBE_RETRY.start();
    while (true) {
      try {
        ConditionalPutProbe.verify(warehouse.store(), warehouse.key("_catalog/.probe"));
        return;
      } catch (StoreOutcomeUnknownException | StoreUnavailableException e) {
        Duration pause = backoff.onFailure().orElseThrow(() -> e);
        LOG.warn("Conditional-put probe attempt {} failed transiently, retrying in {} ms: {}", backoff.failures(),
            pause.toMillis(), e.getMessage());
        Thread.sleep(pause.toMillis());
      }
    }
  }

  /** The embedded broker, an external bootstrap list, or null when events are disabled. */
  private static String startKafka(CoordinatorConfig config, Deque<AutoCloseable> resources) throws Exception {
    String kafka = config.get(CoordinatorConfig.KAFKA).trim();
    if (kafka.equalsIgnoreCase("none")) {
      return null;
    }
    if (!kafka.equalsIgnoreCase("embedded")) {
      return kafka;
    }
    Path dir = Path.of(config.get(CoordinatorConfig.KAFKA_EMBEDDED_DIR)).toAbsolutePath().normalize();
    Files.createDirectories(dir);
    EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.builder().dataDir(dir).build();
    broker.start();
    resources.push(broker);
    return broker.bootstrapServers();
  }

  private static String url(String host, int port) {
    return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
  }

  private static String normalizeWarehouse(String warehouse) throws java.io.IOException {
    if (warehouse.contains("://")) {
      return warehouse;
    }
    Path path = Path.of(warehouse).toAbsolutePath().normalize();
    Files.createDirectories(path);
    return path.toString();
  }

  private static FormatFeatures formatFeatures(CoordinatorConfig config) {
    return FormatFeatures.withSemanticTypesFlag(config.get(CoordinatorConfig.FORMAT_SEMANTIC_TYPES_FLAG));
  }

  private static ManifestNaming.Scheme namingScheme(String value) {
    return ManifestNaming.Scheme.valueOf(value.trim().toUpperCase(Locale.ROOT)); // the key accepts v1 and v2
  }

  private static ThreadFactory namedThreads(String prefix) {
    AtomicInteger counter = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + counter.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  public String restUrl() {
    return restUrl;
  }

  public String warehouse() {
    return warehouse;
  }

  /** The Kafka bootstrap servers events go to, or null when events are disabled. */
  public String kafkaBootstrap() {
    return kafkaBootstrap;
  }

  public String topic() {
    return topic;
  }

  /** Where Prometheus scrapes, or empty when {@code metrics.enabled=false}. */
  public java.util.Optional<String> metricsUrl() {
    return java.util.Optional.ofNullable(metricsUrl);
  }

  /** The metrics registry and tracing of this coordinator. */
  public Observability observability() {
    return observability;
  }

  /** Cluster mode: this instance's membership (which tables it owns, who owns the others). */
  public Optional<ClusterMembership> cluster() {
    return Optional.ofNullable(cluster);
  }

  /** Cluster mode: the holds of this instance's lanes for batches other instances coordinate (status, tests). */
  public Optional<LeasedHolds> batchHolds() {
    return Optional.ofNullable(batchHolds);
  }

  @Override
  public void close() {
    closeAll(resources);
  }

  private static void closeAll(Deque<AutoCloseable> resources) {
    synchronized (resources) {
      while (!resources.isEmpty()) {
        AutoCloseable resource = resources.pop();
        try {
          resource.close();
        } catch (Exception e) {
          LOG.warn("Error while stopping {}", resource, e);
        }
      }
    }
  }
}
