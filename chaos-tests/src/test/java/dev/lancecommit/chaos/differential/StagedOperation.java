package dev.lancecommit.chaos.differential;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.lance.LanceTables;
import java.nio.file.Path;
import org.lance.Dataset;

/**
 * One operation instance as stock Lance produced it on a scratch copy of the base table: the raw bytes of the
 * {@code _transactions/*.txn} file Lance wrote for it (what a writer sends to CommitTable), and the scratch table,
 * from which {@link #readLanceTransaction} reads the same transaction as lance-core's Java object (what a writer hands
 * to Lance's own {@code CommitBuilder}).
 */
public record StagedOperation(LanceOperation operation, Slot slot, byte[] transactionBytes, Path scratch) {

  public Transaction parsed() {
    try {
      return Transaction.parseFrom(transactionBytes);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("Lance wrote an unreadable transaction for " + operation, e);
    }
  }

  /**
   * A fresh Java copy of the transaction. lance-core releases the schema of a schema-carrying operation when it
   * commits it, so each commit needs its own copy; the caller closes it.
   */
  public org.lance.Transaction readLanceTransaction() {
    try (LanceTables table = LanceTables.local(scratch);
        Dataset ds = table.open(BaseTable.READ_VERSION + 1)) {
      return ds.readTransaction().orElseThrow(() ->
          new IllegalStateException("stock Lance recorded no transaction for " + operation));
    }
  }

  @Override
  public String toString() {
    return operation + "/" + slot;
  }
}
