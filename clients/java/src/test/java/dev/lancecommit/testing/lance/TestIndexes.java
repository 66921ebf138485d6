package dev.lancecommit.testing.lance;

import com.google.protobuf.Any;
import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.format.pb.IndexMetadata;
import java.util.Collection;
import java.util.List;

/** Index metadata for tests that only need the manifest's view of an index. */
public final class TestIndexes {

  private TestIndexes() {}

  /**
   * A scalar (BTree) index segment on {@code fieldIds} covering {@code fragmentIds}, built at
   * {@code datasetVersion}, with a fresh uuid. Only metadata: no index files are written.
   */
  public static IndexMetadata btreeIndex(String name, List<Integer> fieldIds, long datasetVersion,
      Collection<Integer> fragmentIds) {
    return IndexMetadata.newBuilder()
        .setUuid(TransactionFactory.uuid(java.util.UUID.randomUUID()))
        .addAllFields(fieldIds)
        .setName(name)
        .setDatasetVersion(datasetVersion)
        .setFragmentBitmap(TransactionFactory.fragmentBitmap(fragmentIds))
        .setIndexDetails(Any.newBuilder().setTypeUrl("/lance.table.BTreeIndexDetails"))
        .setIndexVersion(0)
        .build();
  }
}
