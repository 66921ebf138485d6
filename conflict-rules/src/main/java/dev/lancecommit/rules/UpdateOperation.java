package dev.lancecommit.rules;

import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.MemWalIndexDetails;
import dev.lancecommit.format.pb.Transaction;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Update, in both modes. Removed fragments go, updated ones are replaced by id, new ones are appended with fresh
 * ids. Indices on modified fields stop covering the updated fragments. With stable row ids, new fragments get row
 * ids and version metadata, and in rewrite-rows mode the fragments holding only moved rows join the indices that
 * covered every source fragment (see {@link IndexRetention#registerMovedRows}). Finally indices are retained.
 *
 * <p>Two deliberate departures from Lance Nov-2025, both towards correctness: a new fragment counts as "moved rows
 * only" when the writer sent a row id for every row, judged before missing ids are filled (Lance judges after,
 * which would let an index claim freshly inserted rows); and a moved row's created-at version is looked up by its
 * stable row id in the source fragments (Lance decodes the row id as a row address, which it is not), while an
 * inserted row is created at this version.
 */
final class UpdateOperation {
  private UpdateOperation() {}

  static void apply(ManifestDraft draft, Transaction.Update update) {
    Set<Long> removed = new HashSet<>(update.getRemovedFragmentIdsList());
    Map<Long, DataFragment> updated = new HashMap<>();
    for (DataFragment fragment : update.getUpdatedFragmentsList()) {
      updated.putIfAbsent(fragment.getId(), fragment);
    }
    List<DataFragment> previous = draft.fragments();
    FragmentSplice.Spliced spliced = FragmentSplice.apply(previous, draft.fragmentsSortedById(), updated,
        removed, update.getNewFragmentsCount());
    ArrayList<DataFragment> fragments = spliced.fragments();

    List<Long> updatedIds = update.getUpdatedFragmentsList().stream().map(DataFragment::getId).toList();
    List<IndexMetadata> indices =
        IndexRetention.pruneUpdatedFields(draft.indices(), updatedIds, update.getFieldsModifiedList());

    List<DataFragment> added = draft.assignFragmentIds(update.getNewFragmentsList());
    if (draft.stableRowIds()) {
      List<Long> movedOnly = new ArrayList<>();
      for (DataFragment fragment : added) {
        if (RowIdAssigner.inlineRowIdCount(fragment) == fragment.getPhysicalRows()) {
          movedOnly.add(fragment.getId());
        }
      }
      List<DataFragment> withRowIds = draft.assignRowIds(added);
      added = stampVersions(added, withRowIds, sourceCreatedAt(previous, removed, updated.keySet()),
          draft.ctx().version());
      if (update.getUpdateMode() == Transaction.UpdateMode.REWRITE_ROWS) {
        Set<Long> sources = new LinkedHashSet<>(update.getRemovedFragmentIdsList());
        sources.addAll(updatedIds);
        indices = IndexRetention.registerMovedRows(
            indices, movedOnly, sources, update.getFieldsForPreservingFragBitmapList());
      }
    }
    fragments.addAll(added);
    draft.adoptFragments(fragments, spliced.edits());
    indices = IndexRetention.retainRelevant(indices, draft.schemaFieldIds(), draft::fragmentIds);

    indices = applyMemWal(draft, update, indices);
    draft.setIndices(indices);
  }

  /**
   * Field 5. Nov-2025 mem_wal_to_merge: the merged MemWAL is marked MERGED. 2026 compacted_sstables: the shards'
   * compacted generations advance, as with a 2026 UpdateMemWalState, in the same commit as the rows.
   */
  private static List<IndexMetadata> applyMemWal(ManifestDraft draft, Transaction.Update update,
      List<IndexMetadata> indices) {
    MemWalFormat.Reading reading = MemWalFormat.update(update);
    if (reading.shape() == MemWalFormat.Shape.EMPTY) {
      return indices;
    }
    return switch (MemWalIndex.generationOf(reading, indices, "Update with MemWAL entries")) {
      case NOV_2025 -> {
        MemWalIndexDetails.MemWal merged = MemWalIndex.singleMemWal(update.getMemWalToMergeOrCompactedSstablesList());
        yield MemWalIndex.update(indices, draft, List.of(),
            List.of(merged.toBuilder().setState(MemWalIndexDetails.MemWal.State.MERGED).build()), List.of(merged));
      }
      case LANCE_2026 -> MemWalIndex.recordCompacted(indices, draft, reading.sstables());
    };
  }

  /** Created-at version of every row of the source fragments, by stable row id. */
  private static Map<Long, Long> sourceCreatedAt(List<DataFragment> previous, Set<Long> removed, Set<Long> updated) {
    Map<Long, Long> createdAt = new HashMap<>();
    for (DataFragment fragment : previous) {
      if (!removed.contains(fragment.getId()) && !updated.contains(fragment.getId())) {
        continue;
      }
      long[] rowIds = RowIdAssigner.inlineRowIds(fragment);
      if (rowIds == null) {
        continue;
      }
      long[] versions = RowIdAssigner.inlineCreatedAt(fragment);
      for (int i = 0; i < rowIds.length; i++) {
        createdAt.put(rowIds[i], versions != null && i < versions.length ? versions[i] : 1L);
      }
    }
    return createdAt;
  }

  /**
   * Rows whose id the writer sent moved here and keep their created-at version (1 when unknown, as in Lance); rows
   * that got a fresh id are inserted now. Every row was last updated at this version.
   */
  private static List<DataFragment> stampVersions(List<DataFragment> asSent, List<DataFragment> withRowIds,
      Map<Long, Long> sourceCreatedAt, long version) {
    List<DataFragment> result = new ArrayList<>(withRowIds.size());
    for (int f = 0; f < withRowIds.size(); f++) {
      DataFragment fragment = RowIdAssigner.stampVersions(withRowIds.get(f), version, version);
      long rows = fragment.getPhysicalRows();
      long sentIds = Math.max(0, RowIdAssigner.inlineRowIdCount(asSent.get(f)));
      if (rows > 0 && sentIds > 0) {
        long[] rowIds = RowIdAssigner.inlineRowIds(fragment);
        long[] created = new long[rowIds.length];
        for (int i = 0; i < rowIds.length; i++) {
          created[i] = i < sentIds ? sourceCreatedAt.getOrDefault(rowIds[i], 1L) : version;
        }
        fragment = fragment.toBuilder()
            .setInlineCreatedAtVersions(RowIdAssigner.runsOf(created).toByteString()).build();
      }
      result.add(fragment);
    }
    return result;
  }
}
