package dev.lancecommit.coordinator.cluster;

import dev.lancecommit.coordinator.commit.CommitRequest;
import dev.lancecommit.coordinator.commit.CommitResult;
import dev.lancecommit.coordinator.commit.CommitService;
import dev.lancecommit.coordinator.commit.TableNotOwnedException;
import dev.lancecommit.coordinator.table.TableRef;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * The commit service in cluster mode: the lanes, in front of which it refuses tables this instance does not serve
 * ({@link TableNotOwnedException}, nothing written: the request goes to the owner) and counts the commits under way
 * per table, so that handing a partition over can wait until its commits are done.
 */
public final class OwnedCommits implements CommitService {
  private final CommitService lanes;
  private final TableOwnership ownership;
  private final Map<String, AtomicInteger> underWay = new ConcurrentHashMap<>();

  public OwnedCommits(CommitService lanes, TableOwnership ownership) {
    this.lanes = Objects.requireNonNull(lanes, "lanes");
    this.ownership = Objects.requireNonNull(ownership, "ownership");
  }

  @Override
  public CompletableFuture<CommitResult> commit(TableRef table, CommitRequest request) {
    String key = table.joinedId();
    if (!ownership.serves(key)) {
      return CompletableFuture.failedFuture(notOwned(table));
    }
    underWay.compute(key, (k, c) -> {
      AtomicInteger counter = c == null ? new AtomicInteger() : c;
      counter.incrementAndGet();
      return counter;
    });
    CompletableFuture<CommitResult> result;
    try {
      result = lanes.commit(table, request);
    } catch (RuntimeException e) {
      result = CompletableFuture.failedFuture(e);
    }
    return result.whenComplete((ok, failure) -> underWay.computeIfPresent(key,
        (k, c) -> c.decrementAndGet() == 0 ? null : c));
  }

  /** Commits under way to the tables {@code keys} selects. */
  public int underWay(Predicate<String> keys) {
    return underWay.entrySet().stream().filter(e -> keys.test(e.getKey())).mapToInt(e -> e.getValue().get()).sum();
  }

  /**
   * Waits until no commit to the tables {@code keys} selects is under way, at most {@code timeout}.
   *
   * @return true if none is left
   */
  public boolean awaitIdle(Predicate<String> keys, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (underWay(keys) > 0) {
      if (System.nanoTime() >= deadline) {
        return false;
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return true;
  }

  static TableNotOwnedException notOwned(TableRef table) {
    return new TableNotOwnedException("This coordinator does not own table " + table.joinedId()
        + " (any more); the request goes to its owner");
  }
}
