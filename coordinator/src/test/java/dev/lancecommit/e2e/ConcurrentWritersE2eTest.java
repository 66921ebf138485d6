package dev.lancecommit.e2e;

import static dev.lancecommit.e2e.VersionHistoryE2eTest.range;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.CommitEventReader;
import dev.lancecommit.format.pb.Transaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * 16 writer threads append to one table through CommitTable at the same time, each from the version it last saw,
 * retrying on 409/14 with a fresh read version. Nothing may be lost, forked or acknowledged twice; appends that wait
 * in the lane together share a version (group commit), and every member of a group is answered with it.
 */
@ExtendWith(E2eServices.class)
class ConcurrentWritersE2eTest {
  private static final int WRITERS = 16;
  private static final int COMMITS_PER_WRITER = 5;
  private static final int ROWS_PER_COMMIT = 2;
  private static final int MAX_ATTEMPTS = 50;

  /** One acknowledged commit. */
  private record Ack(int writer, long version, String transactionUuid, List<Long> ids, int groupSize,
      List<Long> newFragmentIds) {}

  @Test
  void sixteenWritersEveryCommitLandsOnceInOrder(E2eServices services) throws Exception {
    E2eServices.Service service = services.service(E2eServices.Store.LOCAL);
    try (E2eTable table = E2eTable.declare(service, "concurrent")) {
      CommitApi.Response created = table.create(-ROWS_PER_COMMIT, ROWS_PER_COMMIT);
      List<Ack> acks = Collections.synchronizedList(new ArrayList<>());
      AtomicInteger retries = new AtomicInteger();
      CountDownLatch start = new CountDownLatch(1);
      ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
      try {
        List<Future<?>> writers = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
          int writer = w;
          writers.add(pool.submit(() -> {
            start.await();
            long seen = 1;
            for (int k = 0; k < COMMITS_PER_WRITER; k++) {
              long firstId = ((long) writer * COMMITS_PER_WRITER + k) * ROWS_PER_COMMIT;
              Transaction txn = table.appendTransaction(seen, firstId, ROWS_PER_COMMIT);
              CommitApi.Response r = commitWithRetries(table, txn, retries);
              List<Long> fragmentIds = new ArrayList<>();
              r.body().get("new_fragment_ids").forEach(id -> fragmentIds.add(id.asLong()));
              acks.add(new Ack(writer, r.version(), r.transactionUuid(), range(firstId, firstId + ROWS_PER_COMMIT),
                  r.body().get("group_size").asInt(), fragmentIds));
              seen = r.version();
            }
            return null;
          }));
        }
        start.countDown();
        for (Future<?> f : writers) {
          f.get(5, TimeUnit.MINUTES);
        }
      } finally {
        pool.shutdownNow();
      }

      System.out.printf("%d writers x %d appends: %d retries on 409/14%n", WRITERS, COMMITS_PER_WRITER, retries.get());
      int total = WRITERS * COMMITS_PER_WRITER;
      // Every commit acknowledged exactly once; the versions 2..latest have no gap, and each holds as many commits as
      // its answers say (its group size).
      assertThat(acks).hasSize(total);
      assertThat(acks).extracting(Ack::transactionUuid).doesNotHaveDuplicates();
      Map<Long, List<Ack>> byVersion = new TreeMap<>(acks.stream().collect(Collectors.groupingBy(Ack::version)));
      long latest = table.describedVersion();
      assertThat(byVersion.keySet()).containsExactlyElementsOf(range(2, latest + 1));
      byVersion.forEach((version, shared) -> assertThat(shared).as("answers for version %s", version)
          .allSatisfy(a -> assertThat(a.groupSize()).isEqualTo(shared.size())));
      assertThat(table.lance().versions()).containsExactlyElementsOf(range(1, latest + 1));
      System.out.printf("%d appends in %d versions%n", total, latest - 1);

      // No row lost: the last version holds every row; each version holds exactly the rows acknowledged up to it.
      List<Long> allIds = acks.stream().flatMap(a -> a.ids().stream()).collect(Collectors.toList());
      allIds.addAll(range(-ROWS_PER_COMMIT, 0));
      assertThat(table.lance().readIds(latest)).containsExactlyInAnyOrderElementsOf(allIds);
      List<Long> expected = new ArrayList<>(range(-ROWS_PER_COMMIT, 0));
      for (long v = 2; v <= latest; v++) {
        byVersion.get(v).forEach(a -> expected.addAll(a.ids()));
        assertThat(table.lance().readIds(v)).as("ids of version %s", v).containsExactlyInAnyOrderElementsOf(expected);
      }

      // Exactly one event per version, in version order, listing the acknowledged transactions as its members.
      try (CommitEventReader reader = new CommitEventReader(service.kafkaBootstrap(), service.topic())) {
        List<CommitEvent> events = reader.readTable(table.id(), (int) latest, Duration.ofSeconds(60));
        assertThat(events).extracting(CommitEvent::version).containsExactlyElementsOf(range(1, latest + 1));
        assertThat(events.get(0).transactionUuid()).isEqualTo(created.transactionUuid());
        for (CommitEvent event : events.subList(1, events.size())) {
          List<Ack> members = byVersion.get(event.version());
          assertThat(event.members()).extracting(CommitEvent.Member::transactionUuid)
              .containsExactlyInAnyOrderElementsOf(members.stream().map(Ack::transactionUuid).toList());
          if (members.size() == 1) {
            assertThat(event.transactionUuid()).isEqualTo(members.get(0).transactionUuid());
          }
          assertThat(event.operation()).isEqualTo("Append");
          assertThat(event.rowsAdded()).isEqualTo((long) ROWS_PER_COMMIT * members.size());
          // each member names the fragment id its writer was answered with, one new fragment per append
          Map<String, List<Long>> answered = members.stream()
              .collect(Collectors.toMap(Ack::transactionUuid, Ack::newFragmentIds));
          assertThat(event.members()).allSatisfy(m -> assertThat(m.newFragmentIds()).hasSize(1)
              .isEqualTo(answered.get(m.transactionUuid())));
        }
        assertThat(acks.stream().flatMap(a -> a.newFragmentIds().stream()))
            .as("every append got a fragment id of its own").doesNotHaveDuplicates().hasSize(total);
      }
    }
  }

  /** Commits, and on a retryable conflict rebuilds the transaction on the version DescribeTable now reports. */
  private static CommitApi.Response commitWithRetries(E2eTable table, Transaction txn, AtomicInteger retries) {
    Transaction attempt = txn;
    for (int i = 1; i <= MAX_ATTEMPTS; i++) {
      CommitApi.Response r = table.api().commit(table.id(), attempt);
      if (r.status() == 200) {
        assertThat(r.transactionUuid()).isEqualTo(attempt.getUuid());
        return r;
      }
      if (r.status() != 409 || r.code() != 14) {
        throw new AssertionError("commit of " + attempt.getUuid() + " failed: " + r);
      }
      retries.incrementAndGet();
      attempt = TransactionFactory.rebased(txn, table.describedVersion());
    }
    throw new AssertionError("no commit after " + MAX_ATTEMPTS + " attempts");
  }
}
