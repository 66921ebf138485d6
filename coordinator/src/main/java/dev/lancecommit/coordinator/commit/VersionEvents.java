package dev.lancecommit.coordinator.commit;

import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.group.GroupMembers;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
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

  /**
   * Transaction property in which the coordinator records the atomic batch a version belongs to, so that every path
   * that writes a batch member (its coordinator, an owner rolling it forward, a new owner completing it) writes the
   * same transaction, and an event rebuilt from storage still names the batch.
   */
  public static final String BATCH_PROPERTY = "lance-commit-coordinator.batch";

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
    boolean sorted = (previous == null || previous.fragmentsSortedById()) && next.fragmentsSortedById();
    long[] diff = sorted ? mergeDiff(before, after) : setDiff(before, after);
    int added = (int) diff[0];
    long removedFragments = diff[1];
    long rowsAdded = diff[2];
    long rowsRemoved = diff[3];
    return CommitEvent.builder()
        .tableId(table.id())
        .tableUuid(table.tableUuid())
        .location(table.location())
        .version(next.version())
        .readVersion(readVersion)
        .operation(operation)
        .transactionUuid(transactionUuid == null || transactionUuid.isBlank() ? null : transactionUuid)
        .manifestPath(manifestUri)
        .fragmentsAdded(added)
        .fragmentsRemoved((int) removedFragments)
        .rowsAdded(rowsAdded)
        .rowsRemoved(rowsRemoved)
        .committedAt(committedAt(next.manifest(), fallbackTime))
        .branch(table.branch())
        .governed(true);
  }

  /**
   * The members of a version as far as storage tells them (an event rebuilt from storage, not the commit path): the
   * members a group commit recorded, or the transaction itself. A transaction of its own carries {@code actor} (null
   * when not known) and the ids {@code manifest} (its version's) gave the fragments it added. A group's members carry
   * what the group recorded of each ({@link GroupMemberDetails}: actor, trace id, read version, its share of the new
   * fragments); a group recorded without those details (by an older coordinator) gives its members the group's read
   * version and nothing more.
   */
  public static List<CommitEvent.Member> members(Transaction recorded, Manifest manifest, String actor) {
    if (recorded.getUuid().isEmpty()) {
      return List.of();
    }
    List<String> group = GroupMembers.of(recorded);
    if (group.isEmpty()) {
      return List.of(new CommitEvent.Member(recorded.getUuid(), recorded.getReadVersion(), actor, null,
          NewFragmentIds.in(manifest, recorded).of(recorded)));
    }
    Optional<List<GroupMemberDetails.Detail>> recordedDetails = GroupMemberDetails.of(recorded, group.size());
    if (recordedDetails.isEmpty()) {
      return group.stream().map(uuid -> new CommitEvent.Member(uuid, recorded.getReadVersion(), null, null)).toList();
    }
    List<GroupMemberDetails.Detail> details = recordedDetails.get();
    List<Long> ids = NewFragmentIds.in(manifest, recorded).of(recorded);
    boolean idsMatch = ids.size() == details.stream().mapToLong(GroupMemberDetails.Detail::newFragments).sum();
    List<CommitEvent.Member> members = new ArrayList<>(group.size());
    int from = 0;
    for (int i = 0; i < group.size(); i++) {
      GroupMemberDetails.Detail detail = details.get(i);
      int to = from + detail.newFragments();
      members.add(new CommitEvent.Member(group.get(i), detail.readVersion(), detail.actor(), detail.traceId(),
          idsMatch ? ids.subList(from, to) : List.of()));
      from = to;
    }
    return List.copyOf(members);
  }

  /** The batch {@code recorded} was committed in ({@link #BATCH_PROPERTY}), or null. */
  public static String batchOf(Transaction recorded) {
    String batchId = recorded.getTransactionPropertiesMap().get(BATCH_PROPERTY);
    return batchId == null || batchId.isBlank() ? null : batchId;
  }

  public static Instant committedAt(Manifest manifest, Instant fallbackTime) {
    return manifest.hasTimestamp()
        ? Instant.ofEpochSecond(manifest.getTimestamp().getSeconds(), manifest.getTimestamp().getNanos())
        : fallbackTime;
  }

  /**
   * Fragments added, fragments removed, rows added, rows removed, by walking both id-sorted lists once (manifests
   * keep fragments sorted by id): no set of every fragment id per event. A fragment carried over as it was (the same
   * message) is skipped without reading it, so the walk reads only what the version changed.
   */
  private static long[] mergeDiff(List<DataFragment> before, List<DataFragment> after) {
    long added = 0;
    long removed = 0;
    long rowsAdded = 0;
    long rowsRemoved = 0;
    DataFragment[] was = before.toArray(new DataFragment[0]);
    DataFragment[] is = after.toArray(new DataFragment[0]);
    int i = 0;
    int j = 0;
    while (i < was.length || j < is.length) {
      if (i < was.length && j < is.length && was[i] == is[j]) {
        i++; // carried over as it was: nothing to count
        j++;
        continue;
      }
      long b = i < was.length ? was[i].getId() : Long.MAX_VALUE;
      long a = j < is.length ? is[j].getId() : Long.MAX_VALUE;
      if (a == b) {
        rowsRemoved += liveRows(was[i++]) - liveRows(is[j++]);
      } else if (a < b) {
        added++;
        rowsAdded += liveRows(is[j++]);
      } else {
        removed++;
        rowsRemoved += liveRows(was[i++]);
      }
    }
    return new long[] {added, removed, rowsAdded, Math.max(0, rowsRemoved)};
  }

  private static long[] setDiff(List<DataFragment> before, List<DataFragment> after) {
    Set<Long> beforeIds = ids(before);
    Set<Long> afterIds = ids(after);
    List<DataFragment> added = after.stream().filter(f -> !beforeIds.contains(f.getId())).toList();
    long removed = before.stream().filter(f -> !afterIds.contains(f.getId())).count();
    long rowsAdded = added.stream().mapToLong(VersionEvents::liveRows).sum();
    long rowsRemoved = Math.max(0, liveRows(before) + rowsAdded - liveRows(after));
    return new long[] {added.size(), removed, rowsAdded, rowsRemoved};
  }

  private static Set<Long> ids(List<DataFragment> fragments) {
    Set<Long> ids = new HashSet<>();
    for (DataFragment f : fragments) {
      ids.add(f.getId());
    }
    return ids;
  }

  private static long liveRows(List<DataFragment> fragments) {
    long rows = 0;
    for (DataFragment fragment : fragments) {
      rows += liveRows(fragment);
    }
    return rows;
  }

  private static long liveRows(DataFragment f) {
    long deleted = f.hasDeletionFile() ? f.getDeletionFile().getNumDeletedRows() : 0;
    return Math.max(0, f.getPhysicalRows() - deleted);
  }
}
