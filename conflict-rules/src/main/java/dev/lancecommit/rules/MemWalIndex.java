package dev.lancecommit.rules;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.lancecommit.format.pb.CompactedSsTable;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.MemWalIndexDetails;
import dev.lancecommit.format.pb.ShardedMemWalIndexDetails;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * The MemWAL system index ({@code __lance_mem_wal}) in both generations: Nov-2025 details list the MemWALs
 * ({@link #update}); 2026 details record, per shard, the latest SSTable generation compacted into the base table
 * ({@link #recordCompacted}). Which generation a transaction is in is decided by {@link MemWalFormat} and, when its
 * bytes fit both, by the table's own MemWAL index ({@link #generationOf}); what stays ambiguous is refused.
 */
final class MemWalIndex {
  static final String DETAILS_TYPE_URL = "/lance.table.MemWalIndexDetails";

  private MemWalIndex() {}

  /** Decodes MemWal messages carried as raw bytes; anything that does not look like one is unsupported. */
  static List<MemWalIndexDetails.MemWal> decode(List<ByteString> raw, String what) {
    List<MemWalIndexDetails.MemWal> decoded = new ArrayList<>();
    for (ByteString bytes : raw) {
      MemWalIndexDetails.MemWal memWal;
      try {
        memWal = MemWalIndexDetails.MemWal.parseFrom(bytes);
      } catch (InvalidProtocolBufferException e) {
        throw new UnsupportedOperationTypeException(what + " (not in the Nov-2025 MemWAL format)");
      }
      if (!memWal.getUnknownFields().asMap().isEmpty() || !memWal.hasId()
          || !memWal.getId().getUnknownFields().asMap().isEmpty() || memWal.getId().getRegion().isEmpty()) {
        throw new UnsupportedOperationTypeException(what + " (not in the Nov-2025 MemWAL format)");
      }
      decoded.add(memWal);
    }
    return decoded;
  }

  /**
   * The generation a transaction's MemWAL reading is in. A reading that fits both generations (or has no entries)
   * takes the generation of the table's MemWAL index; with no index, or an index that fits both, it is refused.
   */
  static MemWalFormat.Generation generationOf(MemWalFormat.Reading reading, List<IndexMetadata> indices, String what) {
    switch (reading.shape()) {
      case NOV_2025:
        return MemWalFormat.Generation.NOV_2025;
      case LANCE_2026:
        return MemWalFormat.Generation.LANCE_2026;
      case NEITHER:
        throw new UnsupportedOperationTypeException(what + " (" + reading.problem() + ")");
      default:
        break;
    }
    IndexMetadata current = find(indices);
    MemWalFormat.Shape table = current == null ? null : MemWalFormat.indexDetails(current).shape();
    if (table == MemWalFormat.Shape.NOV_2025) {
      return MemWalFormat.Generation.NOV_2025;
    }
    if (table == MemWalFormat.Shape.LANCE_2026) {
      return MemWalFormat.Generation.LANCE_2026;
    }
    String entries = reading.shape() == MemWalFormat.Shape.EMPTY ? "has no MemWAL entries"
        : "has entries that read as both Nov-2025 MemWals and 2026 CompactedSsTables";
    throw new UnsupportedOperationTypeException(what + " that " + entries + " on a table whose MemWAL index "
        + (current == null ? "does not exist" : "is empty or unreadable")
        + ": the MemWAL generation is ambiguous (Nov-2025 and 2026 Lance would build different manifests)");
  }

  private static IndexMetadata find(List<IndexMetadata> indices) {
    for (IndexMetadata index : indices) {
      if (IndexRetention.MEM_WAL_INDEX_NAME.equals(index.getName())) {
        return index;
      }
    }
    return null;
  }

  /**
   * Lance 2026's {@code update_mem_wal_index_compacted_sstables} (final 2026 form): each shard may advance once per
   * transaction and only forwards (a proposed generation not above the recorded one fails the whole transaction);
   * the table must have a MemWAL index; the index is replaced in place under a new uuid (derived from the
   * transaction, so building is repeatable) stamped with the new version. Every other details field, unknown ones
   * included, is carried through. No entries: nothing changes.
   */
  static List<IndexMetadata> recordCompacted(List<IndexMetadata> indices, ManifestDraft draft,
      List<CompactedSsTable> compacted) {
    if (compacted.isEmpty()) {
      return indices;
    }
    Set<ByteString> shards = new HashSet<>();
    for (CompactedSsTable sstable : compacted) {
      if (!shards.add(sstable.getShardId().getUuid())) {
        throw new InvalidTransactionException("Duplicate shard " + MemWalFormat.shardId(sstable)
            + " in one SSTable compaction update; each shard may advance at most once per transaction");
      }
    }
    int position = -1;
    for (int i = 0; i < indices.size() && position < 0; i++) {
      if (IndexRetention.MEM_WAL_INDEX_NAME.equals(indices.get(i).getName())) {
        position = i;
      }
    }
    if (position < 0) {
      throw new InvalidTransactionException("Cannot record SSTable compaction progress: the "
          + IndexRetention.MEM_WAL_INDEX_NAME + " system index does not exist on this table");
    }
    ShardedMemWalIndexDetails.Builder details =
        MemWalFormat.lanceDetailsOf(indices.get(position).getIndexDetails()).toBuilder();
    for (CompactedSsTable proposed : compacted) {
      boolean found = false;
      for (int i = 0; i < details.getCompactedSstablesCount(); i++) {
        CompactedSsTable recorded = details.getCompactedSstables(i);
        if (recorded.getShardId().getUuid().equals(proposed.getShardId().getUuid())) {
          if (proposed.getGeneration() <= recorded.getGeneration()) {
            throw new InvalidTransactionException("Stale SSTable compaction for shard "
                + MemWalFormat.shardId(proposed) + ": proposed generation " + proposed.getGeneration()
                + " is not greater than the recorded generation " + recorded.getGeneration());
          }
          details.setCompactedSstables(i, recorded.toBuilder().setGeneration(proposed.getGeneration()));
          found = true;
        }
      }
      if (!found) {
        details.addCompactedSstables(proposed);
      }
    }
    long newVersion = draft.ctx().version();
    List<IndexMetadata> result = new ArrayList<>(indices);
    result.set(position, indexEntry(draft, newVersion, details.build().toByteString()));
    return result;
  }

  private static IndexMetadata indexEntry(ManifestDraft draft, long datasetVersion, ByteString details) {
    long newVersion = draft.ctx().version();
    UUID uuid = UUID.nameUUIDFromBytes(
        (draft.txn().getUuid() + "/" + IndexRetention.MEM_WAL_INDEX_NAME + "/" + newVersion)
            .getBytes(StandardCharsets.UTF_8));
    return IndexMetadata.newBuilder()
        .setUuid(dev.lancecommit.format.pb.UUID.newBuilder().setUuid(Uuids.toBytes(uuid)))
        .setName(IndexRetention.MEM_WAL_INDEX_NAME)
        .setDatasetVersion(datasetVersion)
        .setIndexDetails(Any.newBuilder().setTypeUrl(DETAILS_TYPE_URL).setValue(details))
        .setIndexVersion(0)
        .setCreatedAt(draft.ctx().timestamp().toEpochMilli())
        .build();
  }

  static MemWalIndexDetails.MemWal singleMemWal(List<ByteString> raw) {
    if (raw.size() != 1) {
      throw new UnsupportedOperationTypeException("Update merging " + raw.size() + " MemWAL entries");
    }
    return decode(raw, "Update with mem_wal_to_merge").get(0);
  }

  /**
   * Lance's {@code update_mem_wal_index_in_indices_list}: the MemWAL index is rebuilt with the removed entries gone
   * (matched by id) and the added and updated ones appended, stamped with the new version; it moves to the end of
   * the index list under a new uuid (derived from the transaction, so that building is repeatable).
   */
  static List<IndexMetadata> update(List<IndexMetadata> indices, ManifestDraft draft,
      List<MemWalIndexDetails.MemWal> added, List<MemWalIndexDetails.MemWal> updated,
      List<MemWalIndexDetails.MemWal> removed) {
    List<IndexMetadata> result = new ArrayList<>();
    IndexMetadata current = null;
    for (IndexMetadata index : indices) {
      if (current == null && IndexRetention.MEM_WAL_INDEX_NAME.equals(index.getName())) {
        current = index;
      } else {
        result.add(index);
      }
    }
    List<MemWalIndexDetails.MemWal> list = new ArrayList<>();
    if (current != null) {
      Set<MemWalIndexDetails.MemWalId> removedIds = new HashSet<>();
      removed.forEach(m -> removedIds.add(m.getId()));
      for (MemWalIndexDetails.MemWal memWal : details(current).getMemWalListList()) {
        if (!removedIds.contains(memWal.getId())) {
          list.add(memWal);
        }
      }
    } else if (!updated.isEmpty() || !removed.isEmpty()) {
      throw new InvalidTransactionException("Cannot update MemWAL state without a MemWAL index");
    }
    long newVersion = draft.ctx().version();
    added.forEach(m -> list.add(m.toBuilder().setLastUpdatedDatasetVersion(newVersion).build()));
    updated.forEach(m -> list.add(m.toBuilder().setLastUpdatedDatasetVersion(newVersion).build()));

    MemWalIndexDetails details = MemWalIndexDetails.newBuilder().addAllMemWalList(list).build();
    result.add(indexEntry(draft, draft.txn().getReadVersion(), details.toByteString()));
    return result;
  }

  private static MemWalIndexDetails details(IndexMetadata index) {
    if (!index.hasIndexDetails() || !index.getIndexDetails().getTypeUrl().endsWith("MemWalIndexDetails")) {
      throw new InvalidTransactionException("The table's MemWAL index has no MemWalIndexDetails");
    }
    try {
      MemWalIndexDetails details = MemWalIndexDetails.parseFrom(index.getIndexDetails().getValue());
      if (!details.getUnknownFields().asMap().isEmpty()) {
        throw new UnsupportedOperationTypeException("a Nov-2025 MemWAL update on a table whose MemWAL index is not"
            + " Nov-2025");
      }
      return details;
    } catch (InvalidProtocolBufferException e) {
      throw new UnsupportedOperationTypeException("a Nov-2025 MemWAL update on a table whose MemWAL index is not"
          + " Nov-2025");
    }
  }
}
