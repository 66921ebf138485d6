package dev.lancecommit.rules;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.MemWalIndexDetails;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * The MemWAL system index as Lance Nov-2025 keeps it: one {@code __lance_mem_wal} index whose details list the
 * MemWALs. 2026 Lance redesigned MemWAL (shards, compacted SSTables) and reuses the same protobuf field numbers
 * with other types; whatever does not decode cleanly as the Nov-2025 messages is refused as unsupported rather
 * than guessed at.
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
    UUID uuid = UUID.nameUUIDFromBytes(
        (draft.txn().getUuid() + "/" + IndexRetention.MEM_WAL_INDEX_NAME + "/" + newVersion)
            .getBytes(StandardCharsets.UTF_8));
    result.add(IndexMetadata.newBuilder()
        .setUuid(dev.lancecommit.format.pb.UUID.newBuilder().setUuid(Uuids.toBytes(uuid)))
        .setName(IndexRetention.MEM_WAL_INDEX_NAME)
        .setDatasetVersion(draft.txn().getReadVersion())
        .setIndexDetails(Any.newBuilder().setTypeUrl(DETAILS_TYPE_URL).setValue(details.toByteString()))
        .setIndexVersion(0)
        .setCreatedAt(draft.ctx().timestamp().toEpochMilli())
        .build());
    return result;
  }

  private static MemWalIndexDetails details(IndexMetadata index) {
    if (!index.hasIndexDetails() || !index.getIndexDetails().getTypeUrl().endsWith("MemWalIndexDetails")) {
      throw new InvalidTransactionException("The table's MemWAL index has no MemWalIndexDetails");
    }
    try {
      MemWalIndexDetails details = MemWalIndexDetails.parseFrom(index.getIndexDetails().getValue());
      if (!details.getUnknownFields().asMap().isEmpty()) {
        throw new UnsupportedOperationTypeException("UpdateMemWalState on a table with a 2026 MemWAL index");
      }
      return details;
    } catch (InvalidProtocolBufferException e) {
      throw new UnsupportedOperationTypeException("UpdateMemWalState on a table with a 2026 MemWAL index");
    }
  }
}
