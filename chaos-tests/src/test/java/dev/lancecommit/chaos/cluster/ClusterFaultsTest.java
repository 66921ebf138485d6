package dev.lancecommit.chaos.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.chaos.harness.CoordinatorCluster;
import dev.lancecommit.chaos.harness.CoordinatorProcess;
import dev.lancecommit.coordinator.storage.ObjectStores;
import dev.lancecommit.e2e.CommitApi;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.HandMadeTransactions;
import dev.lancecommit.testing.kafka.KafkaBrokerFixture;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three coordinator processes in cluster mode on one warehouse and one Kafka broker, writers sending to random
 * instances, and the faults that matter for ownership: an owner killed (SIGKILL), an owner paused past its session
 * timeout and resumed (SIGSTOP/SIGCONT), and a rolling restart. Afterwards every acknowledged commit must be the
 * version it was acknowledged as (nothing lost, nothing forked) and every version must have its event.
 */
class ClusterFaultsTest {
  @RegisterExtension static final KafkaBrokerFixture KAFKA = new KafkaBrokerFixture();
  private static final String NAMESPACE = "chaos";
  private static final Duration SETTLE = Duration.ofSeconds(90);

  @TempDir Path dir;
  private final String topic = "cluster-faults-" + UUID.randomUUID();
  private final HandMadeTransactions txns = new HandMadeTransactions();
  private CoordinatorCluster cluster;
  private ObjectStores stores;
  private final Map<List<String>, String> locations = new LinkedHashMap<>();

  @BeforeEach
  void startCluster() {
    stores = new ObjectStores(null);
    cluster = new CoordinatorCluster(dir, 3, List.of(
        "--warehouse", dir.resolve("warehouse").toString(),
        "--kafka", KAFKA.bootstrapServers(),
        "--kafka.topic", topic,
        "--kafka.topic.partitions", "6",
        "--kafka.publish.timeout.ms", "5000",
        "--publication.reconcile-interval.ms", "3000",
        "--commit.threads", "8",
        "--commit.verify-files", "false"), // hand-made transactions name files never written
        null, "faults-" + UUID.randomUUID());
    cluster.start();
    cluster.awaitSettled(cluster.instances(), SETTLE);
  }

  @AfterEach
  void stopCluster() {
    cluster.close();
    stores.close();
  }

  private List<String> urls() {
    return cluster.instances().stream().map(CoordinatorProcess::baseUrl).toList();
  }

  private List<List<String>> createTables(String... names) {
    CommitApi api = new CommitApi(cluster.instance(0).baseUrl());
    api.createNamespace(NAMESPACE);
    List<List<String>> tables = new ArrayList<>();
    for (String name : names) {
      List<String> table = List.of(NAMESPACE, name);
      locations.put(table, api.declareTable(table));
      CommitApi.Response created = api.commit(table, txns.create());
      assertThat(created.status()).as(created.raw()).isEqualTo(200);
      tables.add(table);
    }
    return tables;
  }

  private void assertNothingLostOrForkedAndEveryVersionHasItsEvent(ClusterWorkload workload) {
    assertThat(workload.failures()).isEmpty();
    for (Map.Entry<List<String>, String> table : locations.entrySet()) {
      List<ClusterWorkload.Ack> acks = workload.acks().stream().filter(a -> a.table().equals(table.getKey()))
          .toList();
      assertThat(acks).as("acknowledged commits of %s", table.getKey()).isNotEmpty();
      assertThat(ClusterChecks.acknowledgedCommitsLanded(stores, table.getValue(), acks)).isEmpty();
      long latest = ClusterChecks.latestVersion(stores, table.getValue());
      assertThat(ClusterChecks.versionsWithoutEvent(KAFKA.bootstrapServers(), topic, table.getKey(), latest,
          Duration.ofSeconds(90))).as("versions of %s without an event", table.getKey()).isEmpty();
    }
  }

  private static String log(CoordinatorProcess instance) {
    try {
      return Files.readString(instance.logFile());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void killingAnOwnerUnderLoadLosesNothingAndItsTablesAreServedAgainWithinTheBound() throws Exception {
    List<List<String>> tables = createTables("t0", "t1");
    ClusterWorkload workload = new ClusterWorkload(tables, this::urls);
    long begin = System.nanoTime();
    CompletableFuture<Void> run = CompletableFuture.runAsync(() -> {
      try {
        workload.run(8, Duration.ofSeconds(25), Duration.ofSeconds(60));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    Thread.sleep(6000);
    CoordinatorProcess owner = cluster.ownerOf(NAMESPACE + "$t0").orElseThrow();
    long killedAt = System.nanoTime();
    owner.kill();
    run.get(3, TimeUnit.MINUTES);
    long stoppedAt = begin + TimeUnit.SECONDS.toNanos(25);

    List<ClusterWorkload.Ack> t0 = workload.acks().stream().filter(a -> a.table().equals(tables.get(0))).toList();
    assertThat(t0.stream().anyMatch(a -> a.ackedNanos() > killedAt)).isTrue();
    Duration gap = ClusterChecks.longestGap(t0, killedAt, stoppedAt);
    System.out.printf("kill -9 of the owner: table served again after at most %d ms (%d acks, %d resubmits)%n",
        gap.toMillis(), workload.acks().size(), workload.resubmits());
    // the target is 10 s (session timeout 6 s + rebalance + table load); leave room for a loaded test machine
    assertThat(gap).isLessThan(Duration.ofSeconds(20));
    assertNothingLostOrForkedAndEveryVersionHasItsEvent(workload);
  }

  @Test
  void anOwnerPausedPastItsSessionFindsItsTableTakenAndHandsItOver() throws Exception {
    List<String> table = createTables("paused").get(0);
    String key = NAMESPACE + "$paused";
    CoordinatorProcess owner = cluster.ownerOf(key).orElseThrow();
    List<CoordinatorProcess> others = cluster.instances().stream().filter(i -> i != owner).toList();
    CommitApi atOwner = new CommitApi(owner.baseUrl());
    CommitApi atOther = new CommitApi(others.get(0).baseUrl());
    ClusterWorkload ledger = new ClusterWorkload(List.of(table), this::urls);
    List<ClusterWorkload.Ack> acks = new ArrayList<>();

    // commits queued at the owner the moment it stops
    List<Transaction> queued = new ArrayList<>();
    List<CompletableFuture<CommitApi.Response>> answers = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      Transaction txn = txns.append(1);
      queued.add(txn);
      answers.add(CompletableFuture.supplyAsync(() -> {
        try {
          return atOwner.commit(table, txn);
        } catch (UncheckedIOException e) {
          return null;
        }
      }));
    }
    Thread.sleep(20);
    owner.suspend();
    try {
      // another instance commits to the table once the paused owner's session ran out
      for (int i = 0; i < 3; i++) {
        Transaction txn = txns.append(atOther.latestVersion(table));
        long sent = System.nanoTime();
        CommitApi.Response r = atOther.commit(table, txn);
        assertThat(r.status()).as(r.raw()).isEqualTo(200);
        acks.add(new ClusterWorkload.Ack(table, r.version(), txn.getUuid(), sent, System.nanoTime(), 1));
      }
      assertThat(cluster.ownerOf(key)).isPresent().get().isNotEqualTo(owner);
    } finally {
      owner.resume();
    }

    // every commit that was queued at the paused owner gets a definite answer (resubmitting the same bytes)
    for (int i = 0; i < queued.size(); i++) {
      CommitApi.Response r = answers.get(i).get(2, TimeUnit.MINUTES);
      for (int attempt = 0; r == null || r.status() == 503; attempt++) {
        assertThat(attempt).as("resubmits of %s", queued.get(i).getUuid()).isLessThan(60);
        Thread.sleep(500);
        try {
          r = new CommitApi(urls().get(attempt % 3)).commit(table, queued.get(i));
        } catch (UncheckedIOException e) {
          r = null;
        }
      }
      assertThat(r.status()).as(r.raw()).isEqualTo(200);
      acks.add(new ClusterWorkload.Ack(table, r.version(), queued.get(i).getUuid(), 0, 0, 1));
    }
    // the resumed instance stopped acting as owner: it noticed the pause and the lost membership
    String resumedLog = log(owner);
    assertThat(resumedLog).contains("stood still");
    assertThat(resumedLog).containsAnyOf("Lost partitions", "Handing over partitions");

    cluster.awaitSettled(cluster.instances(), SETTLE);
    // and it answers the table's commits again, whoever owns it now
    Transaction after = txns.append(atOwner.latestVersion(table));
    CommitApi.Response r = atOwner.commit(table, after);
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    acks.add(new ClusterWorkload.Ack(table, r.version(), after.getUuid(), 0, 0, 1));

    assertThat(ClusterChecks.acknowledgedCommitsLanded(stores, locations.get(table), acks)).isEmpty();
    long latest = ClusterChecks.latestVersion(stores, locations.get(table));
    // Every version after the create was acknowledged to someone (commits queued together may share one: group commit).
    assertThat(latest).isEqualTo(1 + acks.stream().map(ClusterWorkload.Ack::version).distinct().count());
    assertThat(ClusterChecks.versionsWithoutEvent(KAFKA.bootstrapServers(), topic, table, latest,
        Duration.ofSeconds(90))).isEmpty();
    assertThat(ledger.failures()).isEmpty();
  }

  @Test
  void aRollingRestartUnderLoadLosesNothing() throws Exception {
    List<List<String>> tables = createTables("r0", "r1", "r2");
    ClusterWorkload workload = new ClusterWorkload(tables, this::urls);
    CompletableFuture<Void> restarts = CompletableFuture.runAsync(() -> {
      try {
        Thread.sleep(3000);
        for (CoordinatorProcess instance : cluster.instances()) {
          instance.close(); // SIGTERM: it leaves the group and hands its tables over
          instance.start();
          cluster.awaitSettled(cluster.instances(), SETTLE);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    CompletableFuture<Void> run = CompletableFuture.runAsync(() -> {
      try {
        workload.run(8, Duration.ofSeconds(20), Duration.ofSeconds(60));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    restarts.get(5, TimeUnit.MINUTES);
    run.get(5, TimeUnit.MINUTES);
    System.out.printf("rolling restart: %d acks, %d resubmits, %d rebuilds%n", workload.acks().size(),
        workload.resubmits(), workload.rebuilds());
    assertNothingLostOrForkedAndEveryVersionHasItsEvent(workload);
  }
}
