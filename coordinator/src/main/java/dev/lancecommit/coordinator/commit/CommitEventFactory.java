package dev.lancecommit.coordinator.commit;

import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.OperationKind;
import java.time.Instant;

/** Describes a version this lane committed as a commit event; the computation is shared with the reconciler. */
final class CommitEventFactory {
  private CommitEventFactory() {}

  static CommitEvent committed(TableRef table, TableState previous, TableState next, Transaction txn,
      OperationKind kind, String manifestUri, String actor, Instant now) {
    return VersionEvents.describe(table, previous, next, txn.getReadVersion(), kind.lanceName(), txn.getUuid(),
            manifestUri, now)
        .actor(actor)
        .governed(true)
        .build();
  }
}
