package dev.lancecommit.events.consumer;

import dev.lancecommit.retry.Backoff;
import dev.lancecommit.retry.RetryPolicy;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ordering and deduplication engine of {@link CommitEventConsumer}, without Kafka: events are offered as they
 * are read, {@link #deliver} hands every event that is due to the handler in version order per table, and
 * {@link #committableOffset} tells how far a partition's offset may be committed (not past any event still waiting).
 *
 * <p>Per table (per {@link dev.lancecommit.events.CommitEvent#streamKey() stream}: a Lance branch numbers its versions
 * apart from main): a version at or below the checkpoint is a duplicate; checkpoint+1 is delivered, and so is the
 * first version of a stream that a Clone made (a branch or clone starts at its source's version number, not at 1); a
 * higher version waits until the versions before it arrive, or until it has waited the gap timeout, when it is delivered anyway and
 * the missing versions are recorded as skipped (if one of them arrives later it is dropped as late). A handler or
 * checkpoint failure keeps the event at the head of its table and retries it after a growing backoff.
 *
 * <p>Not thread-safe: used by the consumer's polling thread only; the counters may be read from anywhere.
 */
final class Sequencer {
  private static final Logger LOG = LoggerFactory.getLogger(Sequencer.class);
  private static final int MAX_SKIPPED_RANGES = 64;
  /** The Lance operation that creates a table or branch at its source's version number. */
  private static final String CLONE = "Clone";

  enum Offer {
    QUEUED,
    DUPLICATE,
    LATE
  }

  private final TableCheckpointStore store;
  private final long gapTimeoutNanos;
  private final RetryPolicy retry;
  private final LongSupplier nanoClock;
  private final Map<String, TableQueue> tables = new HashMap<>();
  private final Map<TopicPartition, TreeSet<Long>> pendingOffsets = new HashMap<>();
  private int pending;

  final AtomicLong delivered = new AtomicLong();
  final AtomicLong duplicates = new AtomicLong();
  final AtomicLong late = new AtomicLong();
  final AtomicLong gapsSkipped = new AtomicLong();
  final AtomicLong handlerFailures = new AtomicLong();

  Sequencer(TableCheckpointStore store, Duration gapTimeout, RetryPolicy retry, LongSupplier nanoClock) {
    this.store = store;
    this.gapTimeoutNanos = gapTimeout.toNanos();
    this.retry = retry;
    this.nanoClock = nanoClock;
  }

  private static final class TableQueue {
    final String uuid;
    long checkpoint = -1; // -1: not loaded from the store yet; 0: none
    final TreeMap<Long, Pending> waiting = new TreeMap<>();
    final Deque<long[]> skipped = new ArrayDeque<>();
    boolean headHandled;
    /** Failures of the head event; null until the first. */
    Backoff backoff;
    long retryAtNanos;

    TableQueue(String uuid) {
      this.uuid = uuid;
    }

    int failures() {
      return backoff == null ? 0 : backoff.failures();
    }

    void resetFailures() {
      if (backoff != null) {
        backoff.reset();
      }
    }

    boolean wasSkipped(long version) {
      for (long[] range : skipped) {
        if (version >= range[0] && version <= range[1]) {
          return true;
        }
      }
      return false;
    }
  }

  Offer offer(Pending event) {
    String uuid = event.event().streamKey();
    long version = event.event().version();
    TableQueue table = tables.computeIfAbsent(uuid, TableQueue::new);
    long checkpoint = checkpoint(table);
    if (version <= checkpoint) {
      if (table.wasSkipped(version)) {
        late.incrementAndGet();
        LOG.warn("table {} ({}): version {} arrived after the consumer had skipped past it (checkpoint {}); dropped",
            event.event().tableKey(), uuid, version, checkpoint);
        return Offer.LATE;
      }
      duplicates.incrementAndGet();
      LOG.debug("table {}: duplicate version {} (checkpoint {})", uuid, version, checkpoint);
      dropIfIdle(table);
      return Offer.DUPLICATE;
    }
    if (table.waiting.containsKey(version)) {
      duplicates.incrementAndGet();
      return Offer.DUPLICATE;
    }
    table.waiting.put(version, event);
    pendingOffsets.computeIfAbsent(event.partition(), p -> new TreeSet<>()).add(event.offset());
    pending++;
    return Offer.QUEUED;
  }

  /** Delivers every event that is due now; returns how many were delivered. */
  int deliver(CommitHandler handler) {
    int count = 0;
    Iterator<TableQueue> it = tables.values().iterator();
    while (it.hasNext()) {
      TableQueue table = it.next();
      count += deliver(table, handler);
      if (table.waiting.isEmpty() && table.skipped.isEmpty() && table.failures() == 0) {
        it.remove(); // the checkpoint is re-read from the store when the table shows up again
      }
    }
    return count;
  }

  private int deliver(TableQueue table, CommitHandler handler) {
    int count = 0;
    while (!table.waiting.isEmpty()) {
      long now = nanoClock.getAsLong();
      if (table.failures() > 0 && now - table.retryAtNanos < 0) {
        break;
      }
      Map.Entry<Long, Pending> head = table.waiting.firstEntry();
      long version = head.getKey();
      Pending event = head.getValue();
      long checkpoint = checkpoint(table);
      if (version <= checkpoint) {
        // the store moved on (another consumer sharing it delivered this version)
        duplicates.incrementAndGet();
        remove(table, event);
        continue;
      }
      // A Clone (a new branch, a cloned table) starts its stream at its source's version number.
      boolean gap = version > checkpoint + 1
          && !(checkpoint == 0 && CLONE.equals(event.event().operation()));
      if (gap && now - event.arrivedNanos() < gapTimeoutNanos) {
        break;
      }
      if (!table.headHandled) {
        try {
          handler.onCommit(event.event());
        } catch (Exception e) {
          fail(table, event, "handler", e);
          break;
        }
        table.headHandled = true;
      }
      try {
        store.advance(table.uuid, version);
      } catch (RuntimeException e) {
        fail(table, event, "checkpoint", e);
        break;
      }
      if (gap) {
        gapsSkipped.incrementAndGet();
        long from = checkpoint + 1;
        LOG.warn("table {} ({}): versions {}..{} did not arrive within the gap timeout of {} ms; delivered version {}"
                + " without them (they can only come back through the coordinator's reconciler)",
            event.event().tableKey(), table.uuid, from, version - 1, gapTimeoutNanos / 1_000_000, version);
        table.skipped.addLast(new long[] {from, version - 1});
        if (table.skipped.size() > MAX_SKIPPED_RANGES) {
          table.skipped.removeFirst();
        }
      }
      table.checkpoint = version;
      table.headHandled = false;
      table.resetFailures();
      remove(table, event);
      delivered.incrementAndGet();
      count++;
    }
    return count;
  }

  private void fail(TableQueue table, Pending event, String what, Exception e) {
    handlerFailures.incrementAndGet();
    if (table.backoff == null) {
      table.backoff = retry.start(nanoClock, () -> ThreadLocalRandom.current().nextDouble());
    }
    long pause = table.backoff.onFailure().orElseThrow().toNanos(); // the policy has no limit: retries never stop
    table.retryAtNanos = nanoClock.getAsLong() + pause;
    LOG.warn("table {} ({}) version {}: {} failed (attempt {}), retrying in {} ms: {}",
        event.event().tableKey(), table.uuid, event.event().version(), what, table.backoff.failures(),
        pause / 1_000_000, e.toString(), e);
  }

  private void remove(TableQueue table, Pending event) {
    table.waiting.remove(event.event().version());
    TreeSet<Long> offsets = pendingOffsets.get(event.partition());
    if (offsets != null) {
      offsets.remove(event.offset());
      if (offsets.isEmpty()) {
        pendingOffsets.remove(event.partition());
      }
    }
    pending--;
  }

  private void dropIfIdle(TableQueue table) {
    if (table.waiting.isEmpty() && table.skipped.isEmpty() && table.failures() == 0) {
      tables.remove(table.uuid);
    }
  }

  private long checkpoint(TableQueue table) {
    if (table.checkpoint < 0) {
      OptionalLong stored = store.checkpoint(table.uuid);
      table.checkpoint = stored.orElse(0);
    }
    return table.checkpoint;
  }

  /**
   * The offset up to which {@code partition} may be committed: the offset of its oldest waiting event, or
   * {@code position} (the next offset to read) when none waits.
   */
  long committableOffset(TopicPartition partition, long position) {
    TreeSet<Long> offsets = pendingOffsets.get(partition);
    return offsets == null || offsets.isEmpty() ? position : Math.min(offsets.first(), position);
  }

  /** Forgets the waiting events of partitions this consumer no longer owns (their new owner reads them again). */
  void dropPartitions(Collection<TopicPartition> partitions) {
    Set<TopicPartition> gone = new HashSet<>(partitions);
    for (Iterator<TableQueue> it = tables.values().iterator(); it.hasNext(); ) {
      TableQueue table = it.next();
      boolean touched = false;
      for (Iterator<Pending> events = table.waiting.values().iterator(); events.hasNext(); ) {
        Pending event = events.next();
        if (gone.contains(event.partition())) {
          events.remove();
          pending--;
          touched = true;
        }
      }
      if (touched) {
        table.headHandled = false;
        table.resetFailures();
      }
      if (table.waiting.isEmpty()) {
        it.remove();
      }
    }
    gone.forEach(pendingOffsets::remove);
  }

  /** Makes every table read its checkpoint from the store again (after a rebalance; the store may be shared). */
  void forgetCheckpoints() {
    for (TableQueue table : tables.values()) {
      if (!table.headHandled) {
        table.checkpoint = -1;
      }
    }
  }

  int pending() {
    return pending;
  }
}
