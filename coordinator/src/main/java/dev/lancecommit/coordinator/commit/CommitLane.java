package dev.lancecommit.coordinator.commit;

import dev.lancecommit.coordinator.storage.ObjectAlreadyExistsException;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.storage.StoreException;
import dev.lancecommit.coordinator.storage.StoreOutcomeUnknownException;
import dev.lancecommit.coordinator.storage.StoreUnavailableException;
import dev.lancecommit.coordinator.table.TableStorage;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.CommitEventPublisher;
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
import dev.lancecommit.rules.RulesException;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the commits of one table, one at a time, in arrival order.
 *
 * <p>The lane keeps the latest version it knows and the transactions of recent versions, so a commit queued behind
 * a write in flight is checked against that write the moment it lands, without listing the store. The store stays
 * the source of truth: when a create-only write finds its version taken (another coordinator, or a writer bypassing
 * us), the lane reloads what landed and checks again.
 */
final class CommitLane {
  private static final Logger LOG = LoggerFactory.getLogger(CommitLane.class);

  private final TableRef table;
  private final TableStorage storage;
  private final Function<String, StorageLocation> stores;
  private final CommitSettings settings;
  private final CommitEventPublisher events;
  private final Executor executor;
  private final Clock clock;

  private final ArrayDeque<Pending> queue = new ArrayDeque<>();
  private boolean draining;

  // Touched only by the thread draining the lane.
  private LaneState state;

  CommitLane(
      TableRef table,
      TableStorage storage,
      Function<String, StorageLocation> stores,
      CommitSettings settings,
      CommitEventPublisher events,
      Executor executor,
      Clock clock) {
    this.table = table;
    this.storage = storage;
    this.stores = stores;
    this.settings = settings;
    this.events = events;
    this.executor = executor;
    this.clock = clock;
  }

  /** {@code table} is the catalog's current view (a rename keeps the lane but changes the id events carry). */
  CompletableFuture<CommitResult> submit(TableRef table, CommitRequest request) {
    Pending pending = new Pending(table, request, new CompletableFuture<>());
    boolean startDrain;
    synchronized (queue) {
      if (queue.size() >= settings.maxQueuedPerTable()) {
        throw new CommitThrottledException(
            "Table " + table.joinedId() + " has " + queue.size() + " commits queued; retry later");
      }
      queue.add(pending);
      startDrain = !draining;
      draining = true;
    }
    if (startDrain) {
      executor.execute(this::drain);
    }
    return pending.result();
  }

  private void drain() {
    while (true) {
      Pending next;
      synchronized (queue) {
        next = queue.poll();
        if (next == null) {
          draining = false;
          return;
        }
      }
      try {
        process(next);
      } catch (Throwable t) {
        next.result().completeExceptionally(t);
      }
    }
  }

  private void process(Pending pending) {
    Transaction txn = TransactionDecoding.decode(pending.request().transaction());
    OperationKind kind = OperationKind.of(txn);
    if (kind == OperationKind.CLONE) {
      processClone(pending, txn);
      return;
    }
    boolean reloaded = false;
    for (int attempt = 1; ; attempt++) {
      LaneState current = currentState();
      if (txn.getReadVersion() > current.latestVersion() && !reloaded) {
        // The writer may have seen a version written around the coordinator that this lane has not: look once.
        state = null;
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
        if (txn.getReadVersion() >= current.latestVersion() || txn.getReadVersion() == 0) {
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
      List<CommittedTransaction> since = current.committedSince(txn.getReadVersion(), storage);
      RebaseInputs inputs = rebaseInputs(pending.request(), txn, kind, since, current);
      ConflictOutcome outcome = ConflictResolver.checkAll(txn, since, inputs);
      switch (outcome.kind()) {
        case ALREADY_COMMITTED -> {
          answerAlreadyCommitted(pending, txn, kind, outcome.theirVersion(), current);
          return;
        }
        case RETRYABLE, INCOMPATIBLE -> throw outcome.toException();
        case REBASE, COMPATIBLE -> { }
      }
      if (invalid != null) {
        throw invalid;
      }
      // Delete and Update always move to the latest version; over a concurrent Delete/Update of the same fragments
      // their deletion vectors are merged here, as Lance's own commit loop would do on the writer's side.
      Transaction toApply = txn;
      if (kind == OperationKind.DELETE || kind == OperationKind.UPDATE) {
        RebasePlan plan = DeletionRebase.rebase(txn, outcome, inputs, current.latest(), this::currentDeletions);
        plan.filesToWrite().forEach((path, bytes) -> storage.location().store().put(storage.location().key(path), bytes));
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
      byte[] file = new ManifestFile(next.manifest(), next.indices(), Optional.of(recorded)).encode();
      storage.writeTransactionFile(recorded); // before the manifest, like Lance: a version never lacks its .txn

      WriteOutcome written = writeManifest(version, scheme, file, recorded);
      if (written == WriteOutcome.TAKEN) {
        if (attempt >= settings.maxRebuildAttempts()) {
          throw new CommitConflictException(
              true, version, "unknown", "contention",
              "Version " + version + " was taken by another writer " + attempt + " times in a row; retry later");
        }
        state = null; // someone else committed: reload from the store and check against what landed
        continue;
      }
      state = current.advance(next, recorded);
      storage.writeVersionHint(version);
      String manifestUri = storage.manifestUri(version, scheme);
      CommitResult result =
          new CommitResult(version, txn.getReadVersion(), txn.getUuid(), manifestUri, kind.lanceName());
      CommitEvent event = CommitEventFactory.committed(pending.table(), current.latest(), next, txn, kind, manifestUri,
          pending.request().actor(), clock.instant());
      publishThenAnswer(pending, event, result);
      return;
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
      state = null; // a clone is rare and must not land beside versions written around the lane: list afresh
      LaneState current = currentState();
      if (current.latest() != null) {
        if (version >= 1 && current.holds(version, txn.getUuid(), storage)) {
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
      TableState next = ManifestBuilder.buildClone(source, txn, ctx);
      if (!clone.getIsShallow()) {
        // The writer copied the files before committing (Lance's deep_clone); nothing is written unless all are here.
        DeepCloneFiles.requirePresent(next, storage.location(), source, CloneSource.root(stores, clone), stores);
      }
      byte[] file = new ManifestFile(next.manifest(), next.indices(), Optional.of(txn)).encode();
      storage.writeTransactionFile(txn);
      if (writeManifest(version, scheme, file, txn) == WriteOutcome.TAKEN) {
        if (attempt >= settings.maxRebuildAttempts()) {
          throw new CommitConflictException(
              true, version, "unknown", "contention",
              "Version " + version + " was taken by another writer " + attempt + " times in a row; retry later");
        }
        continue; // someone created the table meanwhile: the next pass answers or refuses against what landed
      }
      state = LaneState.created(next, scheme, txn, settings.recentTransactions());
      storage.writeVersionHint(version);
      String manifestUri = storage.manifestUri(version, scheme);
      CommitResult result = new CommitResult(version, txn.getReadVersion(), txn.getUuid(), manifestUri,
          OperationKind.CLONE.lanceName());
      CommitEvent event = CommitEventFactory.committed(pending.table(), null, next, txn, OperationKind.CLONE,
          manifestUri, pending.request().actor(), clock.instant());
      publishThenAnswer(pending, event, result);
      return;
    }
  }

  private TableState buildNext(LaneState current, Transaction txn, OperationKind kind, CommitContext ctx) {
    return switch (kind) {
      case RESTORE -> {
        long restoredVersion = txn.getRestore().getVersion();
        if (current.latest() == null || restoredVersion < 1 || restoredVersion > current.latestVersion()) {
          throw new InvalidTransactionException("Cannot restore version " + restoredVersion
              + ": the table's versions are 1.." + current.latestVersion());
        }
        ManifestFile restored = storage.readManifest(restoredVersion, current.scheme()).orElseThrow(() ->
            new InvalidTransactionException("Version " + restoredVersion + " no longer exists; it cannot be restored"));
        yield ManifestBuilder.buildRestore(current.latest(), storage.stateOf(restored), txn, ctx);
      }
      default -> ManifestBuilder.build(current.latest(), txn, ctx);
    };
  }

  /**
   * Delete and Update are checked against the fragments as they were at the transaction's read version, which the
   * lane only reads when something was committed since.
   */
  private RebaseInputs rebaseInputs(CommitRequest request, Transaction txn, OperationKind kind,
      List<CommittedTransaction> since, LaneState current) {
    RebaseInputs inputs = RebaseInputs.of(request.affectedRows(), request.rebase());
    if (since.isEmpty() || (kind != OperationKind.DELETE && kind != OperationKind.UPDATE)) {
      return inputs;
    }
    TableState atRead = stateAt(txn.getReadVersion(), current);
    return inputs.toBuilder().initialFragments(atRead.manifest().getFragmentsList()).build();
  }

  private TableState stateAt(long version, LaneState current) {
    return storage.readManifest(version, current.scheme()).map(storage::stateOf).orElseThrow(() ->
        new InvalidTransactionException("Version " + version + " (the transaction's read version) no longer exists"));
  }

  /** The deletion vector a fragment of the latest version carries now (read only for fragments that have one). */
  private RoaringBitmap currentDeletions(DataFragment fragment) {
    DeletionFile file = fragment.getDeletionFile();
    if (file.hasBaseId()) {
      throw new CommitConflictException(true, state == null ? 0 : state.latestVersion(),
          "unknown", "rebase-base-path", "Fragment " + fragment.getId() + " keeps its deletion file under base path "
              + file.getBaseId() + ", which the coordinator does not rebase over; rebuild the transaction and retry");
    }
    String path = DeletionVectors.relativePath(fragment.getId(), file);
    byte[] bytes = storage.location().store().get(storage.location().key(path)).orElseThrow(() ->
        new StoreException("Deletion file " + path + " of fragment " + fragment.getId() + " is missing"));
    return DeletionVectors.read(fragment, bytes);
  }

  private enum WriteOutcome { WRITTEN, TAKEN }

  /**
   * Creates the manifest. A write whose outcome is unknown is settled by reading the version back: ours means
   * committed, someone else's means taken, absent means the create-only write is retried (safe: it cannot
   * overwrite). Only when reading back keeps failing is the answer "state unknown".
   */
  private WriteOutcome writeManifest(long version, ManifestNaming.Scheme scheme, byte[] file, Transaction txn) {
    StoreException lastFailure = null;
    for (int attempt = 1; attempt <= settings.ambiguousWriteAttempts(); attempt++) {
      try {
        storage.createManifest(version, scheme, file);
        return WriteOutcome.WRITTEN;
      } catch (ObjectAlreadyExistsException e) {
        return landedTransactionIsOurs(version, scheme, txn) ? WriteOutcome.WRITTEN : WriteOutcome.TAKEN;
      } catch (StoreUnavailableException e) {
        if (lastFailure == null) {
          throw e; // certainly not applied, and nothing of ours may be in flight
        }
        lastFailure = e;
      } catch (StoreOutcomeUnknownException e) {
        lastFailure = e;
        LOG.warn("Outcome of writing version {} of {} is unknown; reading it back", version, table.joinedId(), e);
        try {
          Optional<ManifestFile> landed = storage.readManifest(version, scheme);
          if (landed.isPresent()) {
            return storage.transactionOf(landed.get()).getUuid().equals(txn.getUuid())
                ? WriteOutcome.WRITTEN
                : WriteOutcome.TAKEN;
          }
        } catch (StoreException readBack) {
          lastFailure = readBack;
        }
      }
      sleepBackoff(attempt);
    }
    state = null; // whatever happened, do not trust the cached state
    throw new CommitStateUnknownException(version,
        "Could not tell whether version " + version + " of table " + table.joinedId() + " was written: "
            + lastFailure.getMessage() + ". Resubmit the same transaction to find out or finish the commit.",
        lastFailure);
  }

  private boolean landedTransactionIsOurs(long version, ManifestNaming.Scheme scheme, Transaction txn) {
    // A retried create can find the version taken by its own earlier attempt that did land.
    return storage.readManifest(version, scheme)
        .map(f -> storage.transactionOf(f).getUuid().equals(txn.getUuid()))
        .orElse(false);
  }

  private void answerAlreadyCommitted(
      Pending pending, Transaction txn, OperationKind kind, long version, LaneState current) {
    ManifestNaming.Scheme scheme = current.scheme();
    String manifestUri = storage.manifestUri(version, scheme);
    CommitResult result =
        new CommitResult(version, txn.getReadVersion(), txn.getUuid(), manifestUri, kind.lanceName());
    // The first answer may have been lost together with its event: publish again; consumers drop the duplicate.
    ManifestFile landed = storage.readManifest(version, scheme).orElseThrow();
    // Nothing before the table's first version: it was created (at 1, or at its source's version by a Clone).
    TableState previous = version - 1 < Math.max(1, current.firstVersion()) ? null
        : storage.readManifest(version - 1, scheme).map(storage::stateOf).orElse(null);
    CommitEvent event = CommitEventFactory.committed(pending.table(), previous, storage.stateOf(landed), storage.transactionOf(landed),
        kind, manifestUri, pending.request().actor(), clock.instant());
    publishThenAnswer(pending, event, result);
  }

  private void publishThenAnswer(Pending pending, CommitEvent event, CommitResult result) {
    // Answer from our executor, never from Kafka's I/O thread: whatever is chained on the answer must not stall it.
    events.publish(event).whenCompleteAsync((ok, failure) -> {
      if (failure == null) {
        pending.result().complete(result);
      } else {
        pending.result().completeExceptionally(new EventPublishException(result.version(),
            "Version " + result.version() + " of table " + table.joinedId() + " was committed but its event could "
                + "not be published: " + failure.getMessage() + ". Resubmit the same transaction to publish it.",
            failure));
      }
    }, executor);
  }

  private LaneState currentState() {
    if (state == null) {
      state = LaneState.load(storage, settings.recentTransactions(), settings.newTableScheme());
    }
    return state;
  }

  private void sleepBackoff(int attempt) {
    try {
      Thread.sleep(Math.min(2000L, 50L << Math.min(attempt, 6)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreUnavailableException("Interrupted while settling a manifest write", e);
    }
  }

  private record Pending(TableRef table, CommitRequest request, CompletableFuture<CommitResult> result) {}

  /**
   * The lane's view of the table: the latest version (null when the table has none yet), its naming scheme and the
   * transactions of recent versions.
   */
  static final class LaneState {
    private final TableState latest;
    private final long firstVersion;
    private final ManifestNaming.Scheme scheme;
    private final TreeMap<Long, Transaction> recent;
    private final int recentLimit;

    private LaneState(TableState latest, long firstVersion, ManifestNaming.Scheme scheme,
        TreeMap<Long, Transaction> recent, int recentLimit) {
      this.latest = latest;
      this.firstVersion = firstVersion;
      this.scheme = scheme;
      this.recent = recent;
      this.recentLimit = recentLimit;
    }

    static LaneState load(TableStorage storage, int recentLimit, ManifestNaming.Scheme newTableScheme) {
      TableStorage.VersionListing listing = storage.listVersions();
      if (listing.latest().isEmpty()) {
        return new LaneState(null, 0, newTableScheme, new TreeMap<>(), recentLimit);
      }
      ManifestNaming.Scheme scheme = listing.scheme().orElseThrow();
      long latestVersion = listing.latest().get();
      ManifestFile file = storage.readManifest(latestVersion, scheme)
          .orElseThrow(() -> new StoreException("Version " + latestVersion + " vanished while loading"));
      TreeMap<Long, Transaction> recent = new TreeMap<>();
      recent.put(latestVersion, storage.transactionOf(file));
      return new LaneState(storage.stateOf(file), listing.first().orElseThrow(), scheme, recent, recentLimit);
    }

    /** The state right after {@code txn} created the table as {@code first} (a Clone: not necessarily version 1). */
    static LaneState created(TableState first, ManifestNaming.Scheme scheme, Transaction txn, int recentLimit) {
      TreeMap<Long, Transaction> recent = new TreeMap<>();
      recent.put(first.version(), txn);
      return new LaneState(first, first.version(), scheme, recent, recentLimit);
    }

    TableState latest() {
      return latest;
    }

    long latestVersion() {
      return latest == null ? 0 : latest.version();
    }

    /** The oldest version the table had when the lane looked (0 while it has none). */
    long firstVersion() {
      return firstVersion;
    }

    ManifestNaming.Scheme scheme() {
      return scheme;
    }

    /** True when {@code version} exists and was made by the transaction {@code uuid}. */
    boolean holds(long version, String uuid, TableStorage storage) {
      Transaction cached = recent.get(version);
      if (cached != null) {
        return cached.getUuid().equals(uuid);
      }
      return storage.readManifest(version, scheme).map(f -> storage.transactionOf(f).getUuid().equals(uuid))
          .orElse(false);
    }

    /** The transactions of every version after {@code readVersion}, ascending, loading what is not cached. */
    List<CommittedTransaction> committedSince(long readVersion, TableStorage storage) {
      List<CommittedTransaction> since = new ArrayList<>();
      // Versions before the first never existed in this table (a clone starts at its source's version number).
      for (long v = Math.max(readVersion + 1, firstVersion); v <= latestVersion(); v++) {
        Transaction txn = recent.get(v);
        if (txn == null) {
          long version = v;
          ManifestFile file = storage.readManifest(v, scheme).orElseThrow(() ->
              new StoreException("Version " + version + " is missing; the table history has a gap"));
          txn = storage.transactionOf(file);
          remember(v, txn);
        }
        since.add(new CommittedTransaction(v, txn));
      }
      return since;
    }

    LaneState advance(TableState next, Transaction txn) {
      TreeMap<Long, Transaction> recentNext = recent; // the lane owns it; no one else reads the old state
      long first = latest == null ? next.version() : firstVersion;
      LaneState advanced = new LaneState(next, first, scheme, recentNext, recentLimit);
      advanced.remember(next.version(), txn);
      return advanced;
    }

    private void remember(long version, Transaction txn) {
      recent.put(version, txn);
      while (recent.size() > recentLimit) {
        Map.Entry<Long, Transaction> oldest = recent.firstEntry();
        recent.remove(oldest.getKey());
      }
    }
  }
}
