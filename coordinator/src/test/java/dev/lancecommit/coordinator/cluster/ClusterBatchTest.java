package dev.lancecommit.coordinator.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.coordinator.Coordinator;
import dev.lancecommit.coordinator.CoordinatorConfig;
import dev.lancecommit.e2e.CommitApi;
import dev.lancecommit.e2e.StagedManifests;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.CommitEventReader;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.testing.kafka.KafkaBrokerFixture;
import dev.lancecommit.testing.lance.LanceTables;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Base64;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Atomic batches across instances (cluster mode): a batch whose tables different instances own is coordinated by
 * the instance that received it, the members' lanes held on their owners. Real coordinators, real Kafka, real
 * Lance writing the data and staging the manifests as stock clients do, and reading every version back.
 */
class ClusterBatchTest {
  @RegisterExtension static final KafkaBrokerFixture KAFKA = new KafkaBrokerFixture();
  private static final int PARTITIONS = 6;
  private static final String LEASE_MS = "1500";

  @TempDir Path dir;
  private final String topic = "cluster-batch-" + UUID.randomUUID();
  private final String group = "cluster-batch-" + UUID.randomUUID();
  private final List<Coordinator> running = new ArrayList<>();
  private final Map<String, LanceTables> lance = new HashMap<>();

  @AfterEach
  void stopAll() {
    running.forEach(Coordinator::close);
    lance.values().forEach(LanceTables::close);
  }

  private Coordinator start(Map<String, String> extra) throws IOException {
    int port = freePort();
    CoordinatorConfig.Builder config = CoordinatorConfig.builder()
        .host("127.0.0.1")
        .port(port)
        .warehouse(dir.resolve("warehouse").toString())
        .kafka(KAFKA.bootstrapServers())
        .topic(topic)
        .set("kafka.topic.partitions", Integer.toString(PARTITIONS))
        .set("publication.reconcile-interval.ms", "2000")
        .set("publication.live-grace.ms", "1000")
        .set("cluster.enabled", "true")
        .set("cluster.advertised-url", "http://127.0.0.1:" + port)
        .set("cluster.secret", "cluster-secret-for-tests")
        .set("cluster.group", group)
        .set("cluster.batch-hold-lease.ms", LEASE_MS);
    extra.forEach(config::set);
    Coordinator coordinator = Coordinator.start(config.build());
    running.add(coordinator);
    return coordinator;
  }

  private static void awaitSettled(List<Coordinator> coordinators) {
    InProcessClusters.awaitSettled(coordinators, PARTITIONS);
  }

  private static Coordinator ownerOf(List<Coordinator> coordinators, String table) {
    return InProcessClusters.ownerOf(coordinators, "ns$" + table);
  }

  /** Two tables (named by the test) owned by different instances, each made at version 1 with real Lance data. */
  private record Setup(List<Coordinator> cluster, String a, String b, Coordinator ownerA, Coordinator ownerB,
      Coordinator receiver) {}

  private Setup twoTablesOwnedApart(Map<String, String> receiverConfig) throws IOException {
    return twoTablesOwnedApart(Map.of(), receiverConfig);
  }

  private Setup twoTablesOwnedApart(Map<String, String> ownerConfig, Map<String, String> receiverConfig)
      throws IOException {
    List<Coordinator> cluster = List.of(start(ownerConfig), start(ownerConfig), start(receiverConfig));
    awaitSettled(cluster);
    CommitApi api = new CommitApi(cluster.get(0).restUrl());
    api.createNamespace("ns");
    // pick two tables whose owners differ and are not the receiver (the third instance): the batch is then
    // coordinated by an instance that owns none of its tables
    Coordinator receiver = cluster.get(2);
    String a = null;
    String b = null;
    for (int i = 0; i < 200 && b == null; i++) {
      String name = "t" + i;
      Coordinator owner = ownerOf(cluster, name);
      if (owner == receiver) {
        continue;
      }
      if (a == null) {
        a = name;
      } else if (owner != ownerOf(cluster, a)) {
        b = name;
      }
    }
    assertThat(b).as("two tables owned by the two other instances").isNotNull();
    for (String name : List.of(a, b)) {
      Path root = Path.of(api.declareTable(List.of("ns", name)));
      LanceTables table = LanceTables.local(root);
      lance.put(name, table);
      CommitApi.Response created = api.post("/v1/table/ns$" + name + "/commit", TransactionFactory.create(
          LanceProtos.schema(LanceTables.ROW_SCHEMA), LanceProtos.fragments(table.writeRows(0, 5))).toByteArray(),
          CommitApi.PROTOBUF);
      assertThat(created.status()).as(created.raw()).isEqualTo(200);
    }
    return new Setup(cluster, a, b, ownerOf(cluster, a), ownerOf(cluster, b), receiver);
  }

  @Test
  void aBatchAcrossOwnersIsCoordinatedWhereItArrivesAndLandsWhole() throws Exception {
    Setup s = twoTablesOwnedApart(Map.of());
    CommitApi receiver = new CommitApi(s.receiver().restUrl());
    JsonObject batch = new JsonObject().put("entries", new JsonArray()
        .add(entry(s.a(), 2, stage(s.a(), 2, 5))).add(entry(s.b(), 2, stage(s.b(), 2, 5))));
    CommitApi.Response reply = receiver.postJson("/v1/table/version/batch-create", batch.encode());
    assertThat(reply.status()).as(reply.raw()).isEqualTo(200);
    String batchId = reply.body().get("transaction_id").asText();
    assertThat(reply.body().get("versions")).hasSize(2);

    for (String name : List.of(s.a(), s.b())) {
      assertThat(lance.get(name).latestVersion()).isEqualTo(2); // stock Lance reads every member version
      assertThat(lance.get(name).countRows(2)).isEqualTo(10);
      for (Coordinator c : s.cluster()) {
        assertThat(new CommitApi(c.restUrl()).latestVersion(List.of("ns", name))).isEqualTo(2);
      }
      assertThat(eventsOf(name, 2)).as("events of %s v2", name).isNotEmpty()
          .allSatisfy(e -> assertThat(e.batchId()).isEqualTo(batchId));
    }
    Path batches = batchesDir();
    assertThat(batches.resolve(batchId + ".json")).exists();
    assertThat(batches.resolve(batchId + ".done")).exists();

    // BatchCommitTables, sent to one of the owners this time
    JsonObject commit = new JsonObject().put("operations", new JsonArray()
        .add(new JsonObject().put("create_table_version", entry(s.b(), 3, stage(s.b(), 3, 10))))
        .add(new JsonObject().put("create_table_version", entry(s.a(), 3, stage(s.a(), 3, 10)))));
    CommitApi.Response committed = new CommitApi(s.ownerA().restUrl()).postJson("/v1/table/batch-commit",
        commit.encode());
    assertThat(committed.status()).as(committed.raw()).isEqualTo(200);
    assertThat(lance.get(s.a()).countRows(3)).isEqualTo(15);
    assertThat(lance.get(s.b()).countRows(3)).isEqualTo(15);
    // the lanes were let go: stock Lance and single commits go on on top of the batch
    assertThat(lance.get(s.b()).appendWithLance(100, 1)).isEqualTo(4);
    CommitApi.Response after = receiver.post("/v1/table/ns$" + s.a() + "/commit",
        TransactionFactory.append(3, LanceProtos.fragments(lance.get(s.a()).writeRows(200, 1))).toByteArray(),
        CommitApi.PROTOBUF);
    assertThat(after.status()).as(after.raw()).isEqualTo(200);
    assertThat(after.version()).isEqualTo(4);
  }

  @Test
  void aRemoteMemberThatConflictsFailsTheBatchWhichWritesNothingAndNamesIt() throws Exception {
    Setup s = twoTablesOwnedApart(Map.of());
    Path stagedA = stage(s.a(), 2, 5);
    Path stagedB = stage(s.b(), 2, 5);
    // b is overwritten after its member was staged on version 1: b's member conflicts, on b's owner
    CommitApi.Response overwrite = new CommitApi(s.ownerB().restUrl()).post("/v1/table/ns$" + s.b() + "/commit",
        TransactionFactory.overwrite(1, LanceProtos.schema(LanceTables.ROW_SCHEMA),
            LanceProtos.fragments(lance.get(s.b()).writeRows(50, 1))).toByteArray(), CommitApi.PROTOBUF);
    assertThat(overwrite.status()).as(overwrite.raw()).isEqualTo(200);
    Path stagedB3 = stage(s.b(), 3, 5, 1);
    CommitApi.Response reply = new CommitApi(s.receiver().restUrl()).postJson("/v1/table/version/batch-create",
        new JsonObject().put("entries", new JsonArray().add(entry(s.a(), 2, stagedA)).add(entry(s.b(), 3, stagedB3)))
            .encode());
    assertThat(reply.status()).as(reply.raw()).isEqualTo(409);
    assertThat(reply.code()).isIn(14, 19);
    assertThat(reply.body().get("detail").asText()).contains("Batch member 1").contains("ns$" + s.b())
        .contains("nothing of the batch was applied");
    assertThat(lance.get(s.a()).latestVersion()).isEqualTo(1);
    assertThat(lance.get(s.b()).latestVersion()).isEqualTo(2);
    assertThat(stagedA).exists();
    // the remote holds were released: both tables take commits at once
    CommitApi.Response next = new CommitApi(s.receiver().restUrl()).postJson("/v1/table/version/batch-create",
        new JsonObject().put("entries", new JsonArray().add(entry(s.a(), 2, stagedA))
            .add(entry(s.b(), 3, stage(s.b(), 3, 5)))).encode());
    assertThat(next.status()).as(next.raw()).isEqualTo(200);
    assertThat(lance.get(s.a()).latestVersion()).isEqualTo(2);
    assertThat(lance.get(s.b()).latestVersion()).isEqualTo(3);
  }

  /**
   * The receiving instance stops after the batch record is written and the first member version, before the second:
   * it no longer renews its holds, so the second member's owner finds the batch recorded when its lease runs out and
   * writes the member itself (roll forward); another instance then finds the record unfinished and marks it done.
   */
  @Test
  void aRecordedBatchWhoseCoordinatorStopsIsCompletedByTheOwners() throws Exception {
    Setup s = twoTablesOwnedApart(Map.of("batch.test.apply-pause.ms", "20000"));
    CommitApi receiver = new CommitApi(s.receiver().restUrl());
    CompletableFuture<CommitApi.Response> answer = sendBatchOfBoth(s);
    Path batches = batchesDir();
    awaitFirstMemberWritten(s);
    String batchId = recordedBatch(batches);
    assertThat(lance.get(s.b()).latestVersion()).isEqualTo(1); // half the batch is written, and recorded
    // namespace readers do not see half the batch, on the receiver nor on the owner holding a's lane for it
    assertThat(receiver.latestVersion(List.of("ns", s.a()))).isEqualTo(1);
    assertThat(new CommitApi(s.ownerA().restUrl()).latestVersion(List.of("ns", s.a()))).isEqualTo(1);

    s.receiver().close(); // stops renewing its holds (and never writes b's version)
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(lance.get(s.b()).latestVersion()).isEqualTo(2));
    for (String name : List.of(s.a(), s.b())) {
      assertThat(lance.get(name).countRows(2)).isEqualTo(10);
      assertThat(eventsOf(name, 2)).as("events of %s v2", name).isNotEmpty()
          .allSatisfy(e -> assertThat(e.batchId()).isEqualTo(batchId));
    }
    // an instance left finds the record unfinished for two leases, completes it (nothing left to write) and marks it
    await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(batches.resolve(batchId + ".done")));
    CommitApi survivor = new CommitApi(s.ownerA().restUrl());
    assertThat(survivor.latestVersion(List.of("ns", s.a()))).isEqualTo(2);
    assertThat(survivor.latestVersion(List.of("ns", s.b()))).isEqualTo(2);
    assertThat(lance.get(s.a()).latestVersion()).isEqualTo(2);
    // the receiver's caller never got a success (the instance stopped before the batch was complete)
    assertThat(answer.handle((r, e) -> e != null || r.status() != 200).get(60, java.util.concurrent.TimeUnit.SECONDS))
        .isTrue();
  }

  /**
   * The owner of a member's table stops after the batch is recorded, while holding the member's lane: its lease ends
   * with the batch recorded (it writes the member itself, or leaves it), the table moves to another instance, and the
   * coordinating instance, finding the lane lost, holds it again where the table is owned now and completes the batch:
   * its caller gets every version.
   */
  @Test
  void anOwnerStoppingMidBatchHandsTheMemberToTheNewOwnerAndTheBatchCompletes() throws Exception {
    Setup s = twoTablesOwnedApart(Map.of("batch.test.apply-pause.ms", "4000"));
    CommitApi receiver = new CommitApi(s.receiver().restUrl());
    CompletableFuture<CommitApi.Response> answer = sendBatchOfBoth(s);
    awaitFirstMemberWritten(s);
    s.ownerB().close(); // recorded, a written, b's lane held on its owner, which now stops

    CommitApi.Response reply = answer.get(90, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(reply.status()).as(reply.raw()).isEqualTo(200);
    String batchId = reply.body().get("transaction_id").asText();
    for (String name : List.of(s.a(), s.b())) {
      assertThat(lance.get(name).latestVersion()).isEqualTo(2);
      assertThat(lance.get(name).countRows(2)).isEqualTo(10);
      assertThat(receiver.latestVersion(List.of("ns", name))).isEqualTo(2);
      // the version's event carries the batch id (at least once: a repeat is the same transaction)
      List<CommitEvent> events = eventsOf(name, 2, batchId);
      assertThat(events).extracting(CommitEvent::transactionUuid).containsOnly(events.get(0).transactionUuid());
    }
    assertThat(batchesDir().resolve(batchId + ".done")).exists();
  }

  /**
   * An instance that holds and checks a member on its owner and then goes silent before any record (played here by
   * the test, signing with the cluster secret): when the lease runs out the owner fences the batch with an abort at
   * its record's key (so its record can never be written), writes nothing and lets the lane go. A client without
   * the secret cannot hold a lane.
   */
  @Test
  void aCheckedHoldWhoseCoordinatorGoesSilentBeforeTheRecordIsFencedAndReleased() throws Exception {
    Setup s = twoTablesOwnedApart(Map.of());
    String owner = s.ownerA().restUrl();
    String batchId = UUID.randomUUID().toString();
    CommitEvent created = eventsOf(s.a(), 1).get(0); // names the table as the lanes know it
    JsonObject hold = new JsonObject().put("table_id", new JsonArray().add("ns").add(s.a()))
        .put("location", created.location()).put("table_uuid", created.tableUuid()).put("batch_id", batchId);
    CommitApi.Response unsigned = new CommitApi(owner).postJson("/v1/internal/lanes/hold", hold.encode());
    assertThat(unsigned.status()).as(unsigned.raw()).isEqualTo(401);

    HttpResponse<String> held = signed(owner, "/v1/internal/lanes/hold", hold);
    assertThat(held.statusCode()).as(held.body()).isEqualTo(200);
    String holdId = new JsonObject(held.body()).getString("hold_id");
    byte[] member = TransactionFactory.append(1, LanceProtos.fragments(lance.get(s.a()).writeRows(5, 5)))
        .toByteArray();
    HttpResponse<String> checked = signed(owner, "/v1/internal/lanes/" + holdId + "/check", new JsonObject()
        .put("transaction", Base64.getEncoder().encodeToString(member)).put("actor", "alice").put("rebase", false));
    assertThat(checked.statusCode()).as(checked.body()).isEqualTo(200);
    assertThat(new JsonObject(checked.body()).getLong("version")).isEqualTo(2);
    // knowing a hold id is not enough: a client's apply is refused before anything runs
    CommitApi.Response unsignedApply = new CommitApi(owner).postJson("/v1/internal/lanes/" + holdId + "/apply",
        new JsonObject().put("batch_id", batchId).encode());
    assertThat(unsignedApply.status()).as(unsignedApply.raw()).isEqualTo(401);
    assertThat(lance.get(s.a()).latestVersion()).isEqualTo(1);

    // a commit to the table waits behind the hold
    CompletableFuture<CommitApi.Response> queued = CompletableFuture.supplyAsync(() -> new CommitApi(owner).post(
        "/v1/table/ns$" + s.a() + "/commit", TransactionFactory.append(1, LanceProtos.fragments(
            lance.get(s.a()).writeRows(100, 1))).toByteArray(), CommitApi.PROTOBUF));
    Thread.sleep(300);
    assertThat(queued).isNotDone();

    // silence: the lease runs out, the owner fences the batch and releases the lane
    Path record = batchesDir().resolve(batchId + ".json");
    await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(record));
    assertThat(Files.readString(record)).contains("aborted_by").contains(owner);
    CommitApi.Response landed = queued.get(30, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(landed.status()).as(landed.raw()).isEqualTo(200);
    assertThat(landed.version()).isEqualTo(2); // the held member never was written
    assertThat(lance.get(s.a()).countRows(2)).isEqualTo(6);
    // the silent coordinator, back, learns its hold is gone: nothing of its batch can be applied
    HttpResponse<String> late = signed(owner, "/v1/internal/lanes/" + holdId + "/apply",
        new JsonObject().put("batch_id", batchId));
    assertThat(late.statusCode()).as(late.body()).isEqualTo(503);
    assertThat(late.headers().firstValue("x-lcc-lane-lost")).hasValue("true");
  }

  /**
   * The window an owner's death used to leave: the batch is recorded and its first member written, the second
   * member's owner dies holding its lane (checked, neither written nor fenced: as a killed process leaves it), and a
   * single commit to that table reaches the table's new owner before the coordinating instance holds the lane again.
   * The new owner learns the batch before its lane serves anything and writes the member first: the single commit
   * lands after it and the batch completes whole, never broken.
   */
  @Test
  void aCommitReachingTheNewOwnerFirstLandsAfterTheMemberItsDeadOwnerHeld() throws Exception {
    Setup s = twoTablesOwnedApart(Map.of("cluster.test.abandon-holds-on-close", "true"),
        Map.of("batch.test.apply-pause.ms", "30000"));
    CompletableFuture<CommitApi.Response> answer = sendBatchOfBoth(s);
    Path batches = batchesDir();
    awaitFirstMemberWritten(s);
    String batchId = recordedBatch(batches);
    assertThat(batches.resolve(batchId + ".intent")).as("announced before its remote holds").exists();

    s.ownerB().close(); // dies holding b's lane: b's member is checked, recorded, and not written
    List<Coordinator> left = s.cluster().stream().filter(c -> c != s.ownerB()).toList();
    awaitSettled(left);
    assertThat(lance.get(s.b()).latestVersion()).isEqualTo(1);
    assertThat(answer).as("the coordinating instance still pauses before b's member").isNotDone();

    CommitApi.Response single = new CommitApi(s.ownerA().restUrl()).post("/v1/table/ns$" + s.b() + "/commit",
        TransactionFactory.append(1, LanceProtos.fragments(lance.get(s.b()).writeRows(100, 1))).toByteArray(),
        CommitApi.PROTOBUF);
    assertThat(single.status()).as(single.raw()).isEqualTo(200);
    assertThat(single.version()).as("the member keeps its version; the single commit lands after it").isEqualTo(3);
    assertThat(answer).as("the new owner did not wait for the coordinating instance").isNotDone();
    assertThat(lance.get(s.b()).countRows(2)).isEqualTo(10);
    assertThat(lance.get(s.b()).countRows(3)).isEqualTo(11);

    CommitApi.Response reply = answer.get(90, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(reply.status()).as(reply.raw()).isEqualTo(200);
    assertThat(reply.body().get("transaction_id").asText()).isEqualTo(batchId);
    assertThat(lance.get(s.a()).countRows(2)).isEqualTo(10);
    // b's version 2 is the member, its event carrying the batch id (a repeat is the same transaction)
    List<CommitEvent> memberEvents = eventsOf(s.b(), 2, batchId);
    assertThat(memberEvents).extracting(CommitEvent::transactionUuid)
        .containsOnly(memberEvents.get(0).transactionUuid());
    assertThat(batches.resolve(batchId + ".done")).exists();
    assertThat(batches.resolve(batchId + ".intent")).as("withdrawn once the batch is done").doesNotExist();
    assertThat(new CommitApi(s.ownerA().restUrl()).latestVersion(List.of("ns", s.b()))).isEqualTo(3);
  }

  /**
   * The other half of the window: the member's owner dies after the check and before the batch is recorded. The new
   * owner finds the batch announced and not recorded and fences it before its lane serves (an abort at the record's
   * key): a single commit takes the version, and the coordinating instance's record finds the abort, so the batch
   * answers that nothing was applied and writes nothing.
   */
  @Test
  void anOwnerDyingBeforeTheRecordLetsTheNewOwnerFenceTheBatch() throws Exception {
    Setup s = twoTablesOwnedApart(Map.of("cluster.test.abandon-holds-on-close", "true"),
        Map.of("batch.test.record-pause.ms", "30000"));
    CompletableFuture<CommitApi.Response> answer = sendBatchOfBoth(s);
    await().atMost(Duration.ofSeconds(30)).until(() -> s.ownerA().batchHolds().orElseThrow().checked() == 1
        && s.ownerB().batchHolds().orElseThrow().checked() == 1);
    Path batches = batchesDir();
    String batchId = onlyBatch(batches, ".intent");
    assertThat(batches.resolve(batchId + ".json")).doesNotExist();

    s.ownerB().close(); // dies holding b's checked lane, before the record
    List<Coordinator> left = s.cluster().stream().filter(c -> c != s.ownerB()).toList();
    awaitSettled(left);
    Coordinator newOwner = ownerOf(left, s.b());
    CommitApi.Response single = new CommitApi(s.ownerA().restUrl()).post("/v1/table/ns$" + s.b() + "/commit",
        TransactionFactory.append(1, LanceProtos.fragments(lance.get(s.b()).writeRows(100, 1))).toByteArray(),
        CommitApi.PROTOBUF);
    assertThat(single.status()).as(single.raw()).isEqualTo(200);
    assertThat(single.version()).isEqualTo(2);
    assertThat(answer).isNotDone();
    assertThat(Files.readString(batches.resolve(batchId + ".json"))).contains("aborted_by")
        .contains(newOwner.restUrl());

    CommitApi.Response reply = answer.get(90, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(reply.status()).as(reply.raw()).isEqualTo(503);
    assertThat(reply.code()).isEqualTo(17);
    assertThat(reply.body().get("detail").asText()).contains("fenced").contains("nothing of the batch was applied");
    assertThat(lance.get(s.a()).latestVersion()).isEqualTo(1);
    assertThat(lance.get(s.b()).latestVersion()).isEqualTo(2);
    assertThat(lance.get(s.b()).countRows(2)).isEqualTo(6);
    // the batch's other hold was let go: a takes commits at once
    CommitApi.Response next = new CommitApi(s.receiver().restUrl()).post("/v1/table/ns$" + s.a() + "/commit",
        TransactionFactory.append(1, LanceProtos.fragments(lance.get(s.a()).writeRows(100, 1))).toByteArray(),
        CommitApi.PROTOBUF);
    assertThat(next.status()).as(next.raw()).isEqualTo(200);
    assertThat(next.version()).isEqualTo(2);
  }

  // ---------------------------------------------------------------- helpers

  /** A call another instance of the cluster would make: signed with the cluster secret. */
  private static HttpResponse<String> signed(String url, String path, JsonObject body) throws Exception {
    ForwardSigner signer = new ForwardSigner("cluster-secret-for-tests");
    byte[] bytes = body.encode().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    ForwardSigner.Forwarded call = new ForwardSigner.Forwarded("test-instance", 1, 0, 0, "http://test");
    long now = signer.now();
    HttpRequest request = HttpRequest.newBuilder(URI.create(url + path))
        .header("content-type", "application/json")
        .header(ForwardSigner.PRINCIPAL, call.principal())
        .header(ForwardSigner.HOPS, "1")
        .header(ForwardSigner.WAIT_MS, "0")
        .header(ForwardSigner.GENERATION, "0")
        .header(ForwardSigner.SENDER, call.sender())
        .header(ForwardSigner.TIMESTAMP, Long.toString(now))
        .header(ForwardSigner.SIGNATURE, signer.sign("POST", path, call, now, bytes))
        .POST(HttpRequest.BodyPublishers.ofByteArray(bytes)).build();
    return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
  }

  private static String recordedBatch(Path batches) throws IOException {
    return onlyBatch(batches, ".json");
  }

  /** The id of the one batch that has a file ending in {@code suffix} (a record, an intent) in {@code batches}. */
  private static String onlyBatch(Path batches, String suffix) throws IOException {
    try (Stream<Path> files = Files.list(batches)) {
      Set<String> ids = files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(suffix))
          .map(n -> n.substring(0, n.length() - suffix.length())).collect(Collectors.toSet());
      assertThat(ids).hasSize(1);
      return ids.iterator().next();
    }
  }

  private Path batchesDir() {
    return dir.resolve("warehouse").resolve("_catalog").resolve("batches");
  }

  /** Version 2 of both tables as one batch (BatchCreateTableVersions), sent to the receiver in the background. */
  private CompletableFuture<CommitApi.Response> sendBatchOfBoth(Setup s) {
    JsonObject batch = new JsonObject().put("entries", new JsonArray()
        .add(entry(s.a(), 2, stage(s.a(), 2, 5))).add(entry(s.b(), 2, stage(s.b(), 2, 5))));
    CommitApi receiver = new CommitApi(s.receiver().restUrl());
    return CompletableFuture.supplyAsync(() -> receiver.postJson("/v1/table/version/batch-create", batch.encode()));
  }

  /** Waits until the batch's member of table a (its version 2) is written. */
  private void awaitFirstMemberWritten(Setup s) {
    Path manifest = Path.of(lance.get(s.a()).uri()).resolve(ManifestNaming.path(ManifestNaming.Scheme.V2, 2));
    await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(manifest));
  }

  private List<CommitEvent> eventsOf(String table, long version) {
    return eventsOf(table, version, null);
  }

  /** The events of the table's version, read until one shows (one carrying {@code batchId}, when given). */
  private List<CommitEvent> eventsOf(String table, long version, String batchId) {
    try (CommitEventReader reader = new CommitEventReader(KAFKA.bootstrapServers(), topic)) {
      List<CommitEvent> events = new ArrayList<>();
      java.util.concurrent.atomic.AtomicInteger want = new java.util.concurrent.atomic.AtomicInteger((int) version);
      await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
        events.clear(); // the reader keeps what it read: asking for one more event each time polls for new ones
        reader.readTable(List.of("ns", table), want.getAndIncrement(), Duration.ofSeconds(3)).stream()
            .filter(e -> e.version() == version).forEach(events::add);
        assertThat(events).isNotEmpty();
        if (batchId != null) {
          assertThat(events).extracting(CommitEvent::batchId).contains(batchId);
        }
      });
      return events;
    }
  }

  private Path stage(String table, long version, long firstId) {
    return stage(table, version, firstId, version - 1);
  }

  private Path stage(String table, long version, long firstId, long readVersion) {
    return StagedManifests.stage(lance.get(table), version, firstId, readVersion);
  }

  private static JsonObject entry(String table, long version, Path staged) {
    return StagedManifests.entry(List.of("ns", table), version, staged);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
