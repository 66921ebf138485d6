package dev.lancecommit.events.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.retry.RetryPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The ordering engine on its own, with a hand-driven clock. */
class SequencerTest {
  private static final TopicPartition P0 = new TopicPartition("t", 0);
  private static final List<String> ORDERS = List.of("shop", "orders");
  private static final List<String> USERS = List.of("users");

  private static final RetryPolicy DOUBLING_1S_TO_4S =
      RetryPolicy.exponential(Duration.ofSeconds(1), Duration.ofSeconds(4)).withJitter(RetryPolicy.Jitter.NONE);

  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final InMemoryCheckpointStore store = new InMemoryCheckpointStore();
  private final List<CommitEvent> seen = new ArrayList<>();
  private final Sequencer sequencer = new Sequencer(store, Duration.ofSeconds(10), DOUBLING_1S_TO_4S, now::get);
  private long nextOffset;

  private Sequencer.Offer offer(List<String> table, String uuid, long version) {
    return sequencer.offer(new Pending(TestEvents.event(table, uuid, version), P0, nextOffset++, now.get()));
  }

  private List<Long> versions(String uuid) {
    return seen.stream().filter(e -> e.tableUuid().equals(uuid)).map(CommitEvent::version).toList();
  }

  @Test
  void deliversInVersionOrderAndDropsDuplicates() {
    offer(ORDERS, "o", 1);
    offer(ORDERS, "o", 3);
    offer(USERS, "u", 1);
    offer(ORDERS, "o", 2);
    assertThat(offer(ORDERS, "o", 3)).isEqualTo(Sequencer.Offer.DUPLICATE);
    sequencer.deliver(seen::add);
    assertThat(versions("o")).containsExactly(1L, 2L, 3L);
    assertThat(versions("u")).containsExactly(1L);
    assertThat(offer(ORDERS, "o", 2)).isEqualTo(Sequencer.Offer.DUPLICATE);
    sequencer.deliver(seen::add);
    assertThat(versions("o")).containsExactly(1L, 2L, 3L);
    assertThat(store.checkpoints()).containsEntry("o", 3L).containsEntry("u", 1L);
    assertThat(sequencer.duplicates.get()).isEqualTo(2);
    assertThat(sequencer.pending()).isZero();
  }

  @Test
  void waitsForAGapUntilItFills() {
    offer(ORDERS, "o", 1);
    offer(ORDERS, "o", 3);
    offer(ORDERS, "o", 4);
    sequencer.deliver(seen::add);
    assertThat(versions("o")).containsExactly(1L);
    assertThat(sequencer.pending()).isEqualTo(2);
    now.addAndGet(Duration.ofSeconds(9).toNanos());
    sequencer.deliver(seen::add);
    assertThat(versions("o")).containsExactly(1L);
    offer(ORDERS, "o", 2);
    sequencer.deliver(seen::add);
    assertThat(versions("o")).containsExactly(1L, 2L, 3L, 4L);
    assertThat(sequencer.gapsSkipped.get()).isZero();
  }

  @Test
  void deliversPastAGapAfterTheTimeoutAndDropsTheLateVersion() {
    offer(ORDERS, "o", 1);
    offer(ORDERS, "o", 4);
    offer(ORDERS, "o", 5);
    sequencer.deliver(seen::add);
    now.addAndGet(Duration.ofSeconds(10).toNanos());
    sequencer.deliver(seen::add);
    assertThat(versions("o")).containsExactly(1L, 4L, 5L);
    assertThat(sequencer.gapsSkipped.get()).isEqualTo(1);
    assertThat(offer(ORDERS, "o", 3)).isEqualTo(Sequencer.Offer.LATE);
    assertThat(offer(ORDERS, "o", 5)).isEqualTo(Sequencer.Offer.DUPLICATE);
    assertThat(sequencer.late.get()).isEqualTo(1);
  }

  @Test
  void aTableWithoutCheckpointStartsAtVersionOne() {
    offer(USERS, "u", 7);
    sequencer.deliver(seen::add);
    assertThat(seen).isEmpty();
    now.addAndGet(Duration.ofSeconds(10).toNanos());
    sequencer.deliver(seen::add);
    assertThat(versions("u")).containsExactly(7L);
  }

  @Test
  void aBranchIsAStreamOfItsOwnThatAClonesStarts() {
    offer(ORDERS, "o", 1);
    offer(ORDERS, "o", 2);
    offer(ORDERS, "o", 3);
    // the branch's first version is the Clone of main's version 2; its versions repeat main's numbers
    sequencer.offer(new Pending(TestEvents.append(ORDERS, "o", 2).branch("dev").operation("Clone").build(), P0,
        nextOffset++, now.get()));
    sequencer.offer(new Pending(TestEvents.append(ORDERS, "o", 3).branch("dev").build(), P0, nextOffset++,
        now.get()));
    sequencer.deliver(seen::add);
    assertThat(seen).extracting(CommitEvent::id)
        .containsExactlyInAnyOrder("o:1", "o:2", "o:3", "o@dev:2", "o@dev:3");
    assertThat(store.checkpoints()).containsEntry("o", 3L).containsEntry("o@dev", 3L);
    assertThat(sequencer.gapsSkipped.get()).isZero();
    assertThat(sequencer.offer(new Pending(TestEvents.append(ORDERS, "o", 3).branch("dev").build(), P0,
        nextOffset++, now.get()))).isEqualTo(Sequencer.Offer.DUPLICATE);
  }

  @Test
  void resumesFromTheStoredCheckpoint() {
    store.advance("o", 5);
    assertThat(offer(ORDERS, "o", 5)).isEqualTo(Sequencer.Offer.DUPLICATE);
    offer(ORDERS, "o", 6);
    sequencer.deliver(seen::add);
    assertThat(versions("o")).containsExactly(6L);
  }

  @Test
  void aFailingHandlerIsRetriedWithBackoffAndHoldsLaterVersionsBack() {
    List<Long> attempts = new ArrayList<>();
    CommitHandler flaky = e -> {
      if (e.tableUuid().equals("o")) {
        attempts.add(e.version());
        if (e.version() == 2 && attempts.stream().filter(v -> v == 2).count() <= 2) {
          throw new IllegalStateException("database is down");
        }
      }
      seen.add(e);
    };
    offer(ORDERS, "o", 1);
    offer(ORDERS, "o", 2);
    offer(ORDERS, "o", 3);
    offer(USERS, "u", 1);
    sequencer.deliver(flaky);
    assertThat(versions("o")).containsExactly(1L);
    assertThat(versions("u")).containsExactly(1L);
    assertThat(sequencer.committableOffset(P0, nextOffset)).isEqualTo(1); // v2 (offset 1) still waits

    sequencer.deliver(flaky); // before the backoff ends: no new attempt
    assertThat(attempts).containsExactly(1L, 2L);
    now.addAndGet(Duration.ofSeconds(1).toNanos());
    sequencer.deliver(flaky); // second failure, backoff doubles to 2 s
    assertThat(attempts).containsExactly(1L, 2L, 2L);
    now.addAndGet(Duration.ofSeconds(1).toNanos());
    sequencer.deliver(flaky);
    assertThat(attempts).containsExactly(1L, 2L, 2L);
    now.addAndGet(Duration.ofSeconds(1).toNanos());
    sequencer.deliver(flaky);
    assertThat(versions("o")).containsExactly(1L, 2L, 3L);
    assertThat(sequencer.handlerFailures.get()).isEqualTo(2);
    assertThat(sequencer.committableOffset(P0, nextOffset)).isEqualTo(nextOffset);
  }

  @Test
  void aFailedCheckpointIsRetriedWithoutCallingTheHandlerAgain() {
    int[] failuresLeft = {1};
    TableCheckpointStore failingOnce = new TableCheckpointStore() {
      @Override
      public java.util.OptionalLong checkpoint(String tableUuid) {
        return store.checkpoint(tableUuid);
      }

      @Override
      public void advance(String tableUuid, long version) {
        if (failuresLeft[0]-- > 0) {
          throw new java.io.UncheckedIOException(new java.io.IOException("disk full"));
        }
        store.advance(tableUuid, version);
      }

      @Override
      public java.util.Map<String, Long> checkpoints() {
        return store.checkpoints();
      }
    };
    Sequencer withFailingStore = new Sequencer(failingOnce, Duration.ofSeconds(10), DOUBLING_1S_TO_4S, now::get);
    withFailingStore.offer(new Pending(TestEvents.event(ORDERS, "o", 1), P0, 0, now.get()));
    withFailingStore.deliver(seen::add);
    assertThat(store.checkpoint("o")).isEmpty();
    now.addAndGet(Duration.ofSeconds(1).toNanos());
    withFailingStore.deliver(seen::add);
    assertThat(versions("o")).containsExactly(1L);
    assertThat(store.checkpoint("o")).hasValue(1);
  }

  @Test
  void offsetsAreNotCommittablePastAWaitingEvent() {
    TopicPartition p1 = new TopicPartition("t", 1);
    offer(ORDERS, "o", 1); // offset 0
    offer(ORDERS, "o", 3); // offset 1, waits for 2
    offer(USERS, "u", 1); // offset 2
    sequencer.deliver(seen::add);
    assertThat(sequencer.committableOffset(P0, 3)).isEqualTo(1);
    assertThat(sequencer.committableOffset(p1, 40)).isEqualTo(40);
    sequencer.dropPartitions(List.of(P0));
    assertThat(sequencer.pending()).isZero();
    assertThat(sequencer.committableOffset(P0, 3)).isEqualTo(3);
  }
}
