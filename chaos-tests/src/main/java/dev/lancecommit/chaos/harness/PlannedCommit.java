package dev.lancecommit.chaos.harness;

import dev.lancecommit.format.pb.Transaction;

/** A transaction a writer built, what it does to the rows, and the table it is for. */
public record PlannedCommit(ChaosTable table, OperationType type, Transaction transaction, RowEffect effect) {
  public String uuid() {
    return transaction.getUuid();
  }
}
