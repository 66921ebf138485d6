package dev.lancecommit.coordinator.commit;

import dev.lancecommit.coordinator.table.CommitOutcome;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.OperationKind;
import dev.lancecommit.rules.conflict.CommitConflictException;
import java.util.ArrayList;
import java.util.List;

/** A local lane held ({@link CommitLane#hold}): check and apply run on the holder's thread while the lane waits. */
final class LaneHold implements HeldLane {
  private final CommitLane lane;
  private final TableRef table;
  private final List<CommitEvent> kept = new ArrayList<>();
  private boolean released;

  LaneHold(CommitLane lane, TableRef table) {
    this.lane = lane;
    this.table = table;
  }

  @Override
  public TableRef table() {
    return table;
  }

  @Override
  public synchronized CheckedCommit check(CommitRequest request) {
    requireHeld();
    lane.checkPermit(table); // cluster mode: a batch member is checked only where its table is owned
    Transaction txn = TransactionDecoding.decode(request.transaction());
    OperationKind kind = OperationKind.of(txn);
    if (kind == OperationKind.CLONE) {
      throw new InvalidCommitRequestException("A Clone cannot be part of a batch",
          "A Clone creates its table at the source's version; commit it on its own");
    }
    return new CheckedCommit(lane.build(request, txn, kind, CommitObserver.NoObservation.INSTANCE), txn,
        request.actor());
  }

  @Override
  public synchronized CommitResult apply(CheckedCommit checked, String batchId) {
    requireHeld();
    Transaction txn = checked.transaction();
    OperationKind kind = OperationKind.of(txn);
    if (checked.built() instanceof Built.AlreadyCommitted already) {
      kept.add(lane.eventOfLanded(table, already.version(), kind, checked.actor(), already.current()).toBuilder()
          .batchId(batchId).build());
      return lane.resultOfLanded(txn, kind, already.version(), already.current());
    }
    Built.Ready ready = (Built.Ready) checked.built();
    if (lane.write(ready) instanceof CommitOutcome.Taken) {
      throw new CommitConflictException(true, ready.version(), "unknown", "bypass",
          "Version " + ready.version() + " of " + table.joinedId() + " was taken by a writer that bypassed the "
              + "coordinator while the table's lane was held");
    }
    CommitResult result = lane.result(ready);
    kept.add(lane.event(ready, table, checked.actor(), result).toBuilder().batchId(batchId).build());
    return result;
  }

  @Override
  public synchronized void release(boolean handOverEvents) {
    if (released) {
      return;
    }
    released = true;
    if (handOverEvents) {
      kept.forEach(lane::handOver);
    }
    kept.clear();
    lane.release();
  }

  private void requireHeld() {
    if (released) {
      throw new IllegalStateException("The lane of " + table.joinedId() + " was released");
    }
  }
}
