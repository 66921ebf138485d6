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
  private final Cache<String, CommitLane> lanes;
  private final CommitObserver observer;

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
    this.observer = observer;
    this.stores = stores;
    this.settings = settings;
    this.events = events;
    this.executor = executor;
    this.clock = clock;
    this.permit = permit;
    this.lanes = Caffeine.newBuilder().expireAfterAccess(laneIdleTimeout).build();
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
    for (CommitLane lane : lanes.asMap().values()) {
      total += lane.queued();
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
    String key = table.location() + "#" + table.streamKey();
    try {
      CommitLane lane = lanes.getIfPresent(key);
      if (lane != null) {
        return lane.submit(table, request, observation);
      }
      return CompletableFuture.supplyAsync(() -> lanes.get(key, k -> newLane(table)), executor)
          .thenCompose(made -> made.submit(table, request, observation));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public CompletableFuture<HeldLane> hold(TableRef table) {
    // (A held lane is in use: the idle timeout counts from its last access, and a hold is short.)
    String key = table.location() + "#" + table.streamKey();
    try {
      CommitLane lane = lanes.getIfPresent(key);
      if (lane != null) {
        return lane.hold(table).thenApply(held -> held);
      }
      return CompletableFuture.supplyAsync(() -> lanes.get(key, k -> newLane(table)), executor)
          .thenCompose(made -> made.hold(table).thenApply(held -> (HeldLane) held));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Drops the lanes of the tables {@code which} selects, with what they cached (cluster mode: tables handed over to
   * another instance). A lane still draining finishes its queue; its next commits go to a fresh lane.
   */
  public void forget(Predicate<TableRef> which) {
    lanes.asMap().values().removeIf(lane -> which.test(lane.table()));
  }

  private CommitLane newLane(TableRef table) {
    return new CommitLane(table, TableOperations.of(stores.apply(table.branchRoot()), new TableOperations.Options(
        table.displayName(), settings.recentTransactions(), settings.ambiguousWriteAttempts(),
        settings.newTableScheme())), stores, settings, events, executor, clock, permit);
  }
}
