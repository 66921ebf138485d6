package dev.lancecommit.coordinator.commit;

import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.storage.StoreException;
import dev.lancecommit.coordinator.table.CommitOutcome;
import dev.lancecommit.coordinator.table.NextVersion;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.coordinator.table.TableSnapshot;
import dev.lancecommit.coordinator.verify.CommitFileCheck;
import dev.lancecommit.coordinator.verify.FileVerifier;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.FeatureFlags;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.TransactionFiles;
import dev.lancecommit.format.deletion.DeletionVectors;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.DeletionFile;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.CommitContext;
import dev.lancecommit.rules.InvalidTransactionException;
import dev.lancecommit.rules.ManifestBuilder;
import dev.lancecommit.format.RulesException;
import dev.lancecommit.rules.SchemaContractException;
import dev.lancecommit.rules.OperationKind;
import dev.lancecommit.rules.TransactionValidator;
import dev.lancecommit.rules.conflict.CommittedTransaction;
import dev.lancecommit.rules.conflict.CommitConflictException;
import dev.lancecommit.rules.conflict.ConflictOutcome;
import dev.lancecommit.rules.conflict.ConflictResolver;
import dev.lancecommit.rules.conflict.RebaseInputs;
import dev.lancecommit.rules.rebase.DeletionRebase;
import dev.lancecommit.rules.rebase.RebasePlan;
import org.roaringbitmap.RoaringBitmap;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the commits of one table, one at a time, in arrival order.
 *
 * <p>The table's {@link TableOperations} keep the latest version and the transactions of recent versions, so a
 * commit queued behind a write in flight is checked against that write the moment it lands, without listing the
 * store. The store stays the source of truth: when the create-only write finds its version taken (another
 * coordinator, or a writer bypassing us), the lane reloads what landed and checks again.
 *
 * <p>Each commit is built first (conflict check, server-side rebase, the next manifest encoded: {@link NextVersion})
 * and then written with the one put-if-absent ({@link TableOperations#commit}); the event of a version that landed
 * goes to the {@link CommitEventSink}, which only enqueues.
 */
final class CommitLane {
  private static final Logger LOG = LoggerFactory.getLogger(CommitLane.class);

  private final TableRef table;
  private final TableOperations ops;
  private final Function<String, StorageLocation> stores;
  private final CommitSettings settings;
  private final CommitEventSink events;
  private final Executor executor;
  private final Clock clock;
  private final CommitFileCheck files;

  private final ArrayDeque<Turn> queue = new ArrayDeque<>();
  private boolean draining;
  /** A {@link LaneHold} has its turn: nothing else is applied until it is released. */
  private boolean held;

  CommitLane(
      TableRef table,
      TableOperations ops,
      Function<String, StorageLocation> stores,
      CommitSettings settings,
      CommitEventSink events,
      Executor executor,
      Clock clock) {
    this.table = table;
    this.ops = ops;
    this.stores = stores;
    this.settings = settings;
    this.events = events;
    this.executor = executor;
    this.clock = clock;
    this.files = new CommitFileCheck(new FileVerifier(stores, executor, settings.verifyFilesParallelism()),
        settings.verifyFiles());
  }

  /** {@code table} is the catalog's current view (a rename keeps the lane but changes the id events carry). */
  CompletableFuture<CommitResult> submit(TableRef table, CommitRequest request,
      CommitObserver.Observation observation) {
    Pending pending = new Pending(table, request, new CompletableFuture<>(), observation);
    enqueue(pending, table);
    return pending.result();
  }

  /**
   * Takes a turn on the lane for work that must see the table still while it decides ({@link LaneHold}: an atomic
   * batch checks its member here, then writes it or not): the future completes once every commit queued before is
   * done, and nothing queued after is applied until the hold is released.
   */
  CompletableFuture<LaneHold> hold(TableRef table) {
    HoldTurn turn = new HoldTurn(table, new CompletableFuture<>());
    enqueue(turn, table);
    return turn.granted();
  }

  private void enqueue(Turn turn, TableRef table) {
    boolean startDrain;
    synchronized (queue) {
      if (queue.size() >= settings.maxQueuedPerTable()) {
        throw new CommitThrottledException(
            "Table " + table.joinedId() + " has " + queue.size() + " commits queued; retry later");
      }
      queue.add(turn);
      startDrain = !draining && !held;
      draining |= startDrain;
    }
    if (startDrain) {
      executor.execute(this::drain);
    }
  }

  /** Commits waiting behind the one being applied. */
  int queued() {
    synchronized (queue) {
      return queue.size();
    }
  }

  private void drain() {
    while (true) {
      Turn next;
      synchronized (queue) {
        next = held ? null : queue.poll();
        if (next == null) {
          draining = false;
          return;
        }
        if (next instanceof HoldTurn) {
          held = true;
        }
      }
      if (next instanceof HoldTurn turn) {
        turn.granted().completeAsync(() -> new LaneHold(this, turn.table()), executor);
        continue; // the loop ends: the lane is held
      }
      Pending pending = (Pending) next;
      try {
        process(pending);
      } catch (Throwable t) {
        pending.result().completeExceptionally(t);
      } finally {
        pending.observation().leftLane();
      }
    }
  }

  /** Ends a hold: what queued behind it is applied now. */
  void release() {
    boolean startDrain;
    synchronized (queue) {
      if (!held) {
        return;
      }
      held = false;
      startDrain = !draining && !queue.isEmpty();
      draining |= startDrain;
    }
    if (startDrain) {
      executor.execute(this::drain);
    }
  }

  private void process(Pending pending) {
    CommitObserver.Observation observation = pending.observation();
    observation.phase(CommitPhase.CHECKS);
    Transaction txn = TransactionDecoding.decode(pending.request().transaction());
    OperationKind kind = OperationKind.of(txn);
    observation.operation(kind);
    if (kind == OperationKind.CLONE) {
      processClone(pending, txn);
      return;
    }
    for (int attempt = 1; ; attempt++) {
      observation.phase(CommitPhase.CHECKS);
      Built built = build(pending.request(), txn, kind, observation);
      if (built instanceof Built.AlreadyCommitted already) {
        answerAlreadyCommitted(pending, txn, kind, already.version(), already.current());
        return;
      }
      Built.Ready ready = (Built.Ready) built;
      observation.phase(CommitPhase.STORAGE_WRITE);
      if (write(ready) instanceof CommitOutcome.Taken) {
        if (attempt >= settings.maxRebuildAttempts()) {
          throw new CommitConflictException(
              true, ready.version(), "unknown", "contention",
              "Version " + ready.version() + " was taken by another writer " + attempt + " times in a row; retry later");
        }
        continue; // someone else committed: the next pass reloads and checks against what landed
      }
      handOverThenAnswer(pending, event(ready, pending.table(), pending.request().actor()), result(ready));
      return;
    }
  }

  /**
   * Checks {@code txn} against the table as the lane knows it and builds the next version; nothing is written but
   * the deletion files of a server-side rebase (unreferenced until a version names them).
   */
  Built build(CommitRequest request, Transaction txn, OperationKind kind,
      CommitObserver.Observation observation) {
    boolean reloaded = false;
    while (true) {
      TableSnapshot current = ops.current();
      // read_version is a u64: one of 2^63 or more is ahead of any table, never stale
      boolean ahead = Long.compareUnsigned(txn.getReadVersion(), current.latestVersion()) > 0;
      if (ahead && !reloaded) {
        // The writer may have seen a version written around the coordinator that this lane has not: look once.
        ops.refresh();
        reloaded = true;
        continue;
      }
      // A transaction that is only stale can fail checks made against the latest version (a Merge missing a
      // fragment appended since, a DataReplacement of a fragment rewritten since): the conflict rules decide first,
      // so the writer hears "retry" or "incompatible", not "malformed". With nothing committed since, invalid is
      // invalid.
      RulesException invalid = null;
      try {
        TransactionValidator.validate(txn, current.latest(), settings.formatFeatures());
      } catch (InvalidTransactionException | SchemaContractException e) {
        if (ahead || txn.getReadVersion() >= current.latestVersion() || txn.getReadVersion() == 0) {
          throw e;
        }
        // Valid against the version it was built on means merely stale; invalid there means invalid, full stop.
        TransactionValidator.validate(txn, stateAt(txn.getReadVersion(), current), settings.formatFeatures());
        invalid = e;
      }

      if (txn.getReadVersion() != 0 && txn.getReadVersion() < current.firstVersion()) {
        throw new InvalidTransactionException("read_version " + txn.getReadVersion() + " is older than version "
            + current.firstVersion() + ", the first this table has (it was created by a Clone at that version, or "
            + "older versions were cleaned up); rebuild the transaction on version " + current.latestVersion());
      }
      List<CommittedTransaction> since = ops.committedSince(current, txn.getReadVersion());
      if (request.rebaseOverAppendsOnly()) {
        requireOnlyAppends(txn, since);
      }
      RebaseInputs inputs = rebaseInputs(request, txn, kind, since, current);
      ConflictOutcome outcome = ConflictResolver.checkAll(txn, since, inputs);
      switch (outcome.kind()) {
        case ALREADY_COMMITTED -> {
          return new Built.AlreadyCommitted(outcome.theirVersion(), current);
        }
        case RETRYABLE, INCOMPATIBLE -> throw outcome.toException();
        case REBASE, COMPATIBLE -> { }
      }
      if (invalid != null) {
        throw invalid;
      }
      observation.phase(CommitPhase.BUILD);
      // Delete and Update always move to the latest version; over a concurrent Delete/Update of the same fragments
      // their deletion vectors are merged here, as Lance's own commit loop would do on the writer's side.
      Transaction toApply = txn;
      if (kind == OperationKind.DELETE || kind == OperationKind.UPDATE) {
        RebasePlan plan = DeletionRebase.rebase(txn, outcome, inputs, current.latest(),
            fragment -> currentDeletions(fragment, current));
        ops.writeDeletionFiles(plan.filesToWrite());
        toApply = plan.transaction();
      }

      long version = current.latestVersion() + 1;
      ManifestNaming.Scheme scheme = current.scheme();
      CommitContext ctx = new CommitContext(version, clock.instant(), TransactionFiles.fileName(txn),
          settings.writerVersion(), false, settings.defaultStorageVersion(), settings.formatFeatures());
      // Written exactly as the writer sent it (after a rebase, as rebased): a stock Lance writer that verifies
      // the outcome of a lost answer compares the landed transaction with its own.
      Transaction recorded = toApply;
      TableState next = buildNext(current, recorded, kind, ctx);
      NextVersion prepared = NextVersion.of(version, scheme, next, recorded);
      // Built, nothing written yet: every file the version adds is checked here (batch members under a held lane
      // too), and a bad one writes nothing.
      files.requireAdded(ops.location(), current.latest(), next);
      return new Built.Ready(current, prepared, txn, kind);
    }
  }

  /** Writes a built version (the one put-if-absent); Taken when another writer holds its number. */
  CommitOutcome write(Built.Ready ready) {
    return ops.commit(ready.base(), ready.next());
  }

  CommitResult result(Built.Ready ready) {
    Transaction txn = ready.transaction();
    return new CommitResult(ready.version(), txn.getReadVersion(), txn.getUuid(),
        ops.manifestUri(ready.version(), ready.next().scheme()), ready.kind().lanceName());
  }

  CommitEvent event(Built.Ready ready, TableRef table, String actor) {
    return CommitEventFactory.committed(table, ready.base().latest(), ready.next().state(), ready.transaction(),
        ready.kind(), ops.manifestUri(ready.version(), ready.next().scheme()), actor, clock.instant());
  }

  /** The event of a version that landed earlier (an idempotent resubmit, a batch rolled forward). */
  CommitEvent eventOfLanded(TableRef table, long version, OperationKind kind, String actor, TableSnapshot current) {
    ManifestNaming.Scheme scheme = current.scheme();
    ManifestFile landed = ops.readManifest(version, scheme).orElseThrow();
    // Nothing before the table's first version: it was created (at 1, or at its source's version by a Clone).
    TableState previous = version - 1 < Math.max(1, current.firstVersion()) ? null
        : ops.readManifest(version - 1, scheme).map(ManifestFile::tableState).orElse(null);
    return CommitEventFactory.committed(table, previous, landed.tableState(), ops.transactionOf(landed), kind,
        ops.manifestUri(version, scheme), actor, clock.instant());
  }

  CommitResult resultOfLanded(Transaction txn, OperationKind kind, long version, TableSnapshot current) {
    return new CommitResult(version, txn.getReadVersion(), txn.getUuid(), ops.manifestUri(version, current.scheme()),
        kind.lanceName());
  }

  /** Hands an event to the sink; a failure is logged, never raised (the reconciler publishes from storage). */
  void handOver(CommitEvent event) {
    try {
      events.accept(event);
    } catch (RuntimeException e) {
      LOG.error("The event of version {} of table {} was not handed over; the reconciler will publish it",
          event.version(), table.joinedId(), e);
    }
  }

  /**
   * A Clone creates the table: its first version is the source's manifest at {@code ref_version}, under the same
   * version number, with the source's files reached through a new base path (shallow) or, for a deep clone, named
   * under this table's root where the writer copied them (Lance's {@code commit_new_dataset}).
   * Resubmitted after it landed, it gets the same answer; onto a table that has versions it is refused.
   */
  private void processClone(Pending pending, Transaction txn) {
    Transaction.Clone clone = txn.getClone();
    long version = clone.getRefVersion();
    for (int attempt = 1; ; attempt++) {
      pending.observation().phase(CommitPhase.CHECKS);
      // A clone is rare and must not land beside versions written around the lane: list afresh.
      TableSnapshot current = ops.refresh();
      if (current.latest() != null) {
        if (version >= 1 && ops.madeBy(current, version, txn.getUuid())) {
          answerAlreadyCommitted(pending, txn, OperationKind.CLONE, version, current);
          return;
        }
        // Refuses (a Clone only creates a table), naming the reason the validator gives.
        TransactionValidator.validate(txn, current.latest(), settings.formatFeatures());
        throw new InvalidTransactionException(
            "Clone creates a table, but this table already exists at version " + current.latestVersion());
      }
      TransactionValidator.validate(txn, null, settings.formatFeatures());
      TableState source = CloneSource.read(stores, clone);
      // The clone is written to next, under the source's flags.
      FeatureFlags.ensureWritable(source.manifest(), settings.formatFeatures());
      ManifestNaming.Scheme scheme = current.scheme();
      CommitContext ctx = new CommitContext(version, clock.instant(), TransactionFiles.fileName(txn),
          settings.writerVersion(), false, settings.defaultStorageVersion(), settings.formatFeatures());
      pending.observation().phase(CommitPhase.BUILD);
      TableState next = ManifestBuilder.buildClone(source, txn, ctx);
      // A deep clone's writer copied the files before committing (Lance's deep_clone); nothing is written unless all
      // are here. A shallow clone's are the source's, checked when file checks are on.
      files.requireClone(ops.location(), next, !clone.getIsShallow(), source, CloneSource.root(stores, clone),
          stores);
      pending.observation().phase(CommitPhase.STORAGE_WRITE);
      if (ops.commit(current, NextVersion.of(version, scheme, next, txn)) instanceof CommitOutcome.Taken) {
        if (attempt >= settings.maxRebuildAttempts()) {
          throw new CommitConflictException(
              true, version, "unknown", "contention",
              "Version " + version + " was taken by another writer " + attempt + " times in a row; retry later");
        }
        continue; // someone created the table meanwhile: the next pass answers or refuses against what landed
      }
      String manifestUri = ops.manifestUri(version, scheme);
      CommitResult result = new CommitResult(version, txn.getReadVersion(), txn.getUuid(), manifestUri,
          OperationKind.CLONE.lanceName());
      CommitEvent event = CommitEventFactory.committed(pending.table(), null, next, txn, OperationKind.CLONE,
          manifestUri, pending.request().actor(), clock.instant());
      handOverThenAnswer(pending, event, result);
      return;
    }
  }

  private TableState buildNext(TableSnapshot current, Transaction txn, OperationKind kind, CommitContext ctx) {
    return switch (kind) {
      case RESTORE -> {
        long restoredVersion = txn.getRestore().getVersion();
        if (current.latest() == null || restoredVersion < 1 || restoredVersion > current.latestVersion()) {
          throw new InvalidTransactionException("Cannot restore version " + restoredVersion
              + ": the table's versions are 1.." + current.latestVersion());
        }
        ManifestFile restored = ops.readManifest(restoredVersion, current.scheme()).orElseThrow(() ->
            new InvalidTransactionException("Version " + restoredVersion + " no longer exists; it cannot be restored"));
        yield ManifestBuilder.buildRestore(current.latest(), restored.tableState(), txn, ctx);
      }
      default -> ManifestBuilder.build(current.latest(), txn, ctx);
    };
  }

  /** A commit other than an Append since the read version (the transaction's own aside) is a retryable conflict. */
  private static void requireOnlyAppends(Transaction txn, List<CommittedTransaction> since) {
    for (CommittedTransaction other : since) {
      OperationKind kind = OperationKind.of(other.txn());
      if (kind != OperationKind.APPEND && !other.txn().getUuid().equals(txn.getUuid())) {
        throw new CommitConflictException(true, other.version(), kind.lanceName(), "rebase-over-appends-only",
            "Version " + other.version() + " (" + kind.lanceName() + ") was committed since read version "
                + txn.getReadVersion() + "; this commit only moves over Appends: rebuild it on the latest version");
      }
    }
  }

  /**
   * Delete and Update are checked against the fragments as they were at the transaction's read version, which the
   * lane only reads when something was committed since.
   */
  private RebaseInputs rebaseInputs(CommitRequest request, Transaction txn, OperationKind kind,
      List<CommittedTransaction> since, TableSnapshot current) {
    RebaseInputs inputs = RebaseInputs.of(request.affectedRows(), request.rebase());
    if (since.isEmpty() || (kind != OperationKind.DELETE && kind != OperationKind.UPDATE)) {
      return inputs;
    }
    TableState atRead = stateAt(txn.getReadVersion(), current);
    return inputs.toBuilder().initialFragments(atRead.manifest().getFragmentsList()).build();
  }

  private TableState stateAt(long version, TableSnapshot current) {
    return ops.readManifest(version, current.scheme()).map(ManifestFile::tableState).orElseThrow(() ->
        new InvalidTransactionException("Version " + version + " (the transaction's read version) no longer exists"));
  }

  /** The deletion vector a fragment of the latest version carries now (read only for fragments that have one). */
  private RoaringBitmap currentDeletions(DataFragment fragment, TableSnapshot current) {
    DeletionFile file = fragment.getDeletionFile();
    if (file.hasBaseId()) {
      throw new CommitConflictException(true, current.latestVersion(),
          "unknown", "rebase-base-path", "Fragment " + fragment.getId() + " keeps its deletion file under base path "
              + file.getBaseId() + ", which the coordinator does not rebase over; rebuild the transaction and retry");
    }
    String path = DeletionVectors.relativePath(fragment.getId(), file);
    byte[] bytes = ops.readDeletionFile(path).orElseThrow(() ->
        new StoreException("Deletion file " + path + " of fragment " + fragment.getId() + " is missing"));
    return DeletionVectors.read(fragment, bytes);
  }

  private void answerAlreadyCommitted(
      Pending pending, Transaction txn, OperationKind kind, long version, TableSnapshot current) {
    pending.observation().alreadyCommitted();
    // The first answer may have been lost together with its event: publish again; consumers drop the duplicate.
    handOverThenAnswer(pending, eventOfLanded(pending.table(), version, kind, pending.request().actor(), current),
        resultOfLanded(txn, kind, version, current));
  }

  private void handOverThenAnswer(Pending pending, CommitEvent event, CommitResult result) {
    pending.observation().phase(CommitPhase.EVENT_HANDOFF);
    handOver(event.toBuilder().trace(pending.observation().trace()).build()); // the version landed whatever happens
    // Answer from our executor: whatever is chained on the answer must not hold up the lane.
    pending.result().completeAsync(() -> result, executor);
  }

  /** What waits in the lane's queue: a commit, or a {@link LaneHold}'s turn. */
  private sealed interface Turn permits Pending, HoldTurn {}

  private record Pending(TableRef table, CommitRequest request, CompletableFuture<CommitResult> result,
      CommitObserver.Observation observation) implements Turn {}

  private record HoldTurn(TableRef table, CompletableFuture<LaneHold> granted) implements Turn {}
}
