package dev.lancecommit.testing;

import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.Transaction;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Small hand-built transactions for commit-path tests: one int64 column, one 10-row fragment per commit in a data
 * file that is never read, each file name unique.
 */
public final class HandMadeTransactions {
  private final AtomicInteger files = new AtomicInteger();

  public Transaction create() {
    return Transaction.newBuilder()
        .setReadVersion(0)
        .setUuid(UUID.randomUUID().toString())
        .setOverwrite(Transaction.Overwrite.newBuilder()
            .addSchema(Field.newBuilder().setName("id").setId(0).setParentId(-1).setLogicalType("int64")
                .setNullable(true))
            .addFragments(fragment()))
        .build();
  }

  public Transaction append(long readVersion) {
    return Transaction.newBuilder()
        .setReadVersion(readVersion)
        .setUuid(UUID.randomUUID().toString())
        .setAppend(Transaction.Append.newBuilder().addFragments(fragment()))
        .build();
  }

  public DataFragment fragment() {
    return DataFragment.newBuilder()
        .setId(0)
        .setPhysicalRows(10)
        .addFiles(DataFile.newBuilder().setPath("f" + files.incrementAndGet() + ".lance").addFields(0)
            .addColumnIndices(0).setFileMajorVersion(2).setFileMinorVersion(1).setFileSizeBytes(100))
        .build();
  }
}
