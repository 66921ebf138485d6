package dev.lancecommit.rules.conflict;

import dev.lancecommit.format.pb.Transaction;
import java.util.Objects;

/** A transaction as committed: the table version it created and the transaction itself. */
public record CommittedTransaction(long version, Transaction txn) {
  public CommittedTransaction {
    Objects.requireNonNull(txn, "txn");
    if (version < 1) {
      throw new IllegalArgumentException("A committed version is at least 1, got " + version);
    }
  }
}
