package dev.lancecommit.events.trigger;

import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Transaction;
import java.util.List;
import java.util.UUID;

/**
 * Builds the Lance {@link Transaction} protobufs the trigger commits through the coordinator, the way stock Lance
 * fills them (read_version, a fresh UUIDv4, the operation) plus one transaction property naming the maintenance.
 */
public final class Transactions {
  /** Transaction property recording which maintenance wrote a version (compaction or index-refresh). */
  public static final String MAINTENANCE_PROPERTY = "lancecommit.maintenance";

  private Transactions() {}

  /** One rewrite group: {@code oldFragments} (as committed) become {@code newFragments} (ids 0: assigned). */
  public static Transaction rewrite(long readVersion, List<DataFragment> oldFragments,
      List<DataFragment> newFragments) {
    if (oldFragments.isEmpty()) {
      throw new IllegalArgumentException("a rewrite needs at least one old fragment");
    }
    return base(readVersion, "compaction")
        .setRewrite(Transaction.Rewrite.newBuilder()
            .addGroups(Transaction.RewriteGroup.newBuilder()
                .addAllOldFragments(oldFragments)
                .addAllNewFragments(newFragments)))
        .build();
  }

  /** Adds {@code newIndices} and drops {@code removedIndices} (matched by uuid). */
  public static Transaction createIndex(long readVersion, List<IndexMetadata> newIndices,
      List<IndexMetadata> removedIndices) {
    if (newIndices.isEmpty()) {
      throw new IllegalArgumentException("a CreateIndex needs at least one new index");
    }
    return base(readVersion, "index-refresh")
        .setCreateIndex(Transaction.CreateIndex.newBuilder()
            .addAllNewIndices(newIndices)
            .addAllRemovedIndices(removedIndices))
        .build();
  }

  /** The same transaction with a new read version and a new uuid (a rebuild, not a resubmission). */
  public static Transaction rebased(Transaction txn, long readVersion) {
    return txn.toBuilder().setReadVersion(readVersion).setUuid(UUID.randomUUID().toString()).build();
  }

  private static Transaction.Builder base(long readVersion, String maintenance) {
    if (readVersion < 1) {
      throw new IllegalArgumentException("maintenance needs an existing table version, got " + readVersion);
    }
    return Transaction.newBuilder()
        .setReadVersion(readVersion)
        .setUuid(UUID.randomUUID().toString())
        .putTransactionProperties(MAINTENANCE_PROPERTY, maintenance);
  }
}
