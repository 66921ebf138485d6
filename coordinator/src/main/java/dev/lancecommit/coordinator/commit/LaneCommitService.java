package dev.lancecommit.coordinator.commit;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.coordinator.table.TableRef;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Routes each commit to its table's lane, keyed by location, table uuid and branch (a rename keeps the lane; events
 * carry the id the catalog gives with each request). An idle lane is dropped and rebuilt from the store on the next commit.
 */
public final class LaneCommitService implements CommitService, TableLanes {
  private final Function<String, StorageLocation> stores;
  private final CommitSettings settings;
  private final CommitEventSink events;
  private final Executor executor;
  private final Clock clock;
  private final CommitPermit permit;
  private final Cache<String, Opened> lanes;
  private final CommitObserver observer;
  private final LaneOpening opening;
  /** Checks commits' files while they wait (null: none ahead; see {@link #checksAhead}). */
  private final Executor checksAhead;

  /** A lane and its opening: commits and holds go to the lane once {@code ready} completes normally. */
  private record Opened(CommitLane lane, CompletableFuture<Void> ready, AtomicBoolean started) {}

  public LaneCommitService(Function<String, StorageLocation> stores, CommitSettings settings, CommitEventSink events,
      Executor executor, Clock clock, Duration laneIdleTimeout) {
    this(stores, settings, events, executor, clock, laneIdleTimeout, CommitObserver.NONE, CommitPermit.ALWAYS);
  }

  public LaneCommitService(Function<String, StorageLocation> stores, CommitSettings settings, CommitEventSink events,
      Executor executor, Clock clock, Duration laneIdleTimeout, CommitObserver observer) {
    this(stores, settings, events, executor, clock, laneIdleTimeout, observer, CommitPermit.ALWAYS);
  }

  /**
   * @param observer told of every commit's phases (metrics, traces)
   * @param permit asked before every manifest write (cluster mode: does this instance still own the table?)
   */
  public LaneCommitService(Function<String, StorageLocation> stores, CommitSettings settings, CommitEventSink events,
      Executor executor, Clock clock, Duration laneIdleTimeout, CommitObserver observer, CommitPermit permit) {
    this(stores, settings, events, executor, clock, laneIdleTimeout, observer, permit, LaneOpening.NONE);
  }

  /**
   * @param opening run once on every lane made, holding it, before it serves anything (cluster mode: settle the
   *     batches another instance left on the table)
   */
  public LaneCommitService(Function<String, StorageLocation> stores, CommitSettings settings, CommitEventSink events,
      Executor executor, Clock clock, Duration laneIdleTimeout, CommitObserver observer, CommitPermit permit,
      LaneOpening opening) {
    this.opening = java.util.Objects.requireNonNull(opening, "opening");
    this.observer = observer;
    this.stores = stores;
    this.settings = settings;
    this.events = events;
    this.executor = executor;
    this.clock = clock;
    this.permit = permit;
    this.lanes = Caffeine.newBuilder().expireAfterAccess(laneIdleTimeout).build();
    this.checksAhead = checksAhead(settings);
  }

  /**
   * A pool of its own, so that checks ahead never hold the lanes' threads: at most that many run at once, a check
   * arriving when all are busy is refused (its version checks those files), and idle threads exit, so the service
   * needs no shutdown.
   */
  private static Executor checksAhead(CommitSettings settings) {
    int threads = settings.verifyFilesAheadThreads();
    if (!settings.verifyFiles() || threads == 0) {
      return null;
    }
    AtomicInteger made = new AtomicInteger();
    ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
        runnable -> {
          Thread thread = new Thread(runnable, "lcc-files-ahead-" + made.incrementAndGet());
          thread.setDaemon(true);
          return thread;
        });
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  @Override
  public CompletableFuture<CommitResult> commit(TableRef table, CommitRequest request) {
    CommitObserver.Observation observation = observer.begin(table, request);
    CompletableFuture<CommitResult> answer = submit(table, request, observation);
    answer.whenComplete(observation::finished);
    return answer;
  }

  /** Lanes in memory (each table with a recent commit has one). */
  public long activeLanes() {
    return lanes.estimatedSize();
  }

  /** Commits waiting in every lane behind the one each is applying. */
  public long queuedCommits() {
    long total = 0;
    for (Opened opened : lanes.asMap().values()) {
      total += opened.lane().queued();
    }
    return total;
  }

  /**
   * Hands the commit to its table's lane, which only enqueues: safe to call from an event loop. A lane not made yet
   * is made on the lane executor (resolving the table's store may create a client).
   */
  private CompletableFuture<CommitResult> submit(TableRef table, CommitRequest request,
      CommitObserver.Observation observation) {
    // A dropped table re-declared at the same location is another table (another uuid): another lane. Each branch is
    // a dataset of its own (rooted at tree/{branch}) with its own lane; its commits never touch main.
    return onLane(table, lane -> lane.submit(table, request, observation));
  }

  /**
   * Runs {@code work} on the table's lane once it is open. A lane in memory and open is used at once (safe on an event
   * loop); a lane not made yet is made on the lane executor (resolving the table's store may create a client) and
   * opened there. A failure of {@code work} itself is returned as it was thrown.
   */
  private <T> CompletableFuture<T> onLane(TableRef table, Function<CommitLane, CompletableFuture<T>> work) {
    String key = table.location() + "#" + table.streamKey();
    Function<CommitLane, CompletableFuture<T>> guarded = lane -> {
      try {
        return work.apply(lane);
      } catch (RuntimeException e) {
        return CompletableFuture.failedFuture(e);
      }
    };
    try {
      Opened opened = lanes.getIfPresent(key);
      if (opened != null && opened.ready().isDone() && !opened.ready().isCompletedExceptionally()) {
        return guarded.apply(opened.lane());
      }
      CompletableFuture<Opened> found = opened != null ? CompletableFuture.completedFuture(opened)
          : CompletableFuture.supplyAsync(() -> lanes.get(key, k -> newLane(table)), executor);
      return found.thenCompose(made -> {
        open(key, table, made);
        return made.ready().thenCompose(ignored -> guarded.apply(made.lane()));
      });
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public CompletableFuture<HeldLane> hold(TableRef table) {
    // (A held lane is in use: the idle timeout counts from its last access, and a hold is short.)
    return onLane(table, lane -> lane.hold(table).thenApply(held -> (HeldLane) held));
  }

  /**
   * Drops the lanes of the tables {@code which} selects, with what they cached (cluster mode: tables handed over to
   * another instance). A lane still draining finishes its queue; its next commits go to a fresh lane.
   */
  public void forget(Predicate<TableRef> which) {
    lanes.asMap().values().removeIf(opened -> which.test(opened.lane().table()));
  }

  /** Makes the table's lane; {@link #open} runs its opening once it is in the map. */
  private Opened newLane(TableRef table) {
    CommitLane lane = makeLane(table);
    CompletableFuture<Void> ready = opening == LaneOpening.NONE ? CompletableFuture.completedFuture(null)
        : new CompletableFuture<>();
    return new Opened(lane, ready, new AtomicBoolean(opening == LaneOpening.NONE));
  }

  /**
   * Runs the lane's opening once: it holds the lane first (nothing is queued on it yet), so whatever comes next
   * waits for it. An opening that fails drops the lane before anyone waiting learns the failure, so the next commit
   * makes the lane (and opens it) again.
   */
  private void open(String key, TableRef table, Opened made) {
    if (!made.started().compareAndSet(false, true)) {
      return;
    }
    CompletableFuture<LaneHold> first;
    try {
      first = made.lane().hold(table);
    } catch (RuntimeException e) {
      lanes.asMap().remove(key, made);
      made.ready().completeExceptionally(e);
      return;
    }
    first.thenAcceptAsync(held -> {
      try {
        opening.open(held);
      } finally {
        held.release(true); // done by the opening already (idempotent); never leave the lane held
      }
    }, executor).whenComplete((ignored, failure) -> {
      if (failure == null) {
        made.ready().complete(null);
      } else {
        lanes.asMap().remove(key, made);
        made.ready().completeExceptionally(failure instanceof java.util.concurrent.CompletionException
            && failure.getCause() != null ? failure.getCause() : failure);
      }
    });
  }

  private CommitLane makeLane(TableRef table) {
    return new CommitLane(table, TableOperations.of(stores.apply(table.branchRoot()), new TableOperations.Options(
        table.displayName(), settings.recentTransactions(), settings.ambiguousWriteAttempts(),
        settings.newTableScheme())), stores, settings, events, executor, checksAhead, clock, permit);
  }
}
