package dev.lancecommit.coordinator.retention;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When version records of each table (branch) were last removed by this coordinator, and when it started: the file
 * cleanup of a table waits {@code commitGrace} after both.
 *
 * <p>Why: a Restore or a branch's Clone reads the manifest of an old version in its lane and writes a new version
 * naming that version's files moments later. If the old version's record is removed in between, the new version
 * still names those files, and the file cleanup must not have run on a listing taken before the new version landed.
 * So files are only collected once every commit that could have read a removed record has long landed: a lane step
 * takes seconds (its slowest path is the bounded retries of an ambiguous manifest write), far below the grace. The
 * same holds at start-up: no commit of an earlier process of this coordinator is still in flight after the grace.
 */
public final class RemovalLog {
  private final Clock clock;
  private final Instant started;
  private final ConcurrentHashMap<String, Instant> lastRemoval = new ConcurrentHashMap<>();

  public RemovalLog(Clock clock) {
    this.clock = clock;
    this.started = clock.instant();
  }

  /** Notes that version records of {@code streamKey} were removed now. */
  void removed(String streamKey) {
    lastRemoval.put(streamKey, clock.instant());
  }

  /** True when no version record of {@code streamKey} was removed, and the coordinator did not start, within the grace. */
  boolean quietFor(String streamKey, Duration grace) {
    Instant horizon = clock.instant().minus(grace);
    Instant removed = lastRemoval.get(streamKey);
    return !started.isAfter(horizon) && (removed == null || !removed.isAfter(horizon));
  }
}
