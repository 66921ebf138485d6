package dev.lancecommit.coordinator.commit;

import dev.lancecommit.coordinator.concurrent.ClaimableTask;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.storage.StoreException;
import dev.lancecommit.coordinator.table.CommitOutcome;
import dev.lancecommit.coordinator.table.CommitStateUnknownException;
import dev.lancecommit.coordinator.table.NextVersion;
import dev.lancecommit.coordinator.table.StagedVersion;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.coordinator.table.TableSnapshot;
import dev.lancecommit.coordinator.verify.CommitFileCheck;
import dev.lancecommit.coordinator.verify.FileVerifier;
import dev.lancecommit.coordinator.verify.FilesCheckedAhead;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.TraceContext;
import dev.lancecommit.format.FeatureFlags;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.RulesException;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.TransactionFiles;
import dev.lancecommit.format.deletion.DeletionVectors;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.DeletionFile;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.CommitContext;
import dev.lancecommit.rules.InvalidTransactionException;
import dev.lancecommit.rules.ManifestBuilder;
import dev.lancecommit.rules.OperationKind;
import dev.lancecommit.rules.TransactionValidator;
import dev.lancecommit.rules.conflict.CommitConflictException;
import dev.lancecommit.rules.conflict.CommittedTransaction;
import dev.lancecommit.rules.group.GroupBuilder;
import dev.lancecommit.rules.group.GroupBuilder.Verdict;
import dev.lancecommit.rules.group.GroupMembers;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.roaringbitmap.RoaringBitmap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the commits of one table: a pipeline whose only serial step is the manifest's put-if-absent.
 *
 * <p>Phases of a version, each a method below: <b>prepare</b> (decode each waiting transaction, validate it, check
 * it with the conflict rules against the versions since its read version and the members before it, rebase a
 * Delete/Update; {@link GroupBuilder}), <b>build</b> (the next manifest, of one transaction or of a group of
 * commuting ones), <b>stage</b> (deletion files and {@code .txn} written; {@link TableOperations#stage}),
 * <b>write</b> (the manifest's put-if-absent; {@link TableOperations#commit(StagedVersion)}), <b>answer</b>, and
 * <b>after</b> (event handoff and Lance's version hint, on a serial queue off the critical path). The files a version
 * adds are checked between build and stage ({@link CommitFileCheck}); a group that fails the check is prepared again
 * one member per version, so only the member naming the bad file is refused.
 *
 * <p>While one version's manifest is being written, the next one is prepared, built and staged on top of it
 * (speculatively: {@link StagedVersion#after()}). Its write starts the moment the one before lands; if that write is
 * taken by another writer or its outcome is unknown, the version prepared on top of it is discarded and its
 * transactions are prepared again. Waiting transactions that commute share one version (up to the group limits);
 * one that conflicts or is invalid is answered alone.
 *
 * <p>A transaction uuid is owned by one waiting or in-flight commit at a time: a resubmission arriving meanwhile
 * gets that commit's answer, so nothing is applied twice and no file of a landed commit is written again. Once
 * answered, a resubmission is checked against the versions that landed (already committed: the same answer).
 *
 * <p>Threads: {@link #submit} only enqueues; every phase runs on the lane executor, the write on the same thread
 * as the preparation that made it when nothing else is in flight.
 */
final class CommitLane {
  private static final Logger LOG = LoggerFactory.getLogger(CommitLane.class);
  private static final int STATES_KEPT = 8;

  private final TableRef table;
  private final TableOperations ops;
  private final Function<String, StorageLocation> stores;
  private final CommitSettings settings;
  private final CommitEventSink events;
  private final Executor executor;
  /** Where each commit's own files are checked while it waits (null: with its version only). */
  private final Executor checksAhead;
  private final Clock clock;
  private final SerialQueue after;
  private final GroupBuilder.Limits limits;
  private final CommitFileCheck files;
  private final CommitPermit permit;
  /**
   * Earlier versions for conflict checks (versions never change once landed): the ones this lane landed, as it built
   * them, and the ones it had to read. A writer's read version is most often one the lane landed a moment ago.
   */
  private final Map<Long, TableState> statesAt = new LinkedHashMap<>(16, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<Long, TableState> eldest) {
      return size() > STATES_KEPT;
    }
  };

  // Guarded by this.
  private final ArrayDeque<Member> queue = new ArrayDeque<>();
  /** Uuid -> the commit that owns it, from the moment it is taken from the queue until it is answered. */
  private final Map<String, Member> owners = new HashMap<>();
  private boolean preparing;
  private Version prepared;
  private Version writing;
  private long hintWritten;
  /** The last preparation found nothing it could do on top of the write in flight: wait for it to finish. */
  private boolean waitForWrite;
  /** A {@link LaneHold} has its turn: nothing is prepared or written until it is released. */
  private boolean held;

  CommitLane(
      TableRef table,
      TableOperations ops,
      Function<String, StorageLocation> stores,
      CommitSettings settings,
      CommitEventSink events,
      Executor executor,
      Executor checksAhead,
      Clock clock,
      CommitPermit permit) {
    this.table = table;
    this.ops = ops;
    this.stores = stores;
    this.settings = settings;
    this.events = events;
    this.executor = executor;
    this.checksAhead = checksAhead;
    this.clock = clock;
    this.permit = permit;
    this.after = new SerialQueue(executor);
    this.limits = new GroupBuilder.Limits(settings.groupMaxTransactions(), settings.groupMaxBytes());
    this.files = new CommitFileCheck(new FileVerifier(stores, executor, settings.verifyFilesParallelism()),
        settings.verifyFiles());
  }

  /**
   * {@code table} is the catalog's current view (a rename keeps the lane but changes the id events carry). Returns
   * at once; the answer completes on a lane thread, so what is chained on it must not block.
   */
  CompletableFuture<CommitResult> submit(TableRef table, CommitRequest request,
      CommitObserver.Observation observation) {
    Member member = new Member(table, request, observation);
    requireRoom(table);
    if (checksAhead != null) {
      member.ahead = files.ahead(ops.location(), member::transaction, checksAhead);
    }
    synchronized (this) {
      requireRoom(table);
      queue.add(member);
    }
    work(null);
    return member.result;
  }

  private synchronized void requireRoom(TableRef table) {
    if (queue.size() >= settings.maxQueuedPerTable()) {
      throw new CommitThrottledException(
          "Table " + table.joinedId() + " has " + queue.size() + " commits queued; retry later");
    }
  }

  /**
   * Takes a turn on the lane for work that must see the table still while it decides ({@link LaneHold}: an atomic
   * batch checks its member here, then writes it or not): the future completes once every commit queued before is
   * answered and nothing is being written, and nothing queued after is prepared until the hold is released.
   */
  CompletableFuture<LaneHold> hold(TableRef table) {
    Member turn = Member.hold(table);
    synchronized (this) {
      if (queue.size() >= settings.maxQueuedPerTable()) {
        throw new CommitThrottledException(
            "Table " + table.joinedId() + " has " + queue.size() + " commits queued; retry later");
      }
      queue.add(turn);
    }
    work(null);
    return turn.hold;
  }

  /** Ends a hold: what queued behind it is prepared now. */
  void release() {
    synchronized (this) {
      if (!held) {
        return;
      }
      held = false;
    }
    work(null);
  }

  /** Commits waiting to be prepared (not those being prepared or written). */
  synchronized int queued() {
    return queue.size();
  }

  // ------------------------------------------------------------------------------------------------ scheduling

  /** Runs {@code task} (if any), then whatever can start next, on this thread; starts anything else elsewhere. */
  private void work(Runnable task) {
    Runnable next = task != null ? task : startable(false);
    while (next != null) {
      try {
        next.run();
      } catch (Throwable t) {
        LOG.error("Commit lane of table {} failed unexpectedly", table.joinedId(), t);
      }
      next = startable(true);
    }
  }

  /**
   * Decides what can start now: the write of a staged version whose base has landed (discarding one built on a
   * version that did not), and the preparation of the next version. Returns one of them for a lane thread to run
   * itself ({@code onLaneThread}); everything else goes to the executor.
   */
  private Runnable startable(boolean onLaneThread) {
    List<Runnable> start = new ArrayList<>(2);
    synchronized (this) {
      if (writing == null && prepared != null) {
        Version version = prepared;
        prepared = null;
        if (ops.isCurrent(version.staged.base())) {
          writing = version;
          start.add(() -> write(version));
        } else {
          version.staged.discard();
          requeue(version.members); // built on a version that was taken or is in doubt: prepare them again
        }
      }
      if (!held && !preparing && prepared == null && !queue.isEmpty() && !(writing != null && waitForWrite)) {
        preparing = true;
        TableSnapshot onto = writing == null ? null : writing.staged.after();
        start.add(() -> prepare(onto));
      }
    }
    if (start.isEmpty()) {
      return null;
    }
    int first = onLaneThread ? 1 : 0;
    for (int i = first; i < start.size(); i++) {
      executor.execute(lane(start.get(i)));
    }
    return onLaneThread ? start.get(0) : null;
  }

  private Runnable lane(Runnable task) {
    return () -> work(task);
  }

  /** Puts members back at the front of the queue, in their order. */
  private void requeue(List<Member> members) {
    for (int i = members.size() - 1; i >= 0; i--) {
      queue.addFirst(members.get(i));
    }
  }

  // ------------------------------------------------------------------------------------------------ prepare

  /**
   * Prepares, builds and stages the next version: on {@code onto} (the version being written) when one is in
   * flight, else on the table's current state.
   */
  private void prepare(TableSnapshot onto) {
    Version version = null;
    boolean idle = false;
    try {
      if (onto == null && grantHold()) {
        return; // nothing in flight and a hold is first: it has its turn
      }
      TableSnapshot base;
      try {
        base = onto != null ? onto : ops.current();
      } catch (RuntimeException e) {
        failFirst(e); // the table cannot be loaded (store down): the first waiting commit hears it, as it would alone
        return;
      }
      Preparation preparation = prepareOn(base, onto != null);
      version = preparation.version;
      idle = version == null && preparation.waitsForWrite;
    } catch (Throwable t) {
      LOG.error("Preparing a version of table {} failed", table.joinedId(), t);
    } finally {
      synchronized (this) {
        preparing = false;
        prepared = version;
        waitForWrite = idle;
      }
    }
  }

  /** Gives the hold at the head of the queue its turn; called only when nothing is being written or staged. */
  private boolean grantHold() {
    Member first;
    synchronized (this) {
      first = queue.peekFirst();
      if (first == null || first.hold == null) {
        return false;
      }
      queue.pollFirst();
      held = true;
    }
    first.hold.completeAsync(() -> new LaneHold(this, first.table), executor);
    return true;
  }

  private void failFirst(RuntimeException e) {
    Member first;
    synchronized (this) {
      first = queue.pollFirst();
    }
    if (first != null) {
      answer(first, e);
    }
  }

  /** What a preparation made: a staged version, or none; in that case, whether it waits for the write in flight. */
  private record Preparation(Version version, boolean waitsForWrite) {}

  private Preparation prepareOn(TableSnapshot base, boolean speculative) {
    GroupBuilder group = newGroup(base);
    List<Member> joined = new ArrayList<>();
    List<Member> deferred = new ArrayList<>();
    boolean refreshed = false;
    boolean waitsForWrite = false;
    Member inHand = null;
    try {
      while (!group.isClosed()) {
        Member member;
        synchronized (this) {
          member = queue.pollFirst();
        }
        if (member == null) {
          break;
        }
        inHand = member;
        if (member.hold != null) {
          putBack(member); // a hold waits until what is before it is written: the next preparation grants it
          waitsForWrite = speculative && group.isEmpty();
          break;
        }
        member.observation.phase(CommitPhase.CHECKS);
        Transaction txn;
        try {
          txn = member.transaction();
          member.observation.operation(OperationKind.of(txn)); // a transaction without an operation: 400/13
        } catch (RuntimeException e) {
          answer(member, e);
          continue;
        }
        if (!own(member, txn)) {
          continue; // a resubmission of a commit in flight: it gets that commit's answer
        }
        if (txn.getOperationCase() == Transaction.OperationCase.CLONE) {
          if (!group.isEmpty() || speculative) {
            putBack(member); // a Clone creates the table: it commits when nothing else is in flight
            waitsForWrite = speculative && group.isEmpty();
            break;
          }
          commitClone(member, txn);
          break; // the table changed under the group: the next version starts from what the clone made
        }
        Verdict verdict;
        try {
          if (member.request.rebaseOverAppendsOnly()
              && Long.compareUnsigned(txn.getReadVersion(), base.latestVersion()) <= 0) {
            requireOnlyAppends(txn, ops.committedSince(base, txn.getReadVersion()));
          }
          verdict = notYetItsVersion(member.request, txn, base)
              ? new Verdict.Ahead() : group.offer(member.candidate(txn));
        } catch (RuntimeException e) {
          answer(member, e);
          continue;
        }
        if (verdict instanceof Verdict.Joined) {
          joined.add(member);
        } else if (verdict instanceof Verdict.AlreadyCommitted already) {
          answerAlreadyCommitted(member, txn, already.version(), base);
        } else if (verdict instanceof Verdict.Refused refused) {
          answer(member, refused.reason());
        } else if (verdict instanceof Verdict.Closed) {
          putBack(member);
          break;
        } else if (verdict instanceof Verdict.Ahead) {
          if (!group.isEmpty() || speculative) {
            deferred.add(member); // checked again on the table as it is once nothing is in flight
            waitsForWrite = speculative;
          } else if (refreshed) {
            answer(member, new InvalidTransactionException("read_version " + txn.getReadVersion()
                + " is ahead of the latest version " + base.latestVersion()));
          } else {
            // The writer may have seen a version written around the coordinator that this lane has not: look once.
            putBack(member);
            refreshed = true;
            try {
              base = ops.refresh();
            } catch (RuntimeException e) {
              failFirst(e);
              break;
            }
            group = newGroup(base);
          }
        }
      }
      if (joined.isEmpty()) {
        return new Preparation(null, waitsForWrite);
      }
      return new Preparation(buildAndStage(base, group, joined, speculative), false);
    } catch (RuntimeException | Error e) {
      answerTaken(e, base, inHand, joined, deferred);
      return new Preparation(null, false);
    } finally {
      synchronized (this) {
        requeue(deferred);
      }
    }
  }

  /**
   * A preparation failed where no failure was expected (a bug, or an observer that threw): every commit it had taken
   * from the queue and not yet answered, put back or staged is answered "outcome unknown" instead of never — that is
   * always true, and resubmitting the same transaction settles it (a Clone in hand may have been written).
   */
  private void answerTaken(Throwable e, TableSnapshot base, Member inHand, List<Member> joined,
      List<Member> deferred) {
    LOG.error("Preparing a version of table {} failed unexpectedly; answering its commits 'outcome unknown'",
        table.joinedId(), e);
    List<Member> taken = new ArrayList<>(joined);
    if (inHand != null && !taken.contains(inHand)) {
      taken.add(inHand);
    }
    synchronized (this) {
      taken.removeIf(m -> deferred.contains(m) || queue.contains(m));
    }
    long version = base.latestVersion() + 1;
    for (Member member : taken) {
      if (member.hold != null || member.result.isDone()) {
        continue;
      }
      answer(member, new CommitStateUnknownException(version,
          "the commit lane failed unexpectedly while preparing this commit (" + e + ")", e));
    }
  }

  private GroupBuilder newGroup(TableSnapshot base) {
    return new GroupBuilder(base.latest(), base.firstVersion(), limits, settings.formatFeatures(), history(base),
        (version, recorded) -> context(version, recorded));
  }

  private CommitContext context(long version, Transaction recorded) {
    return new CommitContext(version, clock.instant(), TransactionFiles.fileName(recorded), settings.writerVersion(),
        false, settings.defaultStorageVersion(), settings.formatFeatures());
  }

  /**
   * Builds the version of the members {@code group} accepted and stages it. A group that cannot be built as one
   * version (a gap in the grouping rules) is not committed: its members are prepared again one by one.
   */
  private Version buildAndStage(TableSnapshot base, GroupBuilder group, List<Member> joined, boolean speculative) {
    joined.forEach(m -> m.observation.phase(CommitPhase.BUILD));
    GroupBuilder.Built built;
    try {
      // a lone transaction is recorded as its writer sent it: it takes no properties
      built = group.build(UUID.randomUUID().toString(), joined.size() > 1 ? groupProperties(joined) : Map.of());
    } catch (RuntimeException e) {
      if (joined.size() == 1) {
        answer(joined.get(0), e);
        return null;
      }
      if (e instanceof RulesException || e.getCause() instanceof RulesException) {
        // a member the rules refuse once built (its own build was left to the group's): it will be refused alone
        LOG.warn("A group of {} commits to table {} could not be built as one version ({}); committing them one by"
            + " one", joined.size(), table.joinedId(), e.getMessage());
      } else {
        LOG.error("A group of {} commits to table {} could not be built as one version; committing them one by one",
            joined.size(), table.joinedId(), e);
      }
      joined.forEach(m -> m.alone = true);
      synchronized (this) {
        requeue(joined);
      }
      return null;
    }
    // On an object store the transaction file is written while the files are checked, each a round trip of its own;
    // if a check fails it is removed again, so a refused commit leaves nothing behind but what a failed Lance commit
    // may leave (and that only if the removal fails).
    // A group's transaction is named by a uuid drawn here, so no file can hold that name: on an object store it is
    // written beside the manifest instead of before it (TableOperations#stagedWithTransactionBeside).
    boolean transactionBeside = settings.transactionBesideManifest() && joined.size() > 1
        && ops.requestsAreRoundTrips();
    // A lone transaction is recorded under the name its writer gave the file; a file holding other bytes is refused
    // either way (TableOperations#stageTransactionWrittenByWriter compares as a failed create would).
    CommitRequest.TransactionFile writerFile = joined.size() == 1
        ? joined.get(0).request.transactionFile() : CommitRequest.TransactionFile.NOT_WRITTEN;
    // Decoded from its file before the request, and recorded as sent: the file holds the recorded transaction.
    boolean fileHoldsRecorded = writerFile == CommitRequest.TransactionFile.READ_AS_SENT
        && built.recorded().equals(joined.get(0).transaction());
    Runnable writeTransaction = fileHoldsRecorded ? () -> { }
        : writerFile != CommitRequest.TransactionFile.NOT_WRITTEN
            ? () -> ops.stageTransactionWrittenByWriter(built.recorded())
            : () -> ops.stageTransaction(built.recorded());
    ClaimableTask<Boolean> transactionWritten = !transactionBeside && !fileHoldsRecorded && files.enabled()
        && ops.requestsAreRoundTrips()
        ? ClaimableTask.start(() -> {
          writeTransaction.run();
          return true;
        }, executor) : null;
    try {
      // Built; written so far only the deletion files of a server-side rebase (named by no manifest yet): every file
      // the version adds is checked here, and a bad one writes nothing more.
      ops.stageDeletionFiles(built.deletionFiles());
      if (files.enabled()) {
        joined.forEach(m -> m.observation.phase(CommitPhase.FILE_CHECKS));
      }
      files.requireAdded(ops.location(), base.latest(), built.next(), checkedAhead(joined));
    } catch (RuntimeException e) {
      if (transactionWritten != null) {
        discardTransaction(transactionWritten, built.recorded());
      }
      if (joined.size() == 1) {
        answer(joined.get(0), e);
      } else {
        // Which member named the bad file: each is checked again in a version of its own, and only that one refused.
        joined.forEach(m -> m.alone = true);
        synchronized (this) {
          requeue(joined);
        }
      }
      return null;
    }
    NextVersion next = NextVersion.of(base.latestVersion() + 1, base.scheme(), built.next(), built.recorded(),
        base.latest());
    joined.forEach(m -> m.observation.phase(CommitPhase.STORAGE_WRITE));
    // Built on a write in flight, the manifest is staged beside it on another thread; with nothing in flight this
    // version is written next, on this thread, and a hand-over would only add a thread hop.
    Executor manifestStaging = speculative ? executor : null;
    StagedVersion staged;
    // A group's store calls are traced under its first member's storage_write phase.
    try (CommitObserver.PhaseScope traced = joined.get(0).observation.enterPhase()) {
      if (transactionBeside) {
        staged = ops.stagedWithTransactionBeside(base, next, manifestStaging, executor);
      } else if (transactionWritten == null) {
        writeTransaction.run(); // the deletion files are written above
        staged = ops.staged(base, next, manifestStaging);
      } else {
        transactionWritten.runOrAwait(); // a failure is the write's own (a store error, a uuid reused)
        staged = ops.staged(base, next, manifestStaging);
      }
    } catch (RuntimeException e) {
      joined.forEach(m -> answer(m, e));
      return null;
    }
    return new Version(staged, joined, base.latest());
  }

  /** The files the members' checks ahead found right (waiting for those under way): the version skips them. */
  private FilesCheckedAhead.Found checkedAhead(List<Member> joined) {
    FilesCheckedAhead.Found found = FilesCheckedAhead.Found.NONE;
    if (files.enabled()) {
      for (Member member : joined) {
        found = found.and(member.ahead.claim());
      }
    }
    return found;
  }

  /** Removes the transaction file written beside the file checks of a version that will not be written. */
  private void discardTransaction(ClaimableTask<Boolean> written, Transaction recorded) {
    if (written.cancel(false)) {
      return; // not started: never written
    }
    try {
      written.runOrAwait();
    } catch (RuntimeException e) {
      return; // not written (or someone else's file under that name, which is not ours to remove)
    }
    ops.discardTransaction(recorded);
  }

  /**
   * Properties the recorded transaction of a group carries besides its members' uuids: who committed, and each
   * member's details, so that an event rebuilt from storage names the members as the live one does.
   */
  private static Map<String, String> groupProperties(List<Member> members) {
    List<CommitEvent.Member> described = members.stream().map(Member::describe).toList();
    String actors = described.stream().map(CommitEvent.Member::actor).distinct().collect(Collectors.joining(", "));
    List<GroupMemberDetails.Detail> details = new ArrayList<>(members.size());
    for (int i = 0; i < members.size(); i++) {
      CommitEvent.Member member = described.get(i);
      details.add(new GroupMemberDetails.Detail(member.actor(), member.traceId(), member.readVersion(),
          NewFragmentIds.added(members.get(i).transaction()).size()));
    }
    return Map.of(VersionEvents.ACTOR_PROPERTY, actors,
        GroupMemberDetails.PROPERTY, GroupMemberDetails.encode(details));
  }

  private GroupBuilder.History history(TableSnapshot base) {
    return new GroupBuilder.History() {
      @Override
      public List<CommittedTransaction> committedSince(long readVersion) {
        return ops.committedSince(base, readVersion);
      }

      @Override
      public Optional<TableState> stateAt(long version) {
        if (version == base.latestVersion()) {
          return Optional.ofNullable(base.latest());
        }
        synchronized (statesAt) {
          TableState known = statesAt.get(version);
          if (known != null) {
            return Optional.of(known);
          }
        }
        Optional<TableState> read = ops.readManifest(version, base.scheme()).map(ManifestFile::tableState);
        read.ifPresent(state -> rememberState(version, state));
        return read;
      }

      @Override
      public RoaringBitmap deletionVector(DataFragment fragment) {
        return currentDeletions(fragment, base);
      }
    };
  }

  private void rememberState(long version, TableState state) {
    synchronized (statesAt) {
      statesAt.put(version, state);
    }
  }

  /**
   * For a transaction that may become only one version ({@link CommitRequest#landsAs}): true when that version is
   * beyond the next one (the table may have moved on outside the lane: handled as a read version ahead); a retryable
   * conflict naming the version that took it when it is taken, unless by this very transaction (a resubmission, which
   * the group builder answers with that version).
   */
  private boolean notYetItsVersion(CommitRequest request, Transaction txn, TableSnapshot base) {
    long landsAs = request.landsAs();
    long next = base.latestVersion() + 1;
    if (landsAs == 0 || landsAs == next) {
      return false;
    }
    if (landsAs > next) {
      return true;
    }
    CommittedTransaction taker = null;
    for (CommittedTransaction other : ops.committedSince(base, Math.min(txn.getReadVersion(), landsAs - 1))) {
      if (GroupMembers.madeBy(other.txn(), txn.getUuid())) {
        return false;
      }
      if (other.version() == landsAs) {
        taker = other;
      }
    }
    String operation = taker == null ? "unknown" : OperationKind.of(taker.txn()).lanceName();
    throw new CommitConflictException(true, landsAs, operation, "version-taken", "Version " + landsAs + " ("
        + operation + ") was committed before this transaction, staged as version " + landsAs
        + ", reached the lane; rebuild it on the latest version");
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

  /**
   * Makes {@code member} the owner of its uuid; false when another commit owns it, which {@code member} then
   * follows: it gets that commit's answer.
   */
  private boolean own(Member member, Transaction txn) {
    Member owner;
    synchronized (this) {
      owner = owners.putIfAbsent(txn.getUuid(), member);
    }
    if (owner == null || owner == member) {
      return true;
    }
    Transaction theirs = owner.decoded;
    if (theirs != null && theirs.getOperationCase() != txn.getOperationCase()) {
      String ours = txn.getOperationCase().name();
      String other = theirs.getOperationCase().name();
      answer(member, new CommitConflictException(false, txn.getReadVersion(), other, "uuid-reuse", ours
          + " reuses uuid " + txn.getUuid() + " of a " + other + " being committed; a new transaction needs a new uuid"));
      return false;
    }
    member.observation.leftLane();
    owner.result.whenComplete((result, failure) -> {
      if (failure != null) {
        member.result.completeExceptionally(failure);
      } else {
        member.result.complete(result);
      }
    });
    return false;
  }

  private void putBack(Member member) {
    synchronized (this) {
      queue.addFirst(member);
    }
  }

  // ------------------------------------------------------------------------------------------------ write

  /** Writes the staged version's manifest; answers its members or prepares them again. */
  private void write(Version version) {
    try (CommitObserver.PhaseScope traced = version.members.get(0).observation.enterPhase()) {
      // Cluster mode: an instance that lost the table answers TableNotOwnedException, nothing written, and the
      // commits go to the new owner; what was prepared on top is prepared again and meets the same answer.
      permit.check(version.members.get(version.members.size() - 1).table);
      CommitOutcome outcome = ops.commit(version.staged);
      if (outcome instanceof CommitOutcome.Taken) {
        retryTaken(version);
      } else {
        landed(version);
      }
    } catch (RuntimeException e) {
      // Store down (nothing landed) or outcome unknown (503/17: resubmitting the same transaction settles it).
      version.members.forEach(m -> answer(m, e));
    } finally {
      version.staged.discard(); // what was staged and not created (the permit refused): removed
      synchronized (this) {
        writing = null;
        waitForWrite = false;
      }
    }
  }

  /**
   * Someone outside the lane took the version: prepare the members again on what landed, up to a limit, ahead of
   * the version prepared on top of it (which cannot land either).
   */
  private void retryTaken(Version version) {
    List<Member> again = new ArrayList<>();
    for (Member member : version.members) {
      if (++member.taken >= settings.maxRebuildAttempts()) {
        answer(member, new CommitConflictException(true, version.version(), "unknown", "contention",
            "Version " + version.version() + " was taken by another writer " + member.taken
                + " times in a row; retry later"));
      } else {
        again.add(member);
      }
    }
    synchronized (this) {
      if (prepared != null && !ops.isCurrent(prepared.staged.base())) {
        prepared.staged.discard();
        again.addAll(prepared.members);
        prepared = null;
      }
      requeue(again);
    }
  }

  // ------------------------------------------------------------------------------------------------ answer

  private void landed(Version version) {
    NextVersion next = version.staged.next();
    rememberState(next.version(), next.state());
    String manifestUri = ops.manifestUri(next.version(), next.scheme());
    Transaction recorded = next.transaction();
    OperationKind kind = OperationKind.of(recorded);
    int size = version.members.size();
    List<CommitEvent.Member> described = new ArrayList<>(size);
    NewFragmentIds added = NewFragmentIds.in(next.state().manifest(), recorded);
    Optional<CommitResult.WrittenManifest> written = Optional.of(written(next));
    for (Member member : version.members) {
      Transaction sent = member.decoded;
      List<Long> ids = added.of(sent);
      described.add(member.describe(ids));
      finish(member, new CommitResult(next.version(), sent.getReadVersion(), sent.getUuid(), manifestUri,
          kind.lanceName(), size, ids, written), null);
    }
    TableRef ref = version.members.get(size - 1).table;
    TraceContext trace = version.members.get(0).observation.trace();
    after.execute(() -> {
      handOver(() -> CommitEventFactory.committed(ref, version.previous, next.state(), recorded, kind, manifestUri,
          described, trace, clock.instant()), next.version());
      moveVersionHint(next.version());
      if (ops.owesTransactionFiles()) {
        ops.writeOwedTransactionFiles();
      }
    });
  }

  private void answerAlreadyCommitted(Member member, Transaction txn, long version, TableSnapshot base) {
    member.observation.alreadyCommitted();
    ManifestNaming.Scheme scheme = base.scheme();
    String manifestUri = ops.manifestUri(version, scheme);
    OperationKind kind = OperationKind.of(txn);
    CommitResult result;
    try {
      result = resultOfLanded(txn, kind, version, base);
    } catch (RuntimeException e) {
      answer(member, e); // the store failed reading the version back: the writer asks again
      return;
    }
    finish(member, result, null);
    // The first answer may have been lost together with its event: publish again; consumers drop the duplicate.
    TableRef ref = member.table;
    CommitEvent.Member described = member.describe(result.newFragmentIds());
    TraceContext trace = member.observation.trace();
    long firstVersion = base.firstVersion();
    after.execute(() -> handOver(() -> {
      ManifestFile landed = ops.readManifest(version, scheme).orElseThrow();
      // Nothing before the table's first version: it was created (at 1, or at its source's version by a Clone).
      TableState previous = version - 1 < Math.max(1, firstVersion) ? null
          : ops.readManifest(version - 1, scheme).map(ManifestFile::tableState).orElse(null);
      Transaction recorded = ops.transactionOf(landed);
      List<CommitEvent.Member> members = GroupMembers.of(recorded).isEmpty() ? List.of(described)
          : VersionEvents.members(recorded, landed.manifest(), null).stream()
              .map(m -> m.transactionUuid().equals(described.transactionUuid()) ? described : m).toList();
      return CommitEventFactory.committed(ref, previous, landed.tableState(), recorded, kind, manifestUri, members,
          trace, clock.instant());
    }, version));
  }

  /** Answers a member that cannot commit (and whoever resubmitted it meanwhile). */
  private void answer(Member member, Throwable failure) {
    finish(member, null, failure);
  }

  private void finish(Member member, CommitResult result, Throwable failure) {
    if (member.hold != null) {
      member.hold.completeExceptionally(failure != null ? failure : new IllegalStateException("hold not granted"));
      return;
    }
    synchronized (this) {
      if (member.decoded != null) {
        owners.remove(member.decoded.getUuid(), member);
      }
    }
    if (result != null) {
      member.observation.phase(CommitPhase.EVENT_HANDOFF);
    }
    member.observation.leftLane();
    if (failure != null) {
      member.result.completeExceptionally(failure);
    } else {
      member.result.complete(result);
    }
  }

  // ------------------------------------------------------------------------------------------------ after

  private void handOver(java.util.function.Supplier<CommitEvent> event, long version) {
    try {
      events.accept(event.get());
    } catch (RuntimeException e) {
      // The version landed whatever happens to its event: the reconciler publishes it from storage.
      LOG.error("The event of version {} of table {} was not handed over; the reconciler will publish it",
          version, table.joinedId(), e);
    }
  }

  /** Moves Lance's version hint on to the newest version this lane has landed (skipping any it has passed). */
  private void moveVersionHint(long version) {
    synchronized (this) {
      if (version <= hintWritten) {
        return;
      }
      hintWritten = version;
    }
    ops.writeVersionHint(version);
  }

  // ------------------------------------------------------------------------------------------------ held lane

  /**
   * Under a hold ({@link LaneHold}): checks {@code txn} against the table as it is, as the first and only member of
   * a version, and builds and stages that version (its deletion files written; its {@code .txn} is written by
   * {@link #write}: a batch member's transaction names its batch, and a batch that fails before its record must leave
   * no file that the same member, retried in another batch, would find holding other bytes).
   */
  Built build(CommitRequest request, Transaction txn, OperationKind kind, CommitObserver.Observation observation) {
    observation.phase(CommitPhase.CHECKS);
    TableSnapshot base = ops.current();
    boolean refreshed = false;
    while (true) {
      if (request.rebaseOverAppendsOnly() && Long.compareUnsigned(txn.getReadVersion(), base.latestVersion()) <= 0) {
        requireOnlyAppends(txn, ops.committedSince(base, txn.getReadVersion()));
      }
      GroupBuilder group = newGroup(base);
      Verdict verdict = notYetItsVersion(request, txn, base) ? new Verdict.Ahead()
          : group.offer(new GroupBuilder.Candidate(txn, request.affectedRows(), request.rebase(), false,
              request.transaction().length));
      if (verdict instanceof Verdict.AlreadyCommitted already) {
        return new Built.AlreadyCommitted(already.version(), base);
      }
      if (verdict instanceof Verdict.Refused refused) {
        throw refused.reason();
      }
      if (verdict instanceof Verdict.Ahead) {
        if (refreshed) {
          throw new InvalidTransactionException("read_version " + Long.toUnsignedString(txn.getReadVersion())
              + " is ahead of the latest version " + base.latestVersion());
        }
        // The writer may have seen a version written around the coordinator that this lane has not: look once.
        base = ops.refresh();
        refreshed = true;
        continue;
      }
      if (!(verdict instanceof Verdict.Joined)) {
        throw new IllegalStateException("A transaction alone in a version was not accepted: " + verdict);
      }
      observation.phase(CommitPhase.BUILD);
      GroupBuilder.Built built = group.build(UUID.randomUUID().toString(),
          Map.of(VersionEvents.ACTOR_PROPERTY, request.actor()));
      NextVersion next = NextVersion.of(base.latestVersion() + 1, base.scheme(), built.next(), built.recorded(),
          base.latest());
      ops.stageDeletionFiles(built.deletionFiles()); // named by no manifest yet
      if (files.enabled()) {
        observation.phase(CommitPhase.FILE_CHECKS);
      }
      files.requireAdded(ops.location(), base.latest(), built.next()); // a bad file fails here: nothing more written
      return new Built.Ready(base, ops.stagedWithoutManifest(base, next), txn, kind);
    }
  }

  /** The table as it was when the lane was made. */
  TableRef table() {
    return table;
  }

  /**
   * Cluster mode: refuses ({@link TableNotOwnedException}) when this instance does not own the table now. Asked before
   * a lane's own write and before a batch member is recorded; a recorded batch is rolled forward whoever owns the
   * table (put-if-absent is the fence either way).
   */
  void checkPermit(TableRef current) {
    permit.check(current);
  }

  /**
   * Under a hold: writes a version {@link #build} staged, its {@code .txn} and then its manifest (the one
   * put-if-absent); Taken when another has it.
   */
  CommitOutcome write(Built.Ready ready) {
    ops.stageTransaction(ready.next().transaction());
    return ops.commit(ready.staged());
  }

  CommitResult result(Built.Ready ready) {
    Transaction txn = ready.transaction();
    return new CommitResult(ready.version(), txn.getReadVersion(), txn.getUuid(),
        ops.manifestUri(ready.version(), ready.next().scheme()), ready.kind().lanceName(), 1,
        NewFragmentIds.in(ready.next().state().manifest(), ready.next().transaction()).of(txn),
        Optional.of(written(ready.next())));
  }

  /** The manifest of {@code next} as written: what describing the version would otherwise ask the store. */
  private CommitResult.WrittenManifest written(NextVersion next) {
    return new CommitResult.WrittenManifest(next.manifestSize(),
        VersionEvents.committedAt(next.state().manifest(), clock.instant()));
  }

  /** The event of {@code ready}, written, whose writer was answered {@code result}. */
  CommitEvent event(Built.Ready ready, TableRef table, String actor, CommitResult result) {
    Transaction txn = ready.transaction();
    return CommitEventFactory.committed(table, ready.base().latest(), ready.next().state(), ready.next().transaction(),
        ready.kind(), ops.manifestUri(ready.version(), ready.next().scheme()),
        List.of(new CommitEvent.Member(txn.getUuid(), txn.getReadVersion(), actor, null, result.newFragmentIds())),
        null, clock.instant());
  }

  /** The event of a version that landed earlier (an idempotent resubmit, a batch rolled forward). */
  CommitEvent eventOfLanded(TableRef table, long version, OperationKind kind, String actor, TableSnapshot current) {
    ManifestNaming.Scheme scheme = current.scheme();
    ManifestFile landed = ops.readManifest(version, scheme).orElseThrow();
    // Nothing before the table's first version: it was created (at 1, or at its source's version by a Clone).
    TableState previous = version - 1 < Math.max(1, current.firstVersion()) ? null
        : ops.readManifest(version - 1, scheme).map(ManifestFile::tableState).orElse(null);
    Transaction recorded = ops.transactionOf(landed);
    return CommitEventFactory.committed(table, previous, landed.tableState(), recorded, kind,
        ops.manifestUri(version, scheme), VersionEvents.members(recorded, landed.manifest(), actor), null,
        clock.instant());
  }

  /**
   * The answer a transaction got when its version landed, given again (an idempotent resubmit): the group size from
   * the version's recorded transaction and, when the transaction added fragments, their ids from its manifest.
   */
  CommitResult resultOfLanded(Transaction txn, OperationKind kind, long version, TableSnapshot current) {
    Optional<Transaction> recorded = ops.transactionAt(current, version);
    int size = recorded.map(GroupMembers::size).orElse(1);
    List<Long> ids = List.of();
    if (!NewFragmentIds.added(txn).isEmpty()) {
      dev.lancecommit.format.pb.Manifest manifest = version == current.latestVersion() && current.latest() != null
          ? current.latest().manifest()
          : ops.readManifest(version, current.scheme()).orElseThrow(() -> new dev.lancecommit.coordinator.storage
              .StoreException("Version " + version + " vanished while answering a resubmission")).manifest();
      ids = NewFragmentIds.in(manifest, recorded.map(NewFragmentIds::added).map(List::size)
          .orElse(manifest.getFragmentsCount())).of(txn);
    }
    return new CommitResult(version, txn.getReadVersion(), txn.getUuid(), ops.manifestUri(version, current.scheme()),
        kind.lanceName(), size, ids);
  }

  /**
   * Hands an event over after those of the versions before it (on the serial queue off the critical path) and moves
   * the version hint; a failure is logged, never raised (the reconciler publishes from storage).
   */
  void handOver(CommitEvent event) {
    after.execute(() -> {
      handOver(() -> event, event.version());
      moveVersionHint(event.version());
    });
  }

  // ------------------------------------------------------------------------------------------------ clone

  /**
   * A Clone creates the table: its first version is the source's manifest at {@code ref_version}, under the same
   * version number, with the source's files reached through a new base path (shallow) or, for a deep clone, named
   * under this table's root where the writer copied them (Lance's {@code commit_new_dataset}).
   * Resubmitted after it landed, it gets the same answer; onto a table that has versions it is refused.
   */
  private void commitClone(Member member, Transaction txn) {
    try {
      Transaction.Clone clone = txn.getClone();
      long version = clone.getRefVersion();
      for (int attempt = 1; ; attempt++) {
        member.observation.phase(CommitPhase.CHECKS);
        // A clone is rare and must not land beside versions written around the lane: list afresh.
        TableSnapshot current = ops.refresh();
        if (current.latest() != null) {
          if (version >= 1 && ops.madeBy(current, version, txn.getUuid())) {
            answerAlreadyCommitted(member, txn, version, current);
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
        member.observation.phase(CommitPhase.BUILD);
        TableState next = ManifestBuilder.buildClone(source, txn, context(version, txn));
        // A deep clone's writer copied the files before committing (Lance's deep_clone); nothing is written unless
        // all are here. A shallow clone's are the source's, checked when file checks are on.
        files.requireClone(ops.location(), next, !clone.getIsShallow(), source, CloneSource.root(stores, clone),
            stores);
        NextVersion prepared = NextVersion.of(version, current.scheme(), next, txn);
        member.observation.phase(CommitPhase.STORAGE_WRITE);
        permit.check(member.table);
        CommitOutcome outcome;
        try (CommitObserver.PhaseScope traced = member.observation.enterPhase()) {
          outcome = ops.commit(current, prepared);
        }
        if (outcome instanceof CommitOutcome.Taken) {
          if (attempt >= settings.maxRebuildAttempts()) {
            throw new CommitConflictException(true, version, "unknown", "contention",
                "Version " + version + " was taken by another writer " + attempt + " times in a row; retry later");
          }
          continue; // someone created the table meanwhile: the next pass answers or refuses against what landed
        }
        String manifestUri = ops.manifestUri(version, current.scheme());
        finish(member, new CommitResult(version, txn.getReadVersion(), txn.getUuid(), manifestUri,
            OperationKind.CLONE.lanceName(), 1, List.of(), Optional.of(written(prepared))), null);
        CommitEvent.Member described = member.describe();
        TraceContext trace = member.observation.trace();
        after.execute(() -> handOver(() -> CommitEventFactory.committed(member.table, null, next, txn,
            OperationKind.CLONE, manifestUri, List.of(described), trace, clock.instant()), version));
        return;
      }
    } catch (RuntimeException e) {
      answer(member, e);
    }
  }

  // ------------------------------------------------------------------------------------------------ records

  /** One waiting commit. */
  private static final class Member {
    final TableRef table;
    final CommitRequest request;
    final CommitObserver.Observation observation;
    final CompletableFuture<CommitResult> result = new CompletableFuture<>();
    /** The transaction as sent, once decoded. */
    volatile Transaction decoded;
    /** Times its version was taken by another writer. */
    int taken;
    /** Commits in a version of its own (its group could not be built). */
    boolean alone;
    /** Its own files, checked while it waits; set before it is queued. */
    FilesCheckedAhead ahead = FilesCheckedAhead.NONE;
    /** Set for a {@link LaneHold}'s turn (no request): completed when the hold is granted. */
    final CompletableFuture<LaneHold> hold;

    Member(TableRef table, CommitRequest request, CommitObserver.Observation observation) {
      this(table, request, observation, null);
    }

    private Member(TableRef table, CommitRequest request, CommitObserver.Observation observation,
        CompletableFuture<LaneHold> hold) {
      this.table = table;
      this.request = request;
      this.observation = observation;
      this.hold = hold;
    }

    static Member hold(TableRef table) {
      return new Member(table, null, CommitObserver.NoObservation.INSTANCE, new CompletableFuture<>());
    }

    /** Decoded once, by the lane or by the check ahead, whichever asks first. */
    Transaction transaction() {
      Transaction txn = decoded;
      if (txn == null) {
        synchronized (this) {
          txn = decoded;
          if (txn == null) {
            txn = TransactionDecoding.decode(request.transaction());
            decoded = txn;
          }
        }
      }
      return txn;
    }

    GroupBuilder.Candidate candidate(Transaction txn) {
      return new GroupBuilder.Candidate(txn, request.affectedRows(), request.rebase(),
          request.groupable() && !alone, request.transaction().length);
    }

    CommitEvent.Member describe() {
      return describe(List.of());
    }

    CommitEvent.Member describe(List<Long> newFragmentIds) {
      TraceContext trace = observation.trace();
      return new CommitEvent.Member(decoded.getUuid(), decoded.getReadVersion(), request.actor(),
          trace == null ? null : trace.traceId(), newFragmentIds);
    }
  }

  /** A version prepared and staged: written next, or being written. */
  private record Version(StagedVersion staged, List<Member> members, TableState previous) {
    long version() {
      return staged.version();
    }
  }

  /** Runs tasks one at a time, in order, on an executor: the lane's after-commit work. */
  private static final class SerialQueue {
    private final Executor executor;
    private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    private boolean running;

    SerialQueue(Executor executor) {
      this.executor = executor;
    }

    void execute(Runnable task) {
      synchronized (this) {
        tasks.add(task);
        if (running) {
          return;
        }
        running = true;
      }
      executor.execute(this::drain);
    }

    private void drain() {
      while (true) {
        Runnable task;
        synchronized (this) {
          task = tasks.poll();
          if (task == null) {
            running = false;
            return;
          }
        }
        try {
          task.run();
        } catch (RuntimeException e) {
          LOG.error("After-commit work failed", e);
        }
      }
    }
  }
}
