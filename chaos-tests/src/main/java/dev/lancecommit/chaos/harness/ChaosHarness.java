package dev.lancecommit.chaos.harness;

import dev.lancecommit.coordinator.CoordinatorConfig;
import dev.lancecommit.coordinator.storage.ObjectStores;
import dev.lancecommit.events.kafka.EmbeddedKafkaBroker;
import dev.lancecommit.testing.S3ProxyFixture;
import dev.lancecommit.testing.lance.LanceTables;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * The chaos race-testing harness of the whole system. Writers (threads using real lance-core) commit appends,
 * deletes, updates, compactions and index builds to a few tables through the coordinator's CommitTable over HTTP,
 * while a seeded schedule kills the coordinator process with SIGKILL and restarts it, makes S3 misbehave through
 * {@link S3FaultProxy}, and stops and restarts the Kafka broker. Afterwards every table's history, rows and events
 * are checked against the writers' own record ({@link Ledger}); see {@link ChaosReport}. With {@code --instances N}
 * (N above 1) the coordinator is a cluster of N processes in cluster mode ({@link CoordinatorCluster}), every request
 * goes to a random instance, and the faults {@code instance-kill} (kill -9 of one instance, restarted seconds later)
 * and {@code instance-pause} (SIGSTOP past the group session timeout, then SIGCONT) take {@code kill}'s place.
 *
 * <pre>
 * mvn -B -q -o -pl chaos-tests -am install -DskipTests
 * java --add-opens=java.base/java.nio=ALL-UNNAMED -cp "chaos-tests/target/chaos-tests.jar:chaos-tests/target/lib/*" \
 *     dev.lancecommit.chaos.harness.ChaosHarness --writers 6 --tables 2 --seconds 600 --seed 7 --faults kill,s3,kafka
 * ... ChaosHarness --instances 3 --writers 6 --tables 4 --seconds 600 --seed 7 --faults instance-kill,instance-pause,kafka
 * </pre>
 *
 * Exits 0 when every check passed, 1 when one failed, 2 on bad options or when the run itself broke.
 */
public final class ChaosHarness {
  static final String NAMESPACE = "chaos";
  static final int INITIAL_ROWS = 20;
  static final long S3_MAX_STALL_MILLIS = FaultScheduler.MAX_STALL_MILLIS;
  /** The cluster's group session timeout (cluster.session-timeout.ms's default: the instances run with it). */
  static final long CLUSTER_SESSION_TIMEOUT_MS =
      CoordinatorConfig.defaults().clusterConfig().sessionTimeout().toMillis();

  private final ChaosOptions options;
  private final Path workDir;
  private final FaultLog faults = new FaultLog();
  private final Ledger ledger = new Ledger();
  private final Deque<AutoCloseable> resources = new ArrayDeque<>();

  private ChaosHarness(ChaosOptions options, Path workDir) {
    this.options = options;
    this.workDir = workDir;
  }

  public static void main(String[] args) {
    quietLogging();
    ChaosOptions options;
    try {
      options = ChaosOptions.parse(args, System.out);
    } catch (IllegalArgumentException e) {
      System.err.println("error: " + e.getMessage());
      System.err.println("Run with --help for the options.");
      System.exit(2);
      return;
    }
    if (options == null) {
      return; // --help
    }
    ChaosReport report;
    try {
      report = run(options);
    } catch (Exception e) {
      e.printStackTrace();
      System.exit(2);
      return;
    }
    report.print(System.out);
    System.out.flush();
    // lance-core and Kafka client threads may linger; the verdict is printed.
    System.exit(report.passed() ? 0 : 1);
  }

  /** Runs the whole thing: services up, writers and faults for {@code seconds}, settle, checks, teardown. */
  public static ChaosReport run(ChaosOptions options) throws Exception {
    quietLogging();
    Path workDir = options.workDir() != null
        ? Files.createDirectories(options.workDir())
        : Files.createTempDirectory("lcc-chaos-");
    ChaosHarness harness = new ChaosHarness(options, workDir);
    ChaosReport report;
    try {
      report = harness.execute();
    } finally {
      harness.closeAll();
    }
    if (report.passed() && !options.keepWorkDir() && options.workDir() == null) {
      deleteRecursively(workDir);
    }
    return report;
  }

  /** Whether the coordinator on this class path publishes through the event outbox (its keys are registered). */
  public static boolean publicationOutboxWired() {
    return CoordinatorConfig.keys().keys().stream().anyMatch(k -> k.name().startsWith("publication."));
  }

  private ChaosReport execute() throws Exception {
    long begin = System.nanoTime();
    log("work dir " + workDir + "; " + options.commandLine());

    S3ProxyFixture s3 = null;
    S3FaultProxy proxy = null;
    if (options.store() == ChaosOptions.Store.S3) {
      s3 = S3ProxyFixture.started();
      resources.push(s3);
      URI upstream = URI.create(s3.endpoint());
      proxy = new S3FaultProxy(upstream.getHost(), upstream.getPort(), options.seed(), faults);
      resources.push(proxy);
      proxy.start();
      log("s3proxy at " + s3.endpoint() + ", fault proxy at " + proxy.endpoint());
    }
    ObjectStores stores = new ObjectStores(s3 == null ? null : s3.s3Config());
    resources.push(stores);

    EmbeddedKafkaBroker kafka = EmbeddedKafkaBroker.builder().dataDir(workDir.resolve("kafka")).build();
    resources.push(kafka);
    // The broker JVM and Lance's native library (loaded on first use) both take seconds: overlap them.
    CompletableFuture<Void> kafkaStarted = CompletableFuture.runAsync(kafka::start);
    warmUpLance();
    kafkaStarted.join();
    String bootstrap = kafka.bootstrapServers();
    String topic = CoordinatorConfig.defaults().publicationConfig().eventsTopic();
    log("Kafka at " + bootstrap);

    String warehouse = s3 != null ? s3.uri("warehouse-" + Long.toUnsignedString(options.seed()))
        : workDir.resolve("warehouse").toString();
    boolean outbox = publicationOutboxWired();
    CoordinatorProcess coordinator = null;
    CoordinatorCluster cluster = null;
    CoordinatorClient client;
    if (options.instances() == 1) {
      coordinator = new CoordinatorProcess(workDir, freePort(),
          coordinatorArgs(warehouse, bootstrap, s3, proxy, outbox), options.coordinatorJar());
      resources.push(coordinator);
      coordinator.start();
      log("coordinator at " + coordinator.baseUrl() + " (pid " + coordinator.pid() + "), warehouse " + warehouse);
      client = new CoordinatorClient(coordinator.baseUrl());
    } else {
      cluster = new CoordinatorCluster(workDir, options.instances(),
          coordinatorArgs(warehouse, bootstrap, s3, proxy, outbox), options.coordinatorJar(),
          "chaos-" + Long.toUnsignedString(options.seed()));
      resources.push(cluster);
      cluster.start();
      cluster.awaitSettled(cluster.instances(), Duration.ofSeconds(120));
      List<String> urls = cluster.instances().stream().map(CoordinatorProcess::baseUrl).toList();
      log(options.instances() + " coordinators in cluster mode at " + urls + ", warehouse " + warehouse);
      client = new CoordinatorClient(urls); // every request to a random instance
    }
    List<ChaosTable> tables = createTables(client, stores, s3 == null ? Map.of() : s3.lanceStorageOptions());

    EventRecorder recorder = EventRecorder.start(bootstrap, topic, "chaos-harness-" + options.seed());
    resources.push(recorder);

    RunControl control = new RunControl(Duration.ofSeconds(options.settleSeconds()));
    FaultScheduler scheduler = new FaultScheduler(options, coordinator, cluster,
        CLUSTER_SESSION_TIMEOUT_MS, proxy, kafka, faults);
    ExecutorService writers = startWriters(tables, client, control);
    faults.note("writers started");
    scheduler.start();
    log(options.writers() + " writers on " + tables.size() + " tables for " + options.seconds() + " s, faults "
        + options.faults());

    Thread.sleep(TimeUnit.SECONDS.toMillis(options.seconds()));
    control.stop();
    faults.note("writers stop starting commits");
    log("stopping: healing faults, writers finish what they have in flight");
    scheduler.stopAndHeal();
    long healedAt = System.nanoTime();
    faults.note("faults healed");
    writers.shutdown();
    boolean writersDone = writers.awaitTermination(options.settleSeconds() + 120L, TimeUnit.SECONDS);
    if (!writersDone) {
      writers.shutdownNow();
    }
    faults.note("writers done");
    if (proxy != null) {
      // A request the proxy stalled is forwarded when its stall ends, after the client gave up: let any such late
      // write land before the histories are read, so a write that lands after its commit was answered is seen.
      long lateWritesLandBy = healedAt + TimeUnit.MILLISECONDS.toNanos(S3_MAX_STALL_MILLIS + 1_000);
      Thread.sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(lateWritesLandBy - System.nanoTime())));
    }

    log("reading every version of every table");
    List<TableHistory> histories = tables.stream().map(TableHistory::read).toList();
    Map<String, Long> latest = new LinkedHashMap<>();
    histories.forEach(h -> latest.put(h.table().key(), h.latest()));
    log("latest versions " + latest + "; waiting for the consumer to see them");
    boolean caughtUp = recorder.awaitDelivered(latest, Duration.ofSeconds(options.eventWaitSeconds()));
    faults.note("consumer " + (caughtUp ? "caught up" : "did not catch up"));

    log("checking");
    List<CheckResult> checks = new ArrayList<>();
    checks.add(CheckResult.of("faults injected and healed", scheduler.failures().isEmpty() && writersDone,
        faultSummary(coordinator, cluster) + (writersDone ? "" : "; writers still running after the settle time")
            + HistoryVerifier.examples(scheduler.failures().stream().map(Throwable::toString).toList())));
    checks.addAll(new HistoryVerifier(histories, ledger).verify());
    EventVerifier events = new EventVerifier(histories, bootstrap, topic);
    checks.add(events.topicHasEveryVersion());
    checks.add(events.consumerSawEachVersionOnceInOrder(recorder, caughtUp));

    return new ChaosReport(options, Duration.ofNanos(System.nanoTime() - begin), outbox,
        ledger.attemptedByType(), ledger.acknowledgedByType(), ledger.attempted(),
        ledger.count(Ledger.Status.ACKNOWLEDGED), ledger.count(Ledger.Status.FAILED), ledger.conflictRetries(),
        ledger.unknownAnswers(), ledger.count(Ledger.Status.UNRESOLVED) + ledger.count(Ledger.Status.PENDING),
        ledger.throttledAnswers(), ledger.unknownByAnswer(), ledger.rejectedByAnswer(), ledger.planFailures(),
        ledger.skippedPlans(), ledger.meanTimes(), faults.counts(), faults.timeline(), List.copyOf(checks), workDir.toString());
  }

  /** Loads lance-core's native library by writing one uncommitted fragment to a scratch table. */
  private void warmUpLance() {
    try (LanceTables scratch = LanceTables.local(workDir.resolve("warm-up.lance"))) {
      scratch.writeRows(0, 1);
    }
  }

  private String faultSummary(CoordinatorProcess coordinator, CoordinatorCluster cluster) {
    String coordinators;
    if (coordinator != null) {
      coordinators = faults.countOf(FaultLog.COORDINATOR_KILL) + " kills, " + coordinator.starts()
          + " coordinator starts (" + coordinator.failedStarts() + " failed and retried)";
    } else {
      coordinators = cluster.size() + " instances: " + faults.countOf(FaultLog.INSTANCE_KILL) + " instance kills, "
          + faults.countOf(FaultLog.INSTANCE_PAUSE) + " instance pauses past the session timeout, "
          + cluster.instances().stream().mapToInt(CoordinatorProcess::starts).sum() + " instance starts ("
          + cluster.instances().stream().mapToInt(CoordinatorProcess::failedStarts).sum() + " failed and retried)";
    }
    return coordinators + ", " + faults.countOf(FaultLog.S3_WINDOW) + " S3 fault windows, "
        + faults.countOf(FaultLog.KAFKA_STOP) + " Kafka stops";
  }

  private List<String> coordinatorArgs(String warehouse, String bootstrap, S3ProxyFixture s3, S3FaultProxy proxy,
      boolean outbox) {
    List<String> args = new ArrayList<>(List.of(
        "--warehouse", warehouse,
        "--kafka", bootstrap,
        "--kafka.publish.timeout.ms", "5000"));
    if (s3 != null) {
      args.addAll(List.of(
          "--s3.endpoint", proxy.endpoint(),
          "--s3.region", s3.region(),
          "--s3.path-style", "true",
          "--s3.access-key-id", s3.accessKey(),
          "--s3.secret-access-key", s3.secretKey(),
          // shorter than the proxy's stalls, so a stalled create-only write is a timeout whose write lands later
          "--s3.attempt-timeout.ms", "5000",
          "--s3.api-call-timeout.ms", "20000"));
    }
    if (outbox) {
      args.addAll(List.of("--publication.reconcile-interval.ms", "3000"));
    }
    return args;
  }

  /** Declares the tables and creates each at version 1 with {@link #INITIAL_ROWS} rows (no faults yet). */
  private List<ChaosTable> createTables(CoordinatorClient client, ObjectStores stores,
      Map<String, String> lanceStorageOptions) {
    expectOk(client.postJson("/v1/namespace/" + NAMESPACE + "/create", "{}"), "CreateNamespace", 409);
    List<ChaosTable> tables = new ArrayList<>();
    for (int i = 0; i < options.tables(); i++) {
      List<String> id = List.of(NAMESPACE, "t" + i);
      CoordinatorClient.Answer declared = expectOk(
          client.postJson("/v1/table/" + CoordinatorClient.joined(id) + "/declare", "{}"), "DeclareTable", -1);
      String location = declared.body().get("location").asText();
      ChaosTable table = new ChaosTable(id, location, lanceStorageOptions, stores, INITIAL_ROWS);
      resources.push(table);
      PlannedCommit create = TransactionPlanner.create(table, INITIAL_ROWS);
      ledger.sent(create);
      CommitOutcome outcome = client.commit(id, create.transaction());
      if (outcome.kind() != CommitOutcome.Kind.COMMITTED || outcome.version() != 1) {
        throw new IllegalStateException("could not create " + table + ": " + outcome);
      }
      ledger.acknowledged(create, 1);
      tables.add(table);
      log("created " + table);
    }
    return tables;
  }

  private ExecutorService startWriters(List<ChaosTable> tables, CoordinatorClient client, RunControl control) {
    AtomicInteger counter = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(options.writers(), r -> {
      Thread t = new Thread(r, "chaos-writer-" + counter.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    for (int w = 0; w < options.writers(); w++) {
      Random random = new Random(options.seed() * 1_000_003L + w);
      pool.execute(new ChaosWriter(tables, client, ledger, random, control));
    }
    return pool;
  }

  private static CoordinatorClient.Answer expectOk(CoordinatorClient.Answer answer, String call, int alsoFine) {
    if (answer.status() != 200 && answer.status() != alsoFine) {
      throw new IllegalStateException(call + " failed: " + answer);
    }
    return answer;
  }

  private void closeAll() {
    while (!resources.isEmpty()) {
      AutoCloseable resource = resources.pop();
      try {
        resource.close();
      } catch (Exception e) {
        log("error while closing " + resource.getClass().getSimpleName() + ": " + e);
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /** Library loggers (s3proxy, Jetty, Kafka clients, Arrow) default to DEBUG without a config file. */
  static void quietLogging() {
    org.slf4j.Logger root = org.slf4j.LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    if (root instanceof ch.qos.logback.classic.Logger logback) {
      logback.setLevel(ch.qos.logback.classic.Level.WARN);
      // clients log every refused connection while the broker is down on purpose
      ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger("org.apache.kafka"))
          .setLevel(ch.qos.logback.classic.Level.ERROR);
    }
  }

  private void log(String message) {
    System.err.printf(java.util.Locale.ROOT, "[chaos %6.1fs] %s%n", faults.elapsed().toMillis() / 1000.0, message);
  }

  private static void deleteRecursively(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // best effort: a temp dir
    }
  }
}
