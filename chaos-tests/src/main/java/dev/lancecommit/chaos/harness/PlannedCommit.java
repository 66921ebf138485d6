package dev.lancecommit.chaos.harness;

import dev.lancecommit.format.pb.Transaction;

/**
 * A transaction a writer built, what it does to the rows, and the table it is for.
 *
 * @param affectedRows for a Delete or Update, the row addresses it deleted or moved (a portable 64-bit Roaring map,
 *     as Lance's delete and update paths report them), sent along so the coordinator can rebase it over concurrent
 *     ones; null otherwise
 */
public record PlannedCommit(ChaosTable table, OperationType type, Transaction transaction, RowEffect effect,
    byte[] affectedRows) {

  public PlannedCommit(ChaosTable table, OperationType type, Transaction transaction, RowEffect effect) {
    this(table, type, transaction, effect, null);
  }

  public String uuid() {
    return transaction.getUuid();
  }
}
