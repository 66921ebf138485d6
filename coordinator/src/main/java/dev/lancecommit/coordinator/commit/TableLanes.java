package dev.lancecommit.coordinator.commit;

import dev.lancecommit.coordinator.table.TableRef;
import java.util.concurrent.CompletableFuture;

/**
 * Holds tables' commit lanes for work that spans tables: an atomic batch checks each member under its table's lane
 * and writes the members only once all passed ({@link HeldLane}).
 *
 * <p>On a single coordinator every lane is a local object ({@link LaneCommitService}). In cluster mode the receiving
 * instance coordinates a batch through this same interface, the holds of tables other instances own going to their
 * owners (check and apply are then calls to the owner; release is idempotent so a lost answer can be repeated).
 */
public interface TableLanes {

  /**
   * Takes a turn on the table's lane: completes once every commit queued before is done; until the hold is released
   * nothing queued after it is applied. Fails with {@link CommitThrottledException} when the lane's queue is full.
   */
  CompletableFuture<HeldLane> hold(TableRef table);

  /**
   * {@link #hold}, for the atomic batch {@code batchId}. A hold on another instance keeps the id: if the holder stops
   * renewing it, the owner fences the batch at its record's key, or completes its member when the batch is recorded.
   */
  default CompletableFuture<HeldLane> hold(TableRef table, String batchId) {
    return hold(table);
  }

  /**
   * True when every one of these tables is owned here now, so that holding their lanes takes no lane on another
   * instance (a single coordinator: always). A batch for which this is false announces itself durably before its first
   * hold ({@code batch.BatchIntent}).
   */
  default boolean ownedHere(java.util.Collection<TableRef> tables) {
    return true;
  }
}
