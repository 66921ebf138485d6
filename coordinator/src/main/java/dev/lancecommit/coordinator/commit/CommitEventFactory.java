package dev.lancecommit.coordinator.commit;

import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.TraceContext;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.OperationKind;
import java.time.Instant;
import java.util.List;
import java.util.stream.Collectors;

/** Describes a version this lane committed as a commit event; the computation is shared with the reconciler. */
final class CommitEventFactory {
  private CommitEventFactory() {}

  /**
   * The event of a version recording {@code recorded}, which commits {@code members} (one for a version of its own;
   * the event's actor then is that member's, for a group the members' distinct actors joined with ", "), carrying
   * {@code trace} (a group's first member's).
   */
  static CommitEvent committed(TableRef table, TableState previous, TableState next, Transaction recorded,
      OperationKind kind, String manifestUri, List<CommitEvent.Member> members, TraceContext trace, Instant now) {
    String actor = members.stream().map(CommitEvent.Member::actor).distinct().collect(Collectors.joining(", "));
    return VersionEvents.describe(table, previous, next, recorded.getReadVersion(), kind.lanceName(),
            recorded.getUuid(), manifestUri, now)
        .actor(actor)
        .trace(trace)
        .members(members)
        .governed(true)
        .build();
  }
}
