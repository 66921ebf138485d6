package dev.lancecommit.coordinator.commit;

import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Manifest;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Describes a landed version as a commit event: what it added and removed relative to the version before. Shared by
 * the commit path (which knows the actor) and the reconciler (which reads the version back from storage).
 */
public final class VersionEvents {
  /**
   * Transaction property in which the coordinator may record who committed, so an event rebuilt from storage after
   * a crash still names the actor.
   */
  public static final String ACTOR_PROPERTY = "lance-commit-coordinator.actor";

  /** The actor of versions written bypassing the coordinator. */
  public static final String UNKNOWN_ACTOR = "unknown";

  /** The operation of a version whose transaction cannot be read. */
  public static final String UNKNOWN_OPERATION = "Unknown";

  private VersionEvents() {}

  /**
   * The event of {@code next}, with {@code governed = true} and the anonymous actor; callers set those two.
   *
   * @param previous the version before, or null when there is none (or it is gone): everything counts as added
   * @param transactionUuid null or blank when the transaction is unknown
   * @param fallbackTime committed-at when the manifest has no timestamp
   */
  public static CommitEvent.Builder describe(TableRef table, TableState previous, TableState next,
      long readVersion, String operation, String transactionUuid, String manifestUri, Instant fallbackTime) {
    List<DataFragment> before = previous == null ? List.of() : previous.manifest().getFragmentsList();
    List<DataFragment> after = next.manifest().getFragmentsList();
    Set<Long> beforeIds = ids(before);
    Set<Long> afterIds = ids(after);
    List<DataFragment> added = after.stream().filter(f -> !beforeIds.contains(f.getId())).toList();
    long removedFragments = before.stream().filter(f -> !afterIds.contains(f.getId())).count();
    long rowsAdded = added.stream().mapToLong(VersionEvents::liveRows).sum();
    long rowsRemoved = Math.max(0, liveRows(before) + rowsAdded - liveRows(after));
    return CommitEvent.builder()
        .tableId(table.id())
        .tableUuid(table.tableUuid())
        .location(table.location())
        .version(next.version())
        .readVersion(readVersion)
        .operation(operation)
        .transactionUuid(transactionUuid == null || transactionUuid.isBlank() ? null : transactionUuid)
        .manifestPath(manifestUri)
        .fragmentsAdded(added.size())
        .fragmentsRemoved((int) removedFragments)
        .rowsAdded(rowsAdded)
        .rowsRemoved(rowsRemoved)
        .committedAt(committedAt(next.manifest(), fallbackTime))
        .branch(table.branch())
        .governed(true);
  }

  public static Instant committedAt(Manifest manifest, Instant fallbackTime) {
    return manifest.hasTimestamp()
        ? Instant.ofEpochSecond(manifest.getTimestamp().getSeconds(), manifest.getTimestamp().getNanos())
        : fallbackTime;
  }

  private static Set<Long> ids(List<DataFragment> fragments) {
    Set<Long> ids = new HashSet<>();
    for (DataFragment f : fragments) {
      ids.add(f.getId());
    }
    return ids;
  }

  private static long liveRows(List<DataFragment> fragments) {
    return fragments.stream().mapToLong(VersionEvents::liveRows).sum();
  }

  private static long liveRows(DataFragment f) {
    long deleted = f.hasDeletionFile() ? f.getDeletionFile().getNumDeletedRows() : 0;
    return Math.max(0, f.getPhysicalRows() - deleted);
  }
}
