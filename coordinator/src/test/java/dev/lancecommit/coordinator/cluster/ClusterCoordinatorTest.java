package dev.lancecommit.coordinator.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lancecommit.coordinator.Coordinator;
import dev.lancecommit.coordinator.CoordinatorConfig;
import dev.lancecommit.e2e.CommitApi;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.CommitEventReader;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.HandMadeTransactions;
import dev.lancecommit.testing.kafka.KafkaBrokerFixture;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several coordinators in one JVM on one warehouse and one Kafka cluster, in cluster mode: every instance answers
 * every table's commits, one instance writes each table, an instance that stops hands its tables over with nothing
 * lost, and every version has its event. (Killing and pausing processes is in chaos-tests.)
 */
class ClusterCoordinatorTest {
  @RegisterExtension static final KafkaBrokerFixture KAFKA = new KafkaBrokerFixture();
  private static final int PARTITIONS = 6;

  @TempDir Path dir;
  private final String topic = "cluster-e2e-" + UUID.randomUUID();
  private final String group = "cluster-e2e-" + UUID.randomUUID();
  private final List<Coordinator> running = new ArrayList<>();
  private final HandMadeTransactions txns = new HandMadeTransactions();

  @AfterEach
  void stopAll() {
    running.forEach(Coordinator::close);
  }

  private Coordinator start() throws IOException {
    int port = freePort();
    Coordinator coordinator = Coordinator.start(CoordinatorConfig.builder()
        .host("127.0.0.1")
        .port(port)
        .warehouse(dir.resolve("warehouse").toString())
        .kafka(KAFKA.bootstrapServers())
        .topic(topic)
        .set("kafka.topic.partitions", Integer.toString(PARTITIONS))
        .set("publication.reconcile-interval.ms", "2000")
        .set("publication.live-grace.ms", "1000")
        .set(CoordinatorConfig.COMMIT_VERIFY_FILES, "false") // hand-made transactions name files never written
        .set("cluster.enabled", "true")
        .set("cluster.advertised-url", "http://127.0.0.1:" + port)
        .set("cluster.secret", "cluster-secret-for-tests")
        .set("cluster.group", group)
        .build());
    running.add(coordinator);
    return coordinator;
  }

  private static void awaitSettled(List<Coordinator> coordinators) {
    InProcessClusters.awaitSettled(coordinators, PARTITIONS);
  }

  private static Coordinator ownerOf(List<Coordinator> coordinators, List<String> table) {
    return InProcessClusters.ownerOf(coordinators, String.join("$", table));
  }

  private static void assertEveryVersionHasItsEvent(String bootstrap, String topic, List<String> table, long latest) {
    try (CommitEventReader reader = new CommitEventReader(bootstrap, topic)) {
      List<CommitEvent> events = reader.readTable(table, (int) latest, Duration.ofSeconds(60));
      Set<Long> versions = events.stream().map(CommitEvent::version).collect(Collectors.toCollection(TreeSet::new));
      assertThat(versions).as("versions with an event of %s", table)
          .containsExactlyElementsOf(LongStream.rangeClosed(1, latest).boxed().toList());
    }
  }

  @Test
  void everyInstanceServesEveryTableAndEachTableHasOneWriter() throws Exception {
    List<Coordinator> cluster = List.of(start(), start(), start());
    awaitSettled(cluster);
    List<CommitApi> apis = cluster.stream().map(c -> new CommitApi(c.restUrl())).toList();
    apis.get(0).createNamespace("sales");
    List<List<String>> tables = List.of(List.of("sales", "a"), List.of("sales", "b"), List.of("sales", "c"),
        List.of("sales", "d"));
    for (int i = 0; i < tables.size(); i++) {
      apis.get(i % 3).declareTable(tables.get(i));
    }
    for (List<String> table : tables) {
      assertThat(apis.get(1).commit(table, txns.create()).version()).isEqualTo(1);
      for (int v = 1; v <= 6; v++) {
        CommitApi.Response r = apis.get(v % 3).commit(table, txns.append(v));
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        assertThat(r.version()).isEqualTo(v + 1);
      }
      // a read is answered wherever it arrives, from the shared warehouse
      for (CommitApi api : apis) {
        assertThat(api.latestVersion(table)).isEqualTo(7);
      }
    }
    for (List<String> table : tables) {
      assertEveryVersionHasItsEvent(KAFKA.bootstrapServers(), topic, table, 7);
    }
    Set<String> owners = tables.stream().map(t -> ownerOf(cluster, t).restUrl()).collect(Collectors.toSet());
    assertThat(owners).isNotEmpty();
  }

  /**
   * Every instance is ready only as a member (the {@code cluster} check of /readyz) and shows its membership on
   * /healthz; a branch made on an instance that does not own the table (its first version is a commit), a tag and a
   * schema metadata change (a commit) are served by the owner, where the table's lanes and ref permits are.
   */
  @Test
  void readinessNamesTheMembershipAndRefChangesGoToTheOwner() throws Exception {
    List<Coordinator> cluster = List.of(start(), start(), start());
    awaitSettled(cluster);
    HttpClient http = HttpClient.newHttpClient();
    for (Coordinator c : cluster) {
      HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create(c.restUrl() + "/readyz")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
      JsonObject check = new JsonObject(ready.body()).getJsonObject("checks").getJsonObject("cluster");
      assertThat(check.getString("status")).isEqualTo("up");
      assertThat(check.getBoolean("required")).isTrue();
      JsonObject health = new JsonObject(http.send(HttpRequest.newBuilder(URI.create(c.restUrl() + "/healthz"))
          .build(), HttpResponse.BodyHandlers.ofString()).body()).getJsonObject("cluster");
      assertThat(health.getString("member")).isEqualTo(c.restUrl());
      assertThat(health.getJsonObject("owners").size()).isEqualTo(PARTITIONS);
    }

    List<String> table = List.of("sales", "refs");
    CommitApi api = new CommitApi(cluster.get(0).restUrl());
    api.createNamespace("sales");
    api.declareTable(table);
    assertThat(api.commit(table, txns.create()).version()).isEqualTo(1);
    assertThat(api.commit(table, txns.append(1)).version()).isEqualTo(2);
    Coordinator owner = ownerOf(cluster, table);
    Coordinator elsewhere = cluster.stream().filter(c -> c != owner).findFirst().orElseThrow();
    String base = elsewhere.restUrl() + "/v1/table/" + String.join("$", table);
    HttpResponse<String> branch = http.send(HttpRequest.newBuilder(URI.create(base + "/branches/create"))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"name\": \"dev\", \"from_version\": 2}")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(branch.statusCode()).as(branch.body()).isEqualTo(200);
    assertThat(branch.headers().firstValue("x-lcc-served-by")).contains(owner.restUrl());
    HttpResponse<String> tag = http.send(HttpRequest.newBuilder(URI.create(base + "/tags/create"))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"tag\": \"v2\", \"version\": 2}")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(tag.statusCode()).as(tag.body()).isEqualTo(200);
    assertThat(tag.headers().firstValue("x-lcc-served-by")).contains(owner.restUrl());
    // a metadata-only schema change is a commit through the owner's lane too
    HttpResponse<String> metadata = http.send(HttpRequest.newBuilder(URI.create(base + "/schema_metadata/update"))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"owner\": \"sales\"}")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(metadata.statusCode()).as(metadata.body()).isEqualTo(200);
    assertThat(metadata.headers().firstValue("x-lcc-served-by")).contains(owner.restUrl());
    assertThat(api.latestVersion(table)).isEqualTo(3);
    // read where it arrives: the tag is in the shared warehouse
    HttpResponse<String> tagged = http.send(HttpRequest.newBuilder(URI.create(base + "/tags/version"))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"tag\": \"v2\"}")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(tagged.statusCode()).as(tagged.body()).isEqualTo(200);
    assertThat(tagged.headers().firstValue("x-lcc-served-by")).isEmpty();
    assertThat(new JsonObject(tagged.body()).getLong("version")).isEqualTo(2);
  }

  @Test
  void resubmittingTheSameBytesToAnyInstanceGetsTheSameAnswerAndWritesNothing() throws Exception {
    List<Coordinator> cluster = List.of(start(), start(), start());
    awaitSettled(cluster);
    List<CommitApi> apis = cluster.stream().map(c -> new CommitApi(c.restUrl())).toList();
    List<String> table = List.of("ns", "t");
    apis.get(0).createNamespace("ns");
    apis.get(0).declareTable(table);
    assertThat(apis.get(0).commit(table, txns.create()).status()).isEqualTo(200);
    Transaction append = txns.append(1);
    CommitApi.Response first = apis.get(1).commit(table, append);
    assertThat(first.version()).isEqualTo(2);
    for (CommitApi api : apis) {
      CommitApi.Response again = api.commit(table, append);
      assertThat(again.status()).isEqualTo(200);
      assertThat(again.body()).isEqualTo(first.body());
    }
    assertThat(apis.get(2).latestVersion(table)).isEqualTo(2);
  }

  @Test
  void anOwnerThatStopsHandsItsTablesOverWhileWritersGoOnAndNothingIsLost() throws Exception {
    List<Coordinator> cluster = new ArrayList<>(List.of(start(), start(), start()));
    awaitSettled(cluster);
    List<String> table = List.of("ns", "busy");
    CommitApi first = new CommitApi(cluster.get(0).restUrl());
    first.createNamespace("ns");
    first.declareTable(table);
    assertThat(first.commit(table, txns.create()).status()).isEqualTo(200);
    Coordinator owner = ownerOf(cluster, table);
    List<Coordinator> others = cluster.stream().filter(c -> c != owner).toList();

    AtomicBoolean stop = new AtomicBoolean();
    List<Long> acknowledged = java.util.Collections.synchronizedList(new ArrayList<>());
    List<String> acknowledgedUuids = java.util.Collections.synchronizedList(new ArrayList<>());
    List<String> unexpected = java.util.Collections.synchronizedList(new ArrayList<>());
    List<CompletableFuture<Void>> writers = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      Random random = new Random(w);
      writers.add(CompletableFuture.runAsync(() -> {
        while (!stop.get()) {
          // writers only talk to the instances that stay up; the owner's tables must reach them through the others
          CommitApi api = new CommitApi(others.get(random.nextInt(others.size())).restUrl());
          long read = api.latestVersion(table);
          Transaction txn = txns.append(read);
          while (true) {
            CommitApi.Response r = api.commit(table, txn);
            if (r.status() == 200) {
              acknowledged.add(r.version());
              acknowledgedUuids.add(txn.getUuid());
              break;
            }
            if (r.status() == 409 && r.code() == 14) {
              break; // rebuilt on a fresh read
            }
            if (r.status() != 503 && r.status() != 429) {
              unexpected.add(r.toString());
              break;
            }
            // 503: the same bytes again
          }
        }
      }));
    }
    Thread.sleep(1500);
    owner.close(); // leaves the group: its partitions go to the others at once
    running.remove(owner);
    Thread.sleep(2500);
    stop.set(true);
    CompletableFuture.allOf(writers.toArray(new CompletableFuture[0])).get();

    assertThat(unexpected).isEmpty();
    long latest = new CommitApi(others.get(0).restUrl()).latestVersion(table);
    // Group commit: writers waiting together share a version, so a version may be acknowledged to several of them,
    // but no transaction is acknowledged twice.
    assertThat(new TreeSet<>(acknowledgedUuids)).hasSize(acknowledgedUuids.size());
    assertThat(acknowledged).allSatisfy(v -> assertThat(v).isBetween(2L, latest));
    assertThat(acknowledged.size()).isGreaterThan(5);
    assertThat(ownerOf(others, table)).isIn(others);
    assertEveryVersionHasItsEvent(KAFKA.bootstrapServers(), topic, table, latest);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
