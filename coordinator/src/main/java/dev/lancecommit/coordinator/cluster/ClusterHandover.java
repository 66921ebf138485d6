package dev.lancecommit.coordinator.cluster;

import dev.lancecommit.coordinator.commit.LaneCommitService;
import dev.lancecommit.coordinator.publication.Publication;
import dev.lancecommit.coordinator.table.TableRef;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a change of ownership does to this instance's commit lanes and publication.
 *
 * <ul>
 *   <li>Released (a rebalance moves the partition, or this instance stops): new commits already wait for the next
 *       owner ({@link ClusterMembership} no longer serves the partition, lanes refuse to write); wait for the commits
 *       under way, publish their events and record the progress, then drop the lanes and the queues.
 *   <li>Lost (this instance's session expired, e.g. it was paused): drop lanes and queues at once; the new owner's
 *       reconciler publishes whatever this instance did not.
 *   <li>Gained: lanes are built from storage on the first commit; in the background, read the progress the previous
 *       owner recorded and publish whatever the tables' versions lack.
 * </ul>
 */
public final class ClusterHandover implements ClusterMembership.Handover {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterHandover.class);

  private final OwnedCommits commits;
  private final LaneCommitService lanes;
  private final Publication publication;
  private final Duration drain;

  /** @param publication null when events are off */
  public ClusterHandover(OwnedCommits commits, LaneCommitService lanes, Publication publication, Duration drain) {
    this.commits = Objects.requireNonNull(commits, "commits");
    this.lanes = Objects.requireNonNull(lanes, "lanes");
    this.publication = publication;
    this.drain = Objects.requireNonNull(drain, "drain");
  }

  @Override
  public void release(Set<Integer> partitions, int partitionCount) {
    long deadline = System.nanoTime() + drain.toNanos();
    Predicate<String> keys = inPartitions(partitions, partitionCount);
    if (!commits.awaitIdle(keys, drain)) {
      LOG.warn("{} commits to partitions {} still under way after {} ms; handing over anyway (put-if-absent keeps "
          + "them safe)", commits.underWay(keys), partitions, drain.toMillis());
    }
    Predicate<TableRef> tables = table -> keys.test(table.joinedId());
    if (publication != null) {
      publication.release(tables, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
    }
    lanes.forget(tables);
  }

  @Override
  public void lost(Set<Integer> partitions, int partitionCount) {
    Predicate<String> keys = inPartitions(partitions, partitionCount);
    Predicate<TableRef> tables = table -> keys.test(table.joinedId());
    if (publication != null) {
      publication.drop(tables);
    }
    lanes.forget(tables);
  }

  @Override
  public void gained(Set<Integer> partitions, int partitionCount) {
    Predicate<String> keys = inPartitions(partitions, partitionCount);
    Predicate<TableRef> tables = table -> keys.test(table.joinedId());
    lanes.forget(tables); // whatever a lane kept from an earlier ownership is stale
    if (publication != null) {
      publication.adopt(tables);
    }
  }

  static Predicate<String> inPartitions(Set<Integer> partitions, int partitionCount) {
    if (partitionCount < 1) {
      return key -> false;
    }
    Set<Integer> chosen = Set.copyOf(partitions);
    return key -> chosen.contains(TablePartitioner.partition(key, partitionCount));
  }
}
