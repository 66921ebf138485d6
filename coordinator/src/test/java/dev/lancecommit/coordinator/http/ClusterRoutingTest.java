package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.coordinator.auth.AccessControl;
import dev.lancecommit.coordinator.auth.AuthConfig;
import dev.lancecommit.coordinator.cluster.ForwardSigner;
import dev.lancecommit.coordinator.cluster.Route;
import dev.lancecommit.coordinator.cluster.TableOwnership;
import dev.lancecommit.coordinator.commit.CommitEventSink;
import dev.lancecommit.coordinator.commit.CommitService;
import dev.lancecommit.coordinator.commit.CommitSettings;
import dev.lancecommit.coordinator.commit.LaneCommitService;
import dev.lancecommit.coordinator.commit.TableNotOwnedException;
import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.storage.ObjectStores;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.WriterVersions;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.HandMadeTransactions;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Forwarding between instances, over real servers and real commit lanes on one warehouse, with the ownership view
 * scripted by the test (the seam {@link TableOwnership}; {@code ClusterMembershipTest} covers the Kafka side): a
 * commit reaching a non-owner is served by the owner and answered as if local, the principal and trace context travel
 * and nothing else of the caller's credentials does, forged forwarded principals are refused, requests wait for an
 * owner (bounded), never circle, and a commit a lane hands back goes to the new owner.
 */
class ClusterRoutingTest {
  private static final String SECRET = "the-cluster-secret-0123";
  private static final String TABLE = "sales$orders";
  private static final String COMMIT = "/v1/table/" + TABLE + "/commit";
  private static final Duration OWNER_WAIT = Duration.ofSeconds(3);

  @TempDir Path tempDir;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).build();
  private final HandMadeTransactions txns = new HandMadeTransactions();
  private final List<Instance> instances = new ArrayList<>();
  private Vertx vertx;
  private ObjectStores stores;
  private ExecutorService workers;
  private Instance a;
  private Instance b;
  private Instance c;

  /** An ownership view the test sets: per table key, the owner's URL (or none), and a generation. */
  static final class ScriptedOwnership implements TableOwnership {
    final String self;
    final Map<String, String> owners = new ConcurrentHashMap<>();
    volatile int generation = 1;
    /** Runs once inside the next look at {@link #TABLE}'s route, after the look has read the old owner. */
    volatile Runnable duringNextLook;
    private final AtomicReference<CompletableFuture<Void>> next = new AtomicReference<>(new CompletableFuture<>());

    ScriptedOwnership(String self) {
      this.self = self;
    }

    void set(String key, String owner, int generationId) {
      if (owner == null) {
        owners.remove(key);
      } else {
        owners.put(key, owner);
      }
      generation = generationId;
      next.getAndSet(new CompletableFuture<>()).complete(null);
    }

    @Override
    public Route route(String tableKey) {
      String owner = owners.get(tableKey);
      Route seen = owner == null ? new Route.Unowned(0, "partition 0 has no owner while the cluster rebalances")
          : owner.equals(self) ? new Route.Local(0) : new Route.Remote(0, owner, generation);
      Runnable during = duringNextLook;
      if (during != null && tableKey.equals(TABLE)) {
        duringNextLook = null;
        during.run();
      }
      return seen;
    }

    @Override
    public boolean serves(String tableKey) {
      return route(tableKey) instanceof Route.Local;
    }

    @Override
    public boolean publishes(String tableKey) {
      return serves(tableKey);
    }

    @Override
    public CompletableFuture<Void> changed() {
      return next.get();
    }

    @Override
    public int generation() {
      return generation;
    }

    @Override
    public String self() {
      return self;
    }

    @Override
    public Map<String, Object> status() {
      return Map.of("member", self, "generation", generation);
    }
  }

  /** A commit the instance's own commit service ran. */
  record Served(String instance, String actor, TableRef table) {}

  /** One coordinator instance: its own catalog object and lanes over the shared warehouse. */
  final class Instance {
    final String name;
    final int port;
    final String url;
    final ScriptedOwnership ownership;
    final List<Served> served;
    final List<Map<String, List<String>>> commitHeaders = new CopyOnWriteArrayList<>();
    final RestServer server;
    volatile java.util.function.Function<TableRef, RuntimeException> refuse = table -> null;

    Instance(String name, List<Served> served, AccessControl access) throws Exception {
      this.name = name;
      this.port = freePort();
      this.url = "http://127.0.0.1:" + port;
      this.ownership = new ScriptedOwnership(url);
      this.served = served;
      Catalog catalog = new Catalog(stores.resolve(tempDir.resolve("warehouse").toString()), Duration.ZERO,
          Clock.systemUTC());
      LaneCommitService lanes = new LaneCommitService(stores::resolve, new CommitSettings(100, 10, 3, 64,
          WriterVersions.coordinator(), "2.1", ManifestNaming.Scheme.V2).withVerifyFiles(false), // hand-made files
          CommitEventSink.discard(), workers,
          Clock.systemUTC(), Duration.ofMinutes(5));
      CommitService recorded = (table, request) -> {
        RuntimeException refused = refuse.apply(table);
        if (refused != null) {
          return CompletableFuture.failedFuture(refused);
        }
        served.add(new Served(name, request.actor(), table));
        return lanes.commit(table, request);
      };
      server = new RestServer(vertx, catalog, recorded, RestServerOptions.builder()
          .blockingExecutor(workers).tableStorage(stores::resolve).accessControl(access)
          .cluster(new ClusterOptions(ownership, new ForwardSigner(SECRET), OWNER_WAIT, Duration.ofSeconds(30),
              Duration.ofSeconds(1), 3, 8))
          .build());
      server.router().post("/v1/table/:id/commit").order(-1).handler(ctx -> {
        Map<String, List<String>> headers = new java.util.TreeMap<>();
        ctx.request().headers().forEach(h -> headers.computeIfAbsent(h.getKey().toLowerCase(java.util.Locale.ROOT),
            k -> new ArrayList<>()).add(h.getValue()));
        commitHeaders.add(headers);
        ctx.next();
      });
      server.start("127.0.0.1", port).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      instances.add(this);
    }
  }

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    stores = new ObjectStores(null);
    workers = Executors.newFixedThreadPool(8);
  }

  private void startOpenCluster() throws Exception {
    List<Served> served = new CopyOnWriteArrayList<>();
    a = new Instance("a", served, AccessControl.disabled());
    b = new Instance("b", served, AccessControl.disabled());
    c = new Instance("c", served, AccessControl.disabled());
    own(TABLE, b, 1); // declaring is a table-scoped catalog write: it goes to the owner too
    assertThat(post(a, "/v1/namespace/sales/create", "{}").status()).isEqualTo(200);
    assertThat(post(a, "/v1/table/" + TABLE + "/declare", "{}").status()).isEqualTo(200);
  }

  /** Every instance's view: {@code owner} owns {@code key} as of {@code generation}. */
  private void own(String key, Instance owner, int generation) {
    for (Instance instance : instances) {
      instance.ownership.set(key, owner == null ? null : owner.url, generation);
    }
  }

  @AfterEach
  void stop() throws Exception {
    for (Instance instance : instances) {
      instance.server.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
    vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    workers.shutdownNow();
    stores.close();
  }

  record Reply(int status, String body, HttpHeaders headers, long millis) {
    JsonObject json() {
      return new JsonObject(body);
    }
  }

  private Reply post(Instance to, String path, String json, String... headers) {
    return send(to, path, HttpRequest.BodyPublishers.ofString(json), "application/json", headers);
  }

  private Reply commit(Instance to, Transaction txn, String... headers) {
    return send(to, COMMIT, HttpRequest.BodyPublishers.ofByteArray(txn.toByteArray()), "application/x-protobuf",
        headers);
  }

  private Reply send(Instance to, String path, HttpRequest.BodyPublisher body, String contentType,
      String... headers) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(to.url + path))
        .timeout(Duration.ofSeconds(60)).header("content-type", contentType).POST(body);
    for (int i = 0; i + 1 < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    long start = System.nanoTime();
    try {
      HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      return new Reply(response.statusCode(), response.body(), response.headers(),
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private long latestVersion() {
    TableRef ref = instances.get(0).served.stream().findFirst().map(Served::table).orElseThrow();
    return TableOperations.of(stores.resolve(ref.location())).versions().latest().orElse(0L);
  }

  @Test
  void theJavaClientSendsATablesCommitsStraightToTheOwnerItWasTold() throws Exception {
    startOpenCluster();
    dev.lancecommit.client.TableId table = dev.lancecommit.client.TableId.of("sales", "orders");
    try (dev.lancecommit.client.CommitClient client = dev.lancecommit.client.CommitClient.builder().uri(a.url)
        .build()) {
      assertThat(client.commit(table, txns.create().toByteArray()).version()).isEqualTo(1);
      assertThat(client.commit(table, txns.append(1).toByteArray()).version()).isEqualTo(2);
      assertThat(client.commit(table, txns.append(2).toByteArray()).version()).isEqualTo(3);
      // a's answer named b: from the second commit on, b directly
      assertThat(a.commitHeaders).hasSize(1);
      assertThat(b.commitHeaders).extracting(h -> h.containsKey(ForwardSigner.SENDER))
          .containsExactly(true, false, false);

      own(TABLE, c, 2); // the table moves: b forwards the next commit to c and names it, the one after goes to c
      assertThat(client.commit(table, txns.append(3).toByteArray()).version()).isEqualTo(4);
      assertThat(client.commit(table, txns.append(4).toByteArray()).version()).isEqualTo(5);
      assertThat(b.commitHeaders).hasSize(4);
      assertThat(c.commitHeaders).extracting(h -> h.containsKey(ForwardSigner.SENDER)).containsExactly(true, false);

      // c goes away and b owns the table again: the commit goes to the configured URL, which forwards it to b
      own(TABLE, b, 3);
      c.server.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      instances.remove(c);
      assertThat(client.commit(table, txns.append(5).toByteArray()).version()).isEqualTo(6);
      assertThat(a.commitHeaders).hasSize(2);
      assertThat(b.commitHeaders).hasSize(5);
      assertThat(client.commit(table, txns.append(6).toByteArray()).version()).isEqualTo(7);
      assertThat(b.commitHeaders).extracting(h -> h.containsKey(ForwardSigner.SENDER)).endsWith(true, false);
    }
    assertThat(latestVersion()).isEqualTo(7);

    try (dev.lancecommit.client.CommitClient client = dev.lancecommit.client.CommitClient.builder().uri(a.url)
        .routeToOwner(false).build()) {
      client.commit(table, txns.append(7).toByteArray());
      client.commit(table, txns.append(8).toByteArray());
      assertThat(a.commitHeaders).hasSize(4); // both through a
    }
  }

  @Test
  void aCommitReachingANonOwnerIsServedByTheOwnerAndAnsweredAsIfLocal() throws Exception {
    startOpenCluster();
    Reply created = commit(a, txns.create());
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    assertThat(created.json().getLong("version")).isEqualTo(1L);
    assertThat(created.headers().firstValue("content-type")).hasValue("application/json");
    assertThat(created.headers().firstValue(ForwardSigner.SERVED_BY)).hasValue(b.url);

    Reply appended = commit(c, txns.append(1));
    assertThat(appended.status()).isEqualTo(200);
    assertThat(appended.json().getLong("version")).isEqualTo(2L);
    Reply local = commit(b, txns.append(2));
    assertThat(local.status()).isEqualTo(200);
    assertThat(local.headers().firstValue(ForwardSigner.SERVED_BY)).isEmpty(); // answered where it arrived

    assertThat(b.served).extracting(Served::instance).containsExactly("b", "b", "b"); // one list for all
    assertThat(latestVersion()).isEqualTo(3);

    // an error is relayed as the owner gave it: the same status and body as asking the owner directly
    byte[] garbage = {0x08, 0x05, 0x12, 0x24, 0x00, (byte) 0xff, 0x7f};
    Reply forwarded = send(a, COMMIT, HttpRequest.BodyPublishers.ofByteArray(garbage), "application/x-protobuf");
    Reply direct = send(b, COMMIT, HttpRequest.BodyPublishers.ofByteArray(garbage), "application/x-protobuf");
    assertThat(forwarded.status()).isEqualTo(direct.status()).isEqualTo(400);
    assertThat(forwarded.json()).isEqualTo(direct.json());
    assertThat(forwarded.headers().firstValue("content-type")).isEqualTo(direct.headers().firstValue("content-type"));
    assertThat(forwarded.headers().firstValue(ForwardSigner.SERVED_BY)).hasValue(b.url);

    // forwards answered in a quiet cluster leave nothing waiting on the next ownership change (a callback per
    // forward on the shared future held every request until a rebalance)
    for (int i = 0; i < 50; i++) {
      assertThat(send(a, COMMIT, HttpRequest.BodyPublishers.ofByteArray(garbage), "application/x-protobuf").status())
          .isEqualTo(400);
    }
    assertThat(a.ownership.changed().getNumberOfDependents()).isLessThanOrEqualTo(1);
  }

  /**
   * An atomic batch is served where all of its tables are owned: locally, or forwarded to that one owner; when
   * different instances own its tables it is coordinated where it arrived (its lanes are then held on their owners,
   * proven in ClusterBatchTest); it waits (bounded) while one of them has no owner. (These instances have no batch
   * coordinator, so the route itself answers 501 "not supported": the served-by header shows where it ran.)
   */
  @Test
  void aBatchIsServedWhereAllItsTablesAreOwnedAndWhereItArrivedWhenTheyAreOwnedApart() throws Exception {
    startOpenCluster();
    String returns = "sales$returns";
    String batch = new JsonObject().put("entries", new io.vertx.core.json.JsonArray()
        .add(new JsonObject().put("id", List.of("sales", "orders")).put("version", 2))
        .add(new JsonObject().put("id", List.of("sales", "returns")).put("version", 2))).encode();
    String commitBatch = new JsonObject().put("operations", new io.vertx.core.json.JsonArray()
        .add(new JsonObject().put("create_table_version", new JsonObject().put("id", List.of("sales", "orders"))))
        .add(new JsonObject().put("create_table_version", new JsonObject().put("id", List.of("sales", "returns")))))
        .encode();

    own(returns, c, 2); // orders: b, returns: c
    for (String[] call : List.of(new String[] {"/v1/table/version/batch-create", batch},
        new String[] {"/v1/table/batch-commit", commitBatch})) {
      Reply apart = post(a, call[0], call[1]);
      assertThat(apart.json().getString("error")).as(apart.body()).contains(call[0].endsWith("batch-create")
          ? "BatchCreateTableVersions" : "BatchCommitTables"); // the route ran here, on a
      assertThat(apart.headers().firstValue(ForwardSigner.SERVED_BY)).isEmpty();
    }

    own(returns, b, 3); // both: b
    Reply forwarded = post(a, "/v1/table/version/batch-create", batch);
    assertThat(forwarded.headers().firstValue(ForwardSigner.SERVED_BY)).hasValue(b.url);
    assertThat(forwarded.json().getString("error")).contains("BatchCreateTableVersions");
    Reply local = post(b, "/v1/table/batch-commit", commitBatch);
    assertThat(local.headers().firstValue(ForwardSigner.SERVED_BY)).isEmpty();
    assertThat(local.json().getString("error")).contains("BatchCommitTables");

    own(returns, null, 4); // returns has no owner: the batch waits for one, bounded
    Reply waited = post(a, "/v1/table/version/batch-create", batch);
    assertThat(waited.status()).as(waited.body()).isEqualTo(503);
    assertThat(waited.json().getInteger("code")).isEqualTo(17);
    assertThat(waited.millis()).isGreaterThanOrEqualTo(OWNER_WAIT.toMillis() - 100);
  }

  @Test
  void theCallersPrincipalAndTraceContextTravelButNotItsCredentials() throws Exception {
    AccessControl access = AuthConfig.parse(Map.of(
        "auth.enabled", "true",
        "auth.principals.alice.api-key", "k-alice",
        "auth.principals.bob.token", "t-bob",
        "auth.principals.admin.token", "t-admin",
        "auth.grants.admin", "$:admin",
        "auth.grants.alice", "sales:commit",
        "auth.grants.bob", "sales$orders:read")).accessControl();
    List<Served> served = new CopyOnWriteArrayList<>();
    a = new Instance("a", served, access);
    b = new Instance("b", served, access);
    own(TABLE, b, 1);
    assertThat(post(a, "/v1/namespace/sales/create", "{}", "Authorization", "Bearer t-admin").status())
        .isEqualTo(200);
    assertThat(post(a, "/v1/table/" + TABLE + "/declare", "{}", "Authorization", "Bearer t-admin").status())
        .isEqualTo(200);

    String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    Reply created = commit(a, txns.create(), "x-api-key", "k-alice", "traceparent", traceparent,
        "tracestate", "vendor=x");
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    assertThat(served).containsExactly(new Served("b", "alice", served.get(0).table()));
    Map<String, List<String>> atOwner = b.commitHeaders.get(b.commitHeaders.size() - 1);
    assertThat(atOwner.get("traceparent")).containsExactly(traceparent);
    assertThat(atOwner.get("tracestate")).containsExactly("vendor=x");
    assertThat(atOwner.get(ForwardSigner.PRINCIPAL)).containsExactly("alice");
    assertThat(atOwner).doesNotContainKeys("x-api-key", "authorization");

    // refused where it arrives: bad credentials never travel; grants are the owner's to check, as on one instance
    Reply unauthenticated = commit(a, txns.append(1), "x-api-key", "wrong");
    assertThat(unauthenticated.status()).isEqualTo(401);
    Reply denied = commit(a, txns.append(1), "Authorization", "Bearer t-bob");
    assertThat(denied.status()).isEqualTo(403);
    assertThat(served).hasSize(1);
  }

  @Test
  void aForwardedPrincipalWithoutAValidSignatureIsRefused() throws Exception {
    startOpenCluster();
    byte[] body = txns.create().toByteArray();
    // no signature at all
    assertThat(send(b, COMMIT, HttpRequest.BodyPublishers.ofByteArray(body), "application/x-protobuf",
        ForwardSigner.PRINCIPAL, "admin").status()).isEqualTo(401);
    // signed with another secret
    ForwardSigner other = new ForwardSigner("not-the-cluster-secret");
    ForwardSigner.Forwarded call = new ForwardSigner.Forwarded("admin", 1, 1000, 1, a.url);
    long now = System.currentTimeMillis();
    Reply forged = send(b, COMMIT, HttpRequest.BodyPublishers.ofByteArray(body), "application/x-protobuf",
        ForwardSigner.PRINCIPAL, "admin", ForwardSigner.HOPS, "1", ForwardSigner.WAIT_MS, "1000",
        ForwardSigner.GENERATION, "1", ForwardSigner.SENDER, a.url, ForwardSigner.TIMESTAMP, Long.toString(now),
        ForwardSigner.SIGNATURE, other.sign("POST", COMMIT, call, now, body));
    assertThat(forged.status()).isEqualTo(401);
    assertThat(forged.json().getInteger("code")).isEqualTo(16);
    assertThat(forged.json().getString("detail")).contains("signature does not match");
    // signed with the right secret but over other bytes
    Reply tampered = send(b, COMMIT, HttpRequest.BodyPublishers.ofByteArray(txns.create().toByteArray()),
        "application/x-protobuf", ForwardSigner.PRINCIPAL, "admin", ForwardSigner.HOPS, "1",
        ForwardSigner.WAIT_MS, "1000", ForwardSigner.GENERATION, "1", ForwardSigner.SENDER, a.url,
        ForwardSigner.TIMESTAMP, Long.toString(now),
        ForwardSigner.SIGNATURE, new ForwardSigner(SECRET).sign("POST", COMMIT, call, now, body));
    assertThat(tampered.status()).isEqualTo(401);
    assertThat(b.served).isEmpty(); // shared by all instances: nobody committed
  }

  @Test
  void aRequestWaitsForAnOwnerAndIsAnsweredWhenOneAppears() throws Exception {
    startOpenCluster();
    own(TABLE, null, 2); // a rebalance: nobody owns the table
    CompletableFuture<Reply> waiting = CompletableFuture.supplyAsync(() -> commit(a, txns.create()));
    Thread.sleep(700);
    assertThat(waiting).isNotDone();
    own(TABLE, c, 3);
    Reply reply = waiting.get(30, TimeUnit.SECONDS);
    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    assertThat(reply.millis()).isGreaterThanOrEqualTo(700);
    assertThat(reply.headers().firstValue(ForwardSigner.SERVED_BY)).hasValue(c.url);
  }

  @Test
  void aRequestThatFindsNoOwnerInTimeIs503WithTheReason() throws Exception {
    startOpenCluster();
    own(TABLE, null, 2);
    Reply reply = commit(a, txns.create());
    assertThat(reply.status()).isEqualTo(503);
    assertThat(reply.json().getInteger("code")).isEqualTo(17);
    assertThat(reply.json().getString("detail")).contains("no owner while the cluster rebalances")
        .contains("cluster.owner-wait.ms");
    assertThat(reply.millis()).isGreaterThanOrEqualTo(OWNER_WAIT.toMillis() - 100);
    assertThat(a.served).isEmpty(); // shared by all instances: nobody committed
  }

  @Test
  void anOwnerThatCannotBeReachedIsWaitedOut() throws Exception {
    startOpenCluster();
    int dead = freePort();
    for (Instance instance : instances) {
      instance.ownership.set(TABLE, "http://127.0.0.1:" + dead, 2); // an owner that was killed
    }
    CompletableFuture<Reply> waiting = CompletableFuture.supplyAsync(() -> commit(a, txns.create()));
    Thread.sleep(800);
    assertThat(waiting).isNotDone();
    own(TABLE, b, 3); // its session ran out, the table went to b
    Reply reply = waiting.get(30, TimeUnit.SECONDS);
    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    assertThat(reply.headers().firstValue(ForwardSigner.SERVED_BY)).hasValue(b.url);
  }

  @Test
  void aChangeLandingWhileTheWaitingRequestLooksAtTheOwnershipIsNotMissed() throws Exception {
    startOpenCluster();
    assertThat(commit(b, txns.create()).status()).isEqualTo(200);
    CountDownLatch reached = new CountDownLatch(1);
    try (ServerSocket paused = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread accepting = new Thread(() -> { // an owner stopped with SIGSTOP: the kernel accepts, nobody answers
        List<Socket> held = new ArrayList<>();
        try {
          while (true) {
            Socket socket = paused.accept();
            held.add(socket);
            reached.countDown();
          }
        } catch (IOException closed) {
          held.forEach(socket -> {
            try {
              socket.close();
            } catch (IOException ignored) {
              // closing
            }
          });
        }
      });
      accepting.start();
      String pausedUrl = "http://127.0.0.1:" + paused.getLocalPort();
      for (Instance instance : instances) {
        instance.ownership.set(TABLE, pausedUrl, 2);
      }
      CompletableFuture<Reply> waiting = CompletableFuture.supplyAsync(() -> commit(a, txns.append(1)));
      assertThat(reached.await(10, TimeUnit.SECONDS)).isTrue();
      b.ownership.set(TABLE, b.url, 4);
      c.ownership.set(TABLE, b.url, 4);
      // The membership signals the new map, then the partition it assigns: the second signal lands while the request
      // looks at the first one.
      a.ownership.duringNextLook = () -> a.ownership.set(TABLE, b.url, 4);
      a.ownership.set(TABLE, null, 3);
      Reply reply = waiting.get(60, TimeUnit.SECONDS);
      assertThat(reply.status()).as(reply.body()).isEqualTo(200);
      assertThat(reply.headers().firstValue(ForwardSigner.SERVED_BY)).hasValue(b.url);
      // sent on after the moved-owner grace, not after the forward to the silent owner timed out (30 s)
      assertThat(reply.millis()).isLessThan(TimeUnit.SECONDS.toMillis(20));
    }
  }

  @Test
  void requestsNeverCircleBetweenInstancesThatDisagree() throws Exception {
    startOpenCluster();
    a.ownership.set(TABLE, b.url, 5); // a thinks b owns it, b thinks a does: at most max-hops forwards, then 503
    b.ownership.set(TABLE, a.url, 5);
    Reply reply = commit(a, txns.create());
    assertThat(reply.status()).isEqualTo(503);
    assertThat(reply.json().getString("detail")).contains("forwarded 3 times");
    int arrivals = a.commitHeaders.size() + b.commitHeaders.size();
    assertThat(arrivals).isEqualTo(4); // the client's request plus three forwards
    assertThat(a.served).isEmpty(); // shared by all instances: nobody committed
  }

  @Test
  void anInstanceBehindTheSendersGenerationWaitsForItsOwnMapInsteadOfSendingItBack() throws Exception {
    startOpenCluster();
    a.ownership.set(TABLE, b.url, 7); // a has seen generation 7: b owns it
    b.ownership.set(TABLE, a.url, 6); // b still holds generation 6, in which a did
    CompletableFuture<Reply> waiting = CompletableFuture.supplyAsync(() -> commit(a, txns.create()));
    Thread.sleep(600);
    assertThat(waiting).isNotDone();
    assertThat(a.commitHeaders).hasSize(1); // b did not send it back
    b.ownership.set(TABLE, b.url, 7);
    Reply reply = waiting.get(30, TimeUnit.SECONDS);
    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    assertThat(b.served).extracting(Served::instance).containsExactly("b");
  }

  @Test
  void aCommitTheLaneHandsBackGoesToTheNewOwnerAndIsWrittenOnce() throws Exception {
    startOpenCluster();
    assertThat(commit(b, txns.create()).status()).isEqualTo(200);
    AtomicBoolean once = new AtomicBoolean();
    b.refuse = table -> {
      if (!once.compareAndSet(false, true)) {
        return null;
      }
      own(TABLE, c, 2); // b lost the table while the commit was on its way to the lane
      return new TableNotOwnedException("no longer owned");
    };
    Reply reply = commit(a, txns.append(1));
    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    assertThat(reply.json().getLong("version")).isEqualTo(2L);
    assertThat(reply.headers().firstValue(ForwardSigner.SERVED_BY)).hasValue(c.url);
    assertThat(c.served).extracting(Served::instance).containsExactly("b", "c"); // one list for all
    assertThat(latestVersion()).isEqualTo(2);
  }

  @Test
  void tableScopedCatalogWritesGoToTheOwnerAndReadsStayLocal() throws Exception {
    startOpenCluster();
    own("sales$returns", c, 1);
    Reply declared = post(a, "/v1/table/sales$returns/declare", "{}");
    assertThat(declared.status()).isEqualTo(200);
    assertThat(declared.headers().firstValue(ForwardSigner.SERVED_BY)).hasValue(c.url);
    Reply described = post(a, "/v1/table/sales$returns/describe", "{}");
    assertThat(described.status()).isEqualTo(200);
    assertThat(described.headers().firstValue(ForwardSigner.SERVED_BY)).isEmpty();
  }

  @Test
  void healthReportsTheMembership() throws Exception {
    startOpenCluster();
    HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create(a.url + "/healthz")).GET().build(),
        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    assertThat(new JsonObject(health.body()).getJsonObject("cluster").getString("member")).isEqualTo(a.url);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
