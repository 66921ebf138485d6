package dev.lancecommit.coordinator.batch;

import dev.lancecommit.coordinator.commit.CheckedCommit;
import dev.lancecommit.coordinator.commit.CommitRequest;
import dev.lancecommit.coordinator.commit.CommitResult;
import dev.lancecommit.coordinator.commit.HeldLane;
import dev.lancecommit.coordinator.commit.InvalidCommitRequestException;
import dev.lancecommit.coordinator.commit.TableLanes;
import dev.lancecommit.coordinator.commit.TableNotOwnedException;
import dev.lancecommit.coordinator.commit.TransactionDecoding;
import dev.lancecommit.coordinator.commit.VersionConflictException;
import dev.lancecommit.coordinator.commit.VersionEvents;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.storage.StoreException;
import dev.lancecommit.coordinator.storage.StoreUnavailableException;
import dev.lancecommit.coordinator.table.CommitStateUnknownException;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.retry.Backoff;
import dev.lancecommit.retry.RetryPolicy;
import dev.lancecommit.rules.InvalidTransactionException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits one version to each of several tables atomically for every reader that resolves versions through the
 * namespace (BatchCreateTableVersions, BatchCommitTables).
 *
 * <ol>
 *   <li><b>Hold.</b> The members' lanes are held ({@link TableLanes#hold}) one after the other in one global order
 *       (table location, then uuid), so two batches sharing tables never wait on each other in a cycle.
 *   <li><b>Check.</b> Under the holds every member is checked as its lane would check it alone and must make exactly
 *       the version asked for. One failure releases every lane, writes nothing and names the member.
 *   <li><b>Record.</b> The member versions are hidden from namespace readers ({@link PendingBatches}), then the batch
 *       record is written with put-if-absent ({@link BatchLog}): from here on the batch happens.
 *   <li><b>Apply.</b> Each member version is written under its hold (failures of the store are retried; a version
 *       whose write outcome was unknown is checked again, which finds it committed or writes it).
 *   <li><b>Finish.</b> The done marker is written, the versions shown, the lanes released with one event per
 *       version, each carrying the batch id.
 * </ol>
 *
 * A coordinator that dies after step 3 leaves the record without its marker: the next start hides those members
 * before it serves anything ({@link #hideUnfinished}) and completes the batch ({@link #completeUnfinished}): roll
 * forward, never back. A record whose write had an unknown outcome is read back in the background until it is known
 * to exist (then the batch completes) or not (then it is abandoned and its members shown again).
 *
 * <p>Lanes are reached through {@link TableLanes} only: in cluster mode a batch whose tables other instances own is
 * coordinated by the instance that received it, the lanes of those tables held on their owners
 * ({@code http.ClusterLanes}, {@link LeasedHolds}); the record's put-if-absent stays the single decision, also against
 * an owner that fences a batch whose coordinator went silent. Such a batch is announced ({@link BatchIntent}) before
 * its first hold, so that a table's next owner settles it before serving, should the owner holding its lane die
 * ({@link LaneTakeover}).
 */
public final class BatchCoordinator implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BatchCoordinator.class);
  private static final RetryPolicy APPLY_RETRY = RetryPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(2));
  private static final Duration BACKGROUND_RETRY = Duration.ofSeconds(2);
  private static final int HOLD_AGAIN_ATTEMPTS = 3;
  private static final Duration HOLD_AGAIN_WAIT = Duration.ofSeconds(30);

  private final TableLanes lanes;
  private final BatchLog log;
  private final PendingBatches pending;
  private final Executor executor;
  private final Clock clock;
  private final int applyAttempts;
  private final Duration retention;
  private final Duration applyPause;
  private final Duration recordPause;
  /** Batches whose intent this instance wrote and has not removed yet. */
  private final Set<String> announced = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService background;
  /** Recorded batches this instance is completing (its own, or found unfinished): the sweep leaves them alone. */
  private final Set<String> completing = ConcurrentHashMap.newKeySet();

  /** A batch whose versions all exist: its id and one result per member, in request order. */
  public record Committed(String batchId, List<CommitResult> results) {}

  /** One member: a commit to {@code table} that must make exactly {@code version}. */
  public record Member(TableRef table, CommitRequest request, long version) {
    public Member {
      Objects.requireNonNull(table, "table");
      Objects.requireNonNull(request, "request");
    }

    /**
     * The same member, its transaction naming the batch ({@link VersionEvents#BATCH_PROPERTY}): the bytes the batch
     * records, so whoever writes the member writes the same transaction. Bytes the commit path would refuse (none,
     * not a transaction, misencoded fields) stay as they are, for the member's check to refuse with its own error.
     */
    Member inBatch(String batchId) {
      Transaction txn;
      try {
        txn = TransactionDecoding.decode(request.transaction());
      } catch (InvalidTransactionException e) {
        return this;
      }
      byte[] named = txn.toBuilder().putTransactionProperties(VersionEvents.BATCH_PROPERTY, batchId).build()
          .toByteArray();
      return new Member(table, request.withTransaction(named), version);
    }
  }

  /**
   * @param warehouse where batch records live ({@code _catalog/batches/})
   * @param executor runs the blocking part of a batch (checks and writes)
   * @param applyAttempts attempts to write a member version before the batch is left to the background
   * @param retention how long finished batch records are kept
   * @param applyPause a pause between writing two member versions: zero, except to let a fault test kill the
   *     coordinator in the middle of a batch
   */
  public BatchCoordinator(TableLanes lanes, StorageLocation warehouse, PendingBatches pending, Executor executor,
      Clock clock, int applyAttempts, Duration retention, Duration applyPause) {
    this(lanes, warehouse, pending, executor, clock, applyAttempts, retention, applyPause, Duration.ZERO);
  }

  /**
   * @param recordPause a pause between the members' checks and the batch record: zero, except to let a fault test
   *     stop an owner in that window
   */
  public BatchCoordinator(TableLanes lanes, StorageLocation warehouse, PendingBatches pending, Executor executor,
      Clock clock, int applyAttempts, Duration retention, Duration applyPause, Duration recordPause) {
    this.recordPause = Objects.requireNonNull(recordPause, "recordPause");
    this.lanes = Objects.requireNonNull(lanes, "lanes");
    this.log = new BatchLog(warehouse);
    this.pending = Objects.requireNonNull(pending, "pending");
    this.executor = Objects.requireNonNull(executor, "executor");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.applyAttempts = applyAttempts;
    this.retention = retention;
    this.applyPause = applyPause;
    this.background = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "lance-commit-batches");
      thread.setDaemon(true);
      return thread;
    });
  }

  /**
   * Commits the batch. The future completes with one result per member, in request order, or fails with a
   * {@link BatchMemberException} (nothing written), a {@link BatchPendingException} (recorded or maybe recorded,
   * completed in the background), a {@link BatchBrokenException}, or a store failure before anything was written.
   *
   * @param operation the spec operation, recorded for inspection
   */
  public CompletableFuture<Committed> commit(String operation, String actor, List<Member> members) {
    try {
      requireDistinctTables(members);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    String batchId = UUID.randomUUID().toString();
    CompletableFuture<Void> announcing = announce(batchId, members);
    CompletableFuture<Committed> done = announcing.thenCompose(ignored -> holdAll(batchId, members))
        .thenApplyAsync(held -> run(batchId, operation, actor, members, held), executor);
    done.whenComplete((ok, failure) -> {
      if (failure != null && !(unwrap(failure) instanceof BatchPendingException)) {
        withdraw(batchId); // decided: not recorded (or recorded and finished); a pending one keeps its intent
      }
    });
    return done;
  }

  /**
   * Cluster mode, a batch whose tables are not all owned here: writes its {@link BatchIntent} before the first hold,
   * so that an instance taking one of its tables over while the batch holds it on its old owner learns the batch
   * before it commits anything ({@link LaneTakeover}): a hold is granted only by an owner, and an owner whose
   * ownership begins after the grant lists the intents when its lane is made. Nothing is written otherwise.
   */
  private CompletableFuture<Void> announce(String batchId, List<Member> members) {
    if (lanes.ownedHere(members.stream().map(Member::table).toList())) {
      return CompletableFuture.completedFuture(null);
    }
    BatchIntent intent = new BatchIntent(BatchRecord.FORMAT, batchId, clock.instant().toString(),
        members.stream().map(m -> BatchIntent.Member.of(m.table())).toList());
    return CompletableFuture.runAsync(() -> {
      try {
        log.announce(intent);
      } catch (StoreException e) {
        throw new StoreUnavailableException("Batch " + batchId + " could not be announced before holding the lanes "
            + "of its tables on their owners (" + e.getMessage() + "); nothing of the batch was applied. Retry the "
            + "request.", e);
      }
      announced.add(batchId);
    }, executor);
  }

  /** Removes the batch's intent, if this instance wrote one: the batch is decided. */
  private void withdraw(String batchId) {
    if (announced.remove(batchId)) {
      log.withdraw(batchId);
    }
  }

  private static void requireDistinctTables(List<Member> members) {
    if (members.isEmpty()) {
      throw new InvalidCommitRequestException("A batch needs at least one member", "Give one entry per table");
    }
    Map<String, Integer> seen = new HashMap<>();
    for (int i = 0; i < members.size(); i++) {
      Integer before = seen.putIfAbsent(laneKey(members.get(i).table()), i);
      if (before != null) {
        throw new InvalidCommitRequestException("Members " + before + " and " + i + " name the same table "
            + members.get(i).table().joinedId(), "A batch makes one version per table; commit further versions of "
            + "a table in another request");
      }
    }
  }

  private static String laneKey(TableRef table) {
    return table.location() + "#" + table.tableUuid();
  }

  /** Holds every member's lane, one after the other in the global order; by request index. */
  private CompletableFuture<Map<Integer, HeldLane>> holdAll(String batchId, List<Member> members) {
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < members.size(); i++) {
      order.add(i);
    }
    order.sort(Comparator.comparing(i -> laneKey(members.get(i).table())));
    CompletableFuture<Map<Integer, HeldLane>> held = CompletableFuture.completedFuture(new HashMap<>());
    for (int index : order) {
      TableRef table = members.get(index).table();
      held = held.thenCompose(map -> lanes.hold(table, batchId).handle((lane, failure) -> {
        if (failure != null) {
          map.values().forEach(l -> l.release(false));
          throw new BatchMemberException(index, table.id(), unwrap(failure));
        }
        map.put(index, lane);
        return map;
      }));
    }
    return held;
  }

  private Committed run(String batchId, String operation, String actor, List<Member> submitted,
      Map<Integer, HeldLane> held) {
    List<Member> members = submitted.stream().map(m -> m.inBatch(batchId)).toList();
    if (!announced.contains(batchId) && held.values().stream().anyMatch(HeldLane::elsewhere)) {
      // a table moved to another instance between the choice not to announce and its hold: without an intent its
      // next owner could not learn this batch, so nothing is checked there
      held.values().forEach(lane -> lane.release(false));
      throw new StoreUnavailableException("The owner of a table of batch " + batchId + " changed while its lanes were "
          + "being held; nothing of the batch was applied. Retry the request.", null);
    }
    List<CheckedCommit> checked = new ArrayList<>();
    try {
      for (int i = 0; i < members.size(); i++) {
        Member member = members.get(i);
        try {
          CheckedCommit check = held.get(i).check(member.request());
          requireVersion(member, check);
          checked.add(check);
        } catch (RuntimeException e) {
          throw new BatchMemberException(i, member.table().id(), e);
        }
      }
    } catch (RuntimeException e) {
      held.values().forEach(lane -> lane.release(false));
      throw e;
    }
    if (checked.stream().allMatch(CheckedCommit::alreadyCommitted)) {
      return repeated(members, held, checked);
    }
    List<BatchRecord.Member> recorded = new ArrayList<>();
    for (int i = 0; i < members.size(); i++) {
      Member member = members.get(i);
      Transaction txn = checked.get(i).transaction();
      recorded.add(new BatchRecord.Member(i, member.table().id(), member.table().tableUuid(),
          member.table().location(), member.version(), txn.getUuid(), member.request().transaction(),
          member.request().rebase()));
    }
    if (!recordPause.isZero()) {
      sleep(recordPause);
    }
    BatchRecord record = new BatchRecord(BatchRecord.FORMAT, batchId, clock.instant().toString(), operation, actor,
        recorded);
    hide(record);
    completing.add(batchId);
    switch (log.write(record)) {
      case ABSENT -> {
        show(record);
        held.values().forEach(lane -> lane.release(false));
        throw new StoreUnavailableException("The record of batch " + batchId + " could not be written; nothing of "
            + "the batch was applied. Retry the request.", null);
      }
      case ABORTED -> {
        show(record);
        held.values().forEach(lane -> lane.release(false));
        throw new StoreUnavailableException("Batch " + batchId + " took too long: the owner of one of its tables "
            + "ended its hold (cluster.batch-hold-lease.ms) and fenced the batch before its record was written; "
            + "nothing of the batch was applied. Retry the request.", null);
      }
      case UNKNOWN -> {
        background.execute(() -> settle(record, held));
        throw new BatchPendingException(batchId, "Could not tell whether the record of batch " + batchId
            + " was written; the coordinator completes or abandons it once the store answers. Its versions are not "
            + "shown meanwhile; the same request again answers once it is settled.", null);
      }
      case WRITTEN -> { }
    }
    return new Committed(batchId, complete(record, held, checked));
  }

  /**
   * The same batch again (its answer was lost, or it was rolled forward after a crash): every member's transaction
   * already made its version. Nothing is written; the answer and the events again carry the original batch's id, found
   * among the kept records (a fresh id when the record is gone).
   */
  private Committed repeated(List<Member> members, Map<Integer, HeldLane> held, List<CheckedCommit> checked) {
    List<String> uuids = checked.stream().map(c -> c.transaction().getUuid()).toList();
    String batchId;
    try {
      batchId = log.findByTransactions(uuids).map(BatchRecord::batchId).orElse(UUID.randomUUID().toString());
    } catch (StoreException e) {
      held.values().forEach(lane -> lane.release(false));
      throw e;
    }
    List<CommitResult> results = new ArrayList<>();
    try {
      for (int i = 0; i < members.size(); i++) {
        results.add(held.get(i).apply(checked.get(i), batchId));
      }
    } catch (RuntimeException e) {
      held.values().forEach(lane -> lane.release(false));
      throw e;
    }
    held.values().forEach(lane -> lane.release(true));
    return new Committed(batchId, results);
  }

  private static void requireVersion(Member member, CheckedCommit check) {
    if (check.version() != member.version()) {
      throw new VersionConflictException("Version " + member.version() + " of " + member.table().joinedId()
          + " cannot be created", check.alreadyCommitted()
              ? "The transaction already made version " + check.version()
              : "The table's next version is " + check.version() + "; reload the table, rebuild the transaction on "
                  + "version " + (check.version() - 1) + " and stage version " + check.version());
    }
  }

  /** Writes every member version (retrying failures of the store), marks the batch done, shows and releases. */
  private List<CommitResult> complete(BatchRecord record, Map<Integer, HeldLane> held, List<CheckedCommit> checked) {
    List<CommitResult> results = new ArrayList<>();
    try {
      for (BatchRecord.Member member : record.members()) {
        if (!results.isEmpty() && !applyPause.isZero()) {
          sleep(applyPause);
        }
        CheckedCommit first = checked == null ? null : checked.get(member.index());
        results.add(applyOrHoldAgain(record, member, held, first));
      }
    } catch (BatchBrokenException e) {
      LOG.error("Batch {} cannot be completed and is left partly applied: {}", record.batchId(), e.getMessage());
      finish(record, held);
      throw e;
    } catch (TableNotOwnedException e) {
      // The lane could not be held again (see applyOrHoldAgain): let every hold go (events of the versions written
      // go out) and complete the batch through the tables' current owners from scratch.
      LOG.warn("Batch {} lost a member's lane ({}); completing it through the current owners", record.batchId(),
          e.getMessage());
      held.values().forEach(lane -> lane.release(true));
      background.schedule(() -> completeRecorded(record), BACKGROUND_RETRY.toMillis(), TimeUnit.MILLISECONDS);
      throw new BatchPendingException(record.batchId(), "Batch " + record.batchId() + " is recorded and will be "
          + "completed through the tables' current owners; the same request again answers then.", e);
    } catch (RuntimeException e) {
      LOG.warn("Batch {} is recorded but not complete; completing it in the background: {}", record.batchId(),
          e.toString());
      background.schedule(() -> completeInBackground(record, held), BACKGROUND_RETRY.toMillis(),
          TimeUnit.MILLISECONDS);
      throw new BatchPendingException(record.batchId(), "Batch " + record.batchId() + " is recorded and will be "
          + "completed; its versions are shown once all are written. The same request again answers then.", e);
    }
    finish(record, held);
    return results;
  }

  private void finish(BatchRecord record, Map<Integer, HeldLane> held) {
    completing.remove(record.batchId());
    withdraw(record.batchId());
    try {
      log.markDone(record.batchId(), clock.instant());
    } catch (StoreException e) {
      // Every version is written: the next start finds the record, finds every member committed and marks it.
      LOG.warn("Batch {} is complete but its done marker was not written: {}", record.batchId(), e.toString());
    }
    show(record);
    held.values().forEach(lane -> lane.release(true));
  }

  /**
   * Writes a member; in cluster mode, when its lane was lost after the batch was recorded (its table moved to another
   * instance, or its owner died with the hold: {@link TableNotOwnedException}), holds the lane again where the table
   * is owned now and writes it there. The record stays the decision. The new owner's lane wrote the member already
   * if it was made since ({@link LaneTakeover}): the check then finds it committed. A writer bypassing the coordinator
   * that took the version meanwhile breaks the batch (409/19, logged), never forks it: put-if-absent fences every
   * version. The other members' lanes stay held meanwhile; the
   * new hold waits at most {@link #HOLD_AGAIN_WAIT} (it is out of the global order, so it must not wait forever).
   */
  private CommitResult applyOrHoldAgain(BatchRecord record, BatchRecord.Member member, Map<Integer, HeldLane> held,
      CheckedCommit first) {
    CheckedCommit checked = first;
    for (int attempt = 1; ; attempt++) {
      try {
        return applyMember(record, member, held.get(member.index()), checked);
      } catch (TableNotOwnedException e) {
        if (attempt >= HOLD_AGAIN_ATTEMPTS) {
          throw e;
        }
        LOG.warn("Batch {}: the lane of member {} (table {}) was lost ({}); holding it again where it is owned now",
            record.batchId(), member.index(), String.join("$", member.tableId()), e.getMessage());
        held.get(member.index()).release(true); // hands over the event of a version written before the loss
        held.put(member.index(), holdAgain(member.table(), record.batchId()));
        checked = null;
      }
    }
  }

  private HeldLane holdAgain(TableRef table, String batchId) {
    CompletableFuture<HeldLane> hold = lanes.hold(table, batchId);
    try {
      return hold.get(HOLD_AGAIN_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      hold.thenAccept(lane -> lane.release(false)); // granted after all: nobody uses it
      throw new TableNotOwnedException("The lane of " + table.joinedId() + " could not be held again within "
          + HOLD_AGAIN_WAIT.toSeconds() + " s");
    } catch (java.util.concurrent.ExecutionException e) {
      throw unwrap(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreUnavailableException("Interrupted while holding the lane of " + table.joinedId(), e);
    }
  }

  private CommitResult applyMember(BatchRecord record, BatchRecord.Member member, HeldLane lane,
      CheckedCommit first) {
    CheckedCommit checked = first;
    Backoff backoff = null;
    while (true) {
      try {
        if (checked == null) {
          checked = lane.check(new CommitRequest(member.transaction(), Optional.empty(), member.rebase(),
              record.actor()));
          if (checked.version() != member.version()) {
            throw new BatchBrokenException("Member " + member.index() + " of batch " + record.batchId() + " (table "
                + String.join("$", member.tableId()) + ") was to make version " + member.version()
                + " but the table's next version is now " + checked.version(), null);
          }
        }
        return lane.apply(checked, record.batchId());
      } catch (StoreException | CommitStateUnknownException e) {
        checked = null; // check again: finds the version committed, or builds it again on what is there
        if (backoff == null) {
          backoff = APPLY_RETRY.withMaxAttempts(applyAttempts).start();
        }
        Optional<Duration> pause = backoff.onFailure();
        if (pause.isEmpty()) {
          throw e;
        }
        sleep(pause.get());
      } catch (BatchBrokenException | TableNotOwnedException e) {
        throw e;
      } catch (RuntimeException e) {
        throw new BatchBrokenException("Member " + member.index() + " of batch " + record.batchId() + " (table "
            + String.join("$", member.tableId()) + ") can no longer be written: " + e.getMessage(), e);
      }
    }
  }

  private void completeInBackground(BatchRecord record, Map<Integer, HeldLane> held) {
    try {
      complete(record, held, null);
      LOG.info("Batch {} completed", record.batchId());
    } catch (BatchPendingException e) {
      // complete() scheduled the next attempt
    } catch (RuntimeException e) {
      LOG.error("Batch {} could not be completed: {}", record.batchId(), e.toString());
    }
  }

  private void settle(BatchRecord record, Map<Integer, HeldLane> held) {
    switch (log.settle(record.batchId())) {
      case WRITTEN -> completeInBackground(record, held);
      case ABSENT, ABORTED -> {
        LOG.warn("Batch {} was never recorded; it is abandoned and nothing of it was written", record.batchId());
        withdraw(record.batchId());
        show(record);
        held.values().forEach(lane -> lane.release(false));
      }
      case UNKNOWN -> background.schedule(() -> settle(record, held), BACKGROUND_RETRY.toMillis(),
          TimeUnit.MILLISECONDS);
    }
  }

  // ---------------------------------------------------------------------------------------------- recovery

  /** The batches found recorded and not finished at start, their members hidden until they are completed. */
  public static final class Unfinished {
    private final List<BatchRecord> records;

    private Unfinished(List<BatchRecord> records) {
      this.records = List.copyOf(records);
    }

    /** How many unfinished batches were found. */
    public int size() {
      return records.size();
    }
  }

  /**
   * Reads the batches a coordinator recorded and did not finish and hides their member versions. Call before
   * anything serves readers or publishes events (it needs no lane); blocking.
   */
  public static Unfinished hideUnfinished(StorageLocation warehouse, PendingBatches pending) {
    List<BatchRecord> found = new BatchLog(warehouse).unfinished();
    for (BatchRecord record : found) {
      record.members().forEach(m -> pending.hide(m.location(), m.version()));
    }
    if (!found.isEmpty()) {
      LOG.info("Found {} unfinished batches; their versions are hidden until they are completed", found.size());
    }
    return new Unfinished(found);
  }

  /**
   * Completes the batches {@link #hideUnfinished} found (roll forward: every member version still missing is
   * written, every member's event handed over again with the batch id), then removes finished records older than
   * the retention. Blocking; a batch that cannot be completed now is completed in the background.
   */
  public void completeUnfinished(Unfinished found) {
    found.records.forEach(record -> completing.add(record.batchId()));
    for (BatchRecord record : found.records) {
      completeRecorded(record);
    }
    try {
      int removed = log.removeFinished(clock.instant(), retention);
      if (removed > 0) {
        LOG.info("Removed {} finished batch records older than {}", removed, retention);
      }
    } catch (StoreException e) {
      LOG.debug("Finished batch records not removed: {}", e.toString());
    }
  }

  /**
   * Cluster mode: every {@code every}, completes the recorded batches left unfinished for longer than
   * {@code olderThan} by an instance that died or lost its holds (their members are hidden here meanwhile). Another
   * instance may be completing the same batch: both go through the members' lanes, so the second finds every
   * version written and writes nothing.
   */
  public void sweepUnfinished(Duration every, Duration olderThan) {
    background.scheduleWithFixedDelay(() -> {
      try {
        List<BatchRecord> unfinished = log.unfinished();
        Set<String> ids = new HashSet<>();
        for (BatchRecord record : unfinished) {
          ids.add(record.batchId());
          if (Instant.parse(record.createdAt()).plus(olderThan).isAfter(clock.instant())
              || !completing.add(record.batchId())) {
            continue;
          }
          LOG.info("Batch {} was left unfinished by the instance that recorded it; completing it",
              record.batchId());
          hide(record);
          completeRecorded(record);
        }
        completing.removeIf(id -> !ids.contains(id)); // finished (or not recorded yet: harmless, lanes serialize)
      } catch (RuntimeException e) {
        LOG.debug("Sweep of unfinished batches failed: {}", e.toString());
      }
    }, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void completeRecorded(BatchRecord record) {
    List<Member> members = record.members().stream().map(m -> new Member(m.table(),
        new CommitRequest(m.transaction(), Optional.empty(), m.rebase(), record.actor()), m.version())).toList();
    Map<Integer, HeldLane> held;
    try {
      held = holdAll(record.batchId(), members).join();
    } catch (CompletionException e) {
      LOG.warn("Unfinished batch {}: its lanes could not be held ({}); retrying", record.batchId(), e.toString());
      background.schedule(() -> completeRecorded(record), BACKGROUND_RETRY.toMillis(), TimeUnit.MILLISECONDS);
      return;
    }
    try {
      complete(record, held, null);
      LOG.info("Unfinished batch {} ({} members) completed", record.batchId(), record.members().size());
    } catch (BatchPendingException e) {
      // retried in the background
    } catch (RuntimeException e) {
      LOG.error("Unfinished batch {} could not be completed: {}", record.batchId(), e.toString());
    }
  }

  private void hide(BatchRecord record) {
    record.members().forEach(m -> pending.hide(m.location(), m.version()));
  }

  private void show(BatchRecord record) {
    record.members().forEach(m -> pending.show(m.location(), m.version()));
  }

  private static RuntimeException unwrap(Throwable failure) {
    Throwable t = failure;
    while (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    return t instanceof RuntimeException re ? re : new IllegalStateException(t);
  }

  private static void sleep(Duration pause) {
    try {
      Thread.sleep(pause.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreUnavailableException("Interrupted while completing a batch", e);
    }
  }

  @Override
  public void close() {
    background.shutdownNow();
  }
}
