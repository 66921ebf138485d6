package dev.lancecommit.coordinator.batch;

import dev.lancecommit.coordinator.commit.CheckedCommit;
import dev.lancecommit.coordinator.commit.CommitRequest;
import dev.lancecommit.coordinator.commit.CommitResult;
import dev.lancecommit.coordinator.commit.HeldLane;
import dev.lancecommit.coordinator.commit.TableLanes;
import dev.lancecommit.coordinator.commit.TableNotOwnedException;
import dev.lancecommit.coordinator.storage.StoreException;
import dev.lancecommit.coordinator.table.CommitStateUnknownException;
import dev.lancecommit.coordinator.table.TableRef;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cluster mode, on the owner of a table: the holds of its lanes taken for atomic batches another instance coordinates
 * (the receiving instance's {@link TableLanes} reaches them over the internal lane routes). A hold keeps its check
 * here (the built version never travels) and has a lease the coordinating instance renews.
 *
 * <p>A lease that runs out must not simply let the lane go: the batch's record, written with put-if-absent by the
 * coordinating instance, is the batch's decision, and it may be written already (the coordinating instance died
 * between the record and this member's write). So the owner first writes an <em>abort</em> at the record's key with
 * put-if-absent ({@link BatchLog#abort}):
 *
 * <ul>
 *   <li>the abort is written: the record can never be (the coordinating instance's put-if-absent fails and it answers
 *       that nothing was applied); the lane is released, nothing written;
 *   <li>the record was there first: the batch happens, so the owner writes its member's version itself (roll
 *       forward; the record names the transaction), then releases the lane with the version's event;
 *   <li>the store does not answer: nothing is decided and the lane stays held; the next sweep tries again.
 * </ul>
 *
 * A hold that was never checked holds no decision and is released; one whose member was applied is released with
 * its event. The coordinating instance learns an ended hold from its next call (answered as a lost lane,
 * {@link TableNotOwnedException}), except that applying a member the owner rolled forward answers its result.
 */
public final class LeasedHolds implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LeasedHolds.class);
  private static final int ROLL_FORWARD_ATTEMPTS = 3;

  private final TableLanes lanes;
  private final BatchLog log;
  private final PendingBatches pending;
  private final Executor executor;
  private final Clock clock;
  private final Duration lease;
  private final String self;
  private final Map<String, Lease> leases = new ConcurrentHashMap<>();
  private final ScheduledExecutorService sweeper;
  private volatile boolean closed;
  private final boolean abandonOnClose;

  private enum State { HELD, CHECKED, APPLIED, RELEASED, ABORTED, ROLLED_FORWARD }

  private final class Lease {
    final String id;
    final TableRef table;
    final String batchId;
    final HeldLane held;
    volatile long deadlineNanos;
    volatile State state = State.HELD;
    volatile boolean expiring;
    CheckedCommit checked;
    CommitResult result;
    long endedNanos;
    /** The member version hidden from namespace readers and the reconciler here while the hold lasts; -1: none. */
    long hidden = -1;

    Lease(String id, TableRef table, String batchId, HeldLane held) {
      this.id = id;
      this.table = table;
      this.batchId = batchId;
      this.held = held;
      renew();
    }

    void renew() {
      deadlineNanos = System.nanoTime() + lease.toNanos();
    }

    boolean active() {
      State s = state;
      return s == State.HELD || s == State.CHECKED || s == State.APPLIED;
    }

    void end(State to, boolean handOverEvents) {
      held.release(handOverEvents); // the events first: the reconciler must not publish the version without its batch
      state = to;
      endedNanos = System.nanoTime();
      hide(null);
    }

    /** Hides the version the check makes (none when it was made already), showing the one hidden before. */
    void hide(CheckedCommit check) {
      if (hidden >= 0) {
        pending.show(table.location(), hidden);
        hidden = -1;
      }
      if (check != null && !check.alreadyCommitted()) {
        hidden = check.version();
        pending.hide(table.location(), hidden);
      }
    }

    TableNotOwnedException ended() {
      return new TableNotOwnedException("The hold " + id + " of table " + table.joinedId() + " for batch " + batchId
          + " has ended (" + state.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ') + ")");
    }
  }

  /**
   * @param lanes this instance's own lanes
   * @param warehouse where batch records live
   * @param pending hides a held member's version here (namespace readers, the reconciler) until the hold ends
   * @param executor runs expiries (blocking: the abort or the member's write)
   * @param lease how long a hold lasts without being renewed
   * @param self this instance's advertised URL, written into aborts
   */
  public LeasedHolds(TableLanes lanes, dev.lancecommit.coordinator.storage.StorageLocation warehouse,
      PendingBatches pending, Executor executor, Clock clock, Duration lease, String self) {
    this(lanes, warehouse, pending, executor, clock, lease, self, false);
  }

  /**
   * @param abandonOnClose testing only: {@link #close} leaves the running holds undecided, as a killed process would
   *     (see {@code cluster.test.abandon-holds-on-close})
   */
  public LeasedHolds(TableLanes lanes, dev.lancecommit.coordinator.storage.StorageLocation warehouse,
      PendingBatches pending, Executor executor, Clock clock, Duration lease, String self, boolean abandonOnClose) {
    this.abandonOnClose = abandonOnClose;
    this.pending = Objects.requireNonNull(pending, "pending");
    this.lanes = Objects.requireNonNull(lanes, "lanes");
    this.log = new BatchLog(warehouse);
    this.executor = Objects.requireNonNull(executor, "executor");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.lease = Objects.requireNonNull(lease, "lease");
    this.self = Objects.requireNonNull(self, "self");
    this.sweeper = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "lance-commit-lane-leases");
      thread.setDaemon(true);
      return thread;
    });
    long every = Math.max(25, lease.toMillis() / 4);
    sweeper.scheduleWithFixedDelay(this::sweep, every, every, TimeUnit.MILLISECONDS);
  }

  /** How long a hold lasts without being renewed. */
  public Duration lease() {
    return lease;
  }

  /** Holds the table's lane for batch {@code batchId}; completes with the hold's id. */
  public CompletableFuture<String> hold(TableRef table, String batchId) {
    Objects.requireNonNull(batchId, "batchId");
    if (closed) {
      return CompletableFuture.failedFuture(new TableNotOwnedException("This coordinator is stopping"));
    }
    return lanes.hold(table).thenApply(held -> {
      String id = UUID.randomUUID().toString();
      leases.put(id, new Lease(id, table, batchId, held));
      return id;
    });
  }

  /** Checks the member under the hold and keeps the check for {@link #apply}. Blocking. */
  public CheckedCommit check(String holdId, CommitRequest request) {
    Lease lease = find(holdId);
    synchronized (lease) {
      if (!lease.active()) {
        throw lease.ended();
      }
      lease.renew();
      lease.checked = null;
      CheckedCommit checked;
      try {
        checked = lease.held.check(request);
      } catch (RuntimeException e) {
        lease.hide(null);
        throw e;
      }
      lease.hide(checked);
      lease.checked = checked;
      lease.state = State.CHECKED;
      lease.renew();
      return checked;
    }
  }

  /** Writes the member checked under the hold (or answers the version the owner rolled forward). Blocking. */
  public CommitResult apply(String holdId, String batchId) {
    Lease lease = find(holdId);
    synchronized (lease) {
      if (!lease.batchId.equals(batchId)) {
        throw new IllegalArgumentException("Hold " + holdId + " belongs to batch " + lease.batchId);
      }
      if (lease.state == State.ROLLED_FORWARD || lease.state == State.APPLIED) {
        lease.renew();
        return lease.result;
      }
      if (lease.state != State.CHECKED || lease.checked == null) {
        throw lease.ended();
      }
      lease.renew();
      CommitResult result = lease.held.apply(lease.checked, batchId);
      lease.result = result;
      lease.state = State.APPLIED;
      lease.renew();
      return result;
    }
  }

  /** Extends the hold's lease. Never waits for a check or write under way. */
  public void renew(String holdId) {
    Lease lease = find(holdId);
    if (!lease.active()) {
      throw lease.ended();
    }
    lease.renew();
  }

  /** Ends the hold, handing its kept events over when asked. Idempotent; an unknown hold is a no-op. */
  public void release(String holdId, boolean handOverEvents) {
    Lease lease = leases.get(holdId);
    if (lease == null) {
      return;
    }
    synchronized (lease) {
      if (lease.active()) {
        lease.end(State.RELEASED, handOverEvents);
      }
    }
  }

  /** Holds whose member is checked and not yet written or decided (for tests and status). */
  public int checked() {
    return (int) leases.values().stream().filter(l -> l.state == State.CHECKED).count();
  }

  /** Holds whose lease is running (for tests and status). */
  public int active() {
    return (int) leases.values().stream().filter(Lease::active).count();
  }

  private Lease find(String holdId) {
    Lease lease = leases.get(holdId);
    if (lease == null) {
      throw new TableNotOwnedException("No hold " + holdId + " here (it ended, or this instance restarted)");
    }
    return lease;
  }

  private void sweep() {
    long now = System.nanoTime();
    for (Lease lease : List.copyOf(leases.values())) {
      if (lease.active() && now - lease.deadlineNanos > 0 && !lease.expiring) {
        lease.expiring = true;
        try {
          executor.execute(() -> {
            try {
              expire(lease, false);
            } finally {
              lease.expiring = false;
            }
          });
        } catch (RuntimeException e) {
          lease.expiring = false;
        }
      } else if (!lease.active() && now - lease.endedNanos > this.lease.toNanos() * 10) {
        leases.remove(lease.id);
      }
    }
  }

  private void expire(Lease lease, boolean closing) {
    synchronized (lease) {
      if (!lease.active() || !closing && System.nanoTime() - lease.deadlineNanos <= 0) {
        return; // ended or renewed meanwhile
      }
      switch (lease.state) {
        case HELD -> {
          LOG.warn("Hold {} of table {} for batch {} was not renewed; released (nothing was checked)", lease.id,
              lease.table.joinedId(), lease.batchId);
          lease.end(State.RELEASED, false);
        }
        case APPLIED -> lease.end(State.RELEASED, true);
        case CHECKED -> decide(lease);
        default -> { }
      }
    }
  }

  /** A checked hold whose lease ran out: abort the batch, or complete its member if the batch is recorded. */
  private void decide(Lease lease) {
    Optional<BatchRecord> recorded;
    try {
      recorded = log.abort(lease.batchId, clock.instant(), self);
    } catch (StoreException e) {
      LOG.warn("Hold {} of table {} for batch {} ran out but the batch could not be fenced ({}); the lane stays held",
          lease.id, lease.table.joinedId(), lease.batchId, e.toString());
      return;
    }
    if (recorded.isEmpty()) {
      LOG.warn("Hold {} of table {} for batch {} was not renewed; the batch is fenced (aborted before its record) and "
          + "the lane released", lease.id, lease.table.joinedId(), lease.batchId);
      lease.end(State.ABORTED, false);
      return;
    }
    BatchRecord record = recorded.get();
    Optional<BatchRecord.Member> member = record.members().stream().filter(m -> m.location()
        .equals(lease.table.location()) && Objects.equals(m.tableUuid(), lease.table.tableUuid())).findFirst();
    if (member.isEmpty()) {
      LOG.error("Batch {} is recorded without a member for table {}; its hold is released", lease.batchId,
          lease.table.joinedId());
      lease.end(State.RELEASED, false);
      return;
    }
    rollForward(lease, record, member.get());
  }

  private void rollForward(Lease lease, BatchRecord record, BatchRecord.Member member) {
    for (int attempt = 1; attempt <= ROLL_FORWARD_ATTEMPTS; attempt++) {
      try {
        if (lease.checked == null) {
          lease.checked = lease.held.check(new CommitRequest(member.transaction(), Optional.empty(), member.rebase(),
              record.actor()));
          lease.hide(lease.checked);
        }
        if (lease.checked.version() != member.version()) {
          LOG.error("Batch {}: member {} (table {}) was to make version {} but the table's next version is {}; the "
              + "batch cannot be completed", record.batchId(), member.index(), lease.table.joinedId(),
              member.version(), lease.checked.version());
          lease.end(State.RELEASED, true);
          return;
        }
        lease.result = lease.held.apply(lease.checked, record.batchId());
        LOG.warn("Hold {} of table {} for recorded batch {} was not renewed; its member's version {} is written here "
            + "(roll forward)", lease.id, lease.table.joinedId(), record.batchId(), member.version());
        lease.end(State.ROLLED_FORWARD, true);
        return;
      } catch (StoreException | CommitStateUnknownException e) {
        lease.checked = null; // check again: finds the version written, or builds it again
        LOG.warn("Batch {}: rolling member {} forward failed ({}), attempt {}", record.batchId(), member.index(),
            e.toString(), attempt);
      } catch (RuntimeException e) {
        LOG.error("Batch {}: member {} (table {}) cannot be written: {}", record.batchId(), member.index(),
            lease.table.joinedId(), e.toString());
        lease.end(State.RELEASED, true);
        return;
      }
    }
    // Still held and checked-state: the next sweep tries again (the lane must not move on without this version).
  }

  /** Ends every running hold as an expiry would: nothing is released without the batch being decided. */
  @Override
  public void close() {
    closed = true;
    sweeper.shutdownNow();
    if (abandonOnClose) {
      LOG.warn("Closing without deciding {} running holds (cluster.test.abandon-holds-on-close)", active());
      return;
    }
    for (Lease lease : List.copyOf(leases.values())) {
      if (lease.active()) {
        try {
          expire(lease, true);
        } catch (RuntimeException e) {
          LOG.warn("Hold {} could not be ended on close: {}", lease.id, e.toString());
        }
      }
    }
  }
}
