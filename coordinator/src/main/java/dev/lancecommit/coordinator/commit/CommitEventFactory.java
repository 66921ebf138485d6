package dev.lancecommit.coordinator.commit;

import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.OperationKind;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Describes a landed version as a commit event: what it added and removed relative to the version before. */
final class CommitEventFactory {
  private CommitEventFactory() {}

  static CommitEvent committed(TableRef table, TableState previous, TableState next, Transaction txn,
      OperationKind kind, String manifestUri, String actor, Instant now) {
    List<DataFragment> before = previous == null ? List.of() : previous.manifest().getFragmentsList();
    List<DataFragment> after = next.manifest().getFragmentsList();
    Set<Long> beforeIds = ids(before);
    Set<Long> afterIds = ids(after);
    List<DataFragment> added = after.stream().filter(f -> !beforeIds.contains(f.getId())).toList();
    long removedFragments = before.stream().filter(f -> !afterIds.contains(f.getId())).count();
    long rowsAdded = added.stream().mapToLong(CommitEventFactory::liveRows).sum();
    long rowsRemoved = Math.max(0, liveRows(before) + rowsAdded - liveRows(after));
    return CommitEvent.builder()
        .tableId(table.id())
        .tableUuid(table.tableUuid())
        .location(table.location())
        .version(next.version())
        .readVersion(txn.getReadVersion())
        .operation(kind.lanceName())
        .transactionUuid(txn.getUuid())
        .manifestPath(manifestUri)
        .fragmentsAdded(added.size())
        .fragmentsRemoved((int) removedFragments)
        .rowsAdded(rowsAdded)
        .rowsRemoved(rowsRemoved)
        .committedAt(next.manifest().hasTimestamp()
            ? Instant.ofEpochSecond(next.manifest().getTimestamp().getSeconds(), next.manifest().getTimestamp().getNanos())
            : now)
        .actor(actor == null || actor.isBlank() ? CommitEvent.ANONYMOUS : actor)
        .governed(true)
        .build();
  }

  private static Set<Long> ids(List<DataFragment> fragments) {
    Set<Long> ids = new HashSet<>();
    for (DataFragment f : fragments) {
      ids.add(f.getId());
    }
    return ids;
  }

  private static long liveRows(List<DataFragment> fragments) {
    return fragments.stream().mapToLong(CommitEventFactory::liveRows).sum();
  }

  private static long liveRows(DataFragment f) {
    long deleted = f.hasDeletionFile() ? f.getDeletionFile().getNumDeletedRows() : 0;
    return Math.max(0, f.getPhysicalRows() - deleted);
  }
}
