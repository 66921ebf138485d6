package dev.lancecommit.client.lance;

import com.google.protobuf.ByteString;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.format.pb.UUID;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.roaringbitmap.RoaringBitmap;

/**
 * Builds Lance {@link Transaction} protobufs the way stock Lance writes them (same fields set, same defaults), each
 * with a fresh random UUIDv4. Checked against real {@code .txn} files by {@code LanceProtosTest}.
 */
public final class TransactionFactory {

  private TransactionFactory() {}

  public static String newUuid() {
    return java.util.UUID.randomUUID().toString();
  }

  public static Transaction append(long readVersion, List<DataFragment> fragments) {
    return base(readVersion)
        .setAppend(Transaction.Append.newBuilder().addAllFragments(fragments))
        .build();
  }

  /** Overwrite at {@code readVersion}; replaces schema and every fragment. */
  public static Transaction overwrite(long readVersion, List<Field> schema, List<DataFragment> fragments) {
    return base(readVersion)
        .setOverwrite(Transaction.Overwrite.newBuilder().addAllFragments(fragments).addAllSchema(schema))
        .build();
  }

  /** Creates a table: an Overwrite with {@code read_version = 0}. */
  public static Transaction create(List<Field> schema, List<DataFragment> fragments) {
    return overwrite(0, schema, fragments);
  }

  public static Transaction delete(long readVersion, List<DataFragment> updatedFragments,
      Collection<Long> deletedFragmentIds) {
    return delete(readVersion, updatedFragments, deletedFragmentIds, "");
  }

  public static Transaction delete(long readVersion, List<DataFragment> updatedFragments,
      Collection<Long> deletedFragmentIds, String predicate) {
    return base(readVersion)
        .setDelete(Transaction.Delete.newBuilder()
            .addAllUpdatedFragments(updatedFragments)
            .addAllDeletedFragmentIds(deletedFragmentIds)
            .setPredicate(predicate))
        .build();
  }

  public static Transaction reserve(long readVersion, int numFragments) {
    return base(readVersion)
        .setReserveFragments(Transaction.ReserveFragments.newBuilder().setNumFragments(numFragments))
        .build();
  }

  /** One rewrite group: {@code oldFragments} (as committed, with their ids) become {@code newFragments}. */
  public static Transaction rewrite(long readVersion, List<DataFragment> oldFragments,
      List<DataFragment> newFragments) {
    return base(readVersion)
        .setRewrite(Transaction.Rewrite.newBuilder()
            .addGroups(Transaction.RewriteGroup.newBuilder()
                .addAllOldFragments(oldFragments)
                .addAllNewFragments(newFragments)))
        .build();
  }

  /** A Rewrite of several groups (e.g. one per compaction task), applied in order. */
  public static Transaction rewrite(long readVersion, List<Transaction.RewriteGroup> groups) {
    return base(readVersion)
        .setRewrite(Transaction.Rewrite.newBuilder().addAllGroups(groups))
        .build();
  }

  public static Transaction createIndex(long readVersion, List<IndexMetadata> newIndices,
      List<IndexMetadata> removedIndices) {
    return base(readVersion)
        .setCreateIndex(Transaction.CreateIndex.newBuilder()
            .addAllNewIndices(newIndices)
            .addAllRemovedIndices(removedIndices))
        .build();
  }

  /**
   * New-style UpdateConfig on the table config: {@code upserts} set keys, {@code deletes} remove keys; the rest of
   * the config is kept ({@code replace = false}).
   */
  public static Transaction updateConfig(long readVersion, Map<String, String> upserts,
      Collection<String> deletes) {
    Transaction.UpdateMap.Builder map = Transaction.UpdateMap.newBuilder();
    for (Map.Entry<String, String> e : new TreeMap<>(upserts).entrySet()) {
      map.addUpdateEntries(Transaction.UpdateMapEntry.newBuilder().setKey(e.getKey()).setValue(e.getValue()));
    }
    for (String key : deletes) {
      map.addUpdateEntries(Transaction.UpdateMapEntry.newBuilder().setKey(key));
    }
    return base(readVersion)
        .setUpdateConfig(Transaction.UpdateConfig.newBuilder().setConfigUpdates(map))
        .build();
  }

  /** The same transaction under another uuid (a different transaction to the coordinator). */
  public static Transaction withNewUuid(Transaction transaction) {
    return transaction.toBuilder().setUuid(newUuid()).build();
  }

  /** The same transaction rebuilt on another read version, with a new uuid (a writer's retry). */
  public static Transaction rebased(Transaction transaction, long readVersion) {
    return transaction.toBuilder().setReadVersion(readVersion).setUuid(newUuid()).build();
  }

  /** A fragment with its id set, e.g. to name an existing fragment in a Delete or Rewrite. */
  public static DataFragment withId(DataFragment fragment, long id) {
    return fragment.toBuilder().setId(id).build();
  }

  /** Portable 32-bit Roaring bitmap, as in {@code IndexMetadata.fragment_bitmap}. */
  public static ByteString fragmentBitmap(Collection<Integer> fragmentIds) {
    RoaringBitmap bitmap = new RoaringBitmap();
    for (int id : fragmentIds) {
      bitmap.add(id);
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      bitmap.serialize(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ByteString.copyFrom(bytes.toByteArray());
  }

  public static UUID uuid(java.util.UUID uuid) {
    ByteBuffer buf = ByteBuffer.allocate(16);
    buf.putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits());
    return UUID.newBuilder().setUuid(ByteString.copyFrom(buf.array())).build();
  }

  private static Transaction.Builder base(long readVersion) {
    return Transaction.newBuilder().setReadVersion(readVersion).setUuid(newUuid());
  }
}
