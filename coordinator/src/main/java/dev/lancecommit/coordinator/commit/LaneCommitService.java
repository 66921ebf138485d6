package dev.lancecommit.coordinator.commit;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.table.TableStorage;
import dev.lancecommit.events.CommitEventPublisher;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * Routes each commit to its table's lane. Lanes are keyed by table location, so two catalog names for one dataset
 * still commit through one lane; an idle lane is dropped and rebuilt from the store on the next commit.
 */
public final class LaneCommitService implements CommitService {
  private final Function<String, StorageLocation> stores;
  private final CommitSettings settings;
  private final CommitEventPublisher events;
  private final Executor executor;
  private final Clock clock;
  private final Cache<String, CommitLane> lanes;

  public LaneCommitService(Function<String, StorageLocation> stores, CommitSettings settings, CommitEventPublisher events,
      Executor executor, Clock clock, Duration laneIdleTimeout) {
    this.stores = stores;
    this.settings = settings;
    this.events = events;
    this.executor = executor;
    this.clock = clock;
    this.lanes = Caffeine.newBuilder().expireAfterAccess(laneIdleTimeout).build();
  }

  @Override
  public CompletableFuture<CommitResult> commit(TableRef table, CommitRequest request) {
    try {
      CommitLane lane = lanes.get(table.location(), location ->
          new CommitLane(table, new TableStorage(stores.apply(location)), settings, events, executor, clock));
      return lane.submit(request);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }
}
