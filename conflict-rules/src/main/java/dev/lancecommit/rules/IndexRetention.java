package dev.lancecommit.rules;

import com.google.protobuf.ByteString;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Transaction;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.roaringbitmap.RoaringBitmap;

/**
 * How a transaction changes the index list it carries forward: which index segments survive, and how their
 * fragment bitmaps follow fragments that are rewritten or updated. Pure functions over protobuf values.
 */
public final class IndexRetention {
  public static final String FRAG_REUSE_INDEX_NAME = "__lance_frag_reuse";
  public static final String MEM_WAL_INDEX_NAME = "__lance_mem_wal";

  private IndexRetention() {}

  /** System indices (fragment reuse, MemWAL) index no column and survive schema changes. */
  public static boolean isSystemIndex(IndexMetadata index) {
    return FRAG_REUSE_INDEX_NAME.equals(index.getName()) || MEM_WAL_INDEX_NAME.equals(index.getName());
  }

  public static boolean isVectorIndex(IndexMetadata index) {
    return index.hasIndexDetails() && index.getIndexDetails().getTypeUrl().endsWith("VectorIndexDetails");
  }

  /**
   * Lance's {@code retain_relevant_indices}: drops indices on fields no longer in the schema (system indices
   * excepted), then, per index name, keeps the segments whose bitmap still covers an existing fragment; when none
   * does, keeps only the oldest segment unless it is a vector index; a lone segment is kept unless it is an empty
   * vector index. The fragment reuse index is always kept. Bitmaps themselves are not shrunk. The table's fragment
   * ids are asked for only when an index segment's bitmap must be checked against them: a table without indices
   * (most Updates and Deletes) pays nothing per fragment here.
   */
  public static List<IndexMetadata> retainRelevant(
      List<IndexMetadata> indices, Set<Integer> schemaFieldIds, Supplier<? extends Collection<Long>> fragmentIds) {
    List<IndexMetadata> onLiveFields = new ArrayList<>();
    for (IndexMetadata index : indices) {
      if (isSystemIndex(index) || schemaFieldIds.containsAll(index.getFieldsList())) {
        onLiveFields.add(index);
      }
    }
    Map<String, List<IndexMetadata>> byName = new LinkedHashMap<>();
    for (IndexMetadata index : onLiveFields) {
      if (!FRAG_REUSE_INDEX_NAME.equals(index.getName())) {
        byName.computeIfAbsent(index.getName(), n -> new ArrayList<>()).add(index);
      }
    }
    RoaringBitmap existing = new RoaringBitmap();
    if (!byName.isEmpty()) {
      fragmentIds.get().forEach(id -> existing.add(FragmentBitmaps.toBitmapId(id)));
    }
    Set<ByteString> keep = new HashSet<>();
    for (List<IndexMetadata> segments : byName.values()) {
      List<IndexMetadata> empty = new ArrayList<>();
      List<IndexMetadata> nonEmpty = new ArrayList<>();
      for (IndexMetadata segment : segments) {
        (coversNothing(segment, existing) ? empty : nonEmpty).add(segment);
      }
      if (segments.size() == 1) {
        IndexMetadata only = segments.get(0);
        if (!nonEmpty.isEmpty() || !isVectorIndex(only)) {
          keep.add(uuidOf(only));
        }
      } else if (!nonEmpty.isEmpty()) {
        nonEmpty.forEach(segment -> keep.add(uuidOf(segment)));
      } else {
        IndexMetadata oldest = empty.stream()
            .min(Comparator.comparingLong(IndexMetadata::getDatasetVersion))
            .orElseThrow();
        if (!isVectorIndex(oldest)) {
          keep.add(uuidOf(oldest));
        }
      }
    }
    List<IndexMetadata> result = new ArrayList<>();
    for (IndexMetadata index : onLiveFields) {
      if (FRAG_REUSE_INDEX_NAME.equals(index.getName()) || keep.contains(uuidOf(index))) {
        result.add(index);
      }
    }
    return result;
  }

  private static boolean coversNothing(IndexMetadata index, RoaringBitmap existing) {
    RoaringBitmap bitmap = FragmentBitmaps.decode(index.getFragmentBitmap());
    return bitmap == null || !RoaringBitmap.intersects(bitmap, existing);
  }

  /**
   * CreateIndex: drops existing segments that share a name with a new index or whose uuid is named in
   * removed_indices, then appends the new indices.
   */
  public static List<IndexMetadata> createIndex(
      List<IndexMetadata> indices, List<IndexMetadata> newIndices, List<IndexMetadata> removedIndices) {
    Set<String> newNames = new HashSet<>();
    newIndices.forEach(index -> newNames.add(index.getName()));
    Set<ByteString> removed = new HashSet<>();
    removedIndices.forEach(index -> removed.add(uuidOf(index)));
    List<IndexMetadata> result = new ArrayList<>();
    for (IndexMetadata index : indices) {
      if (!newNames.contains(index.getName()) && !removed.contains(uuidOf(index))) {
        result.add(index);
      }
    }
    result.addAll(newIndices);
    return result;
  }

  /**
   * Update: an index on any of the modified fields no longer covers the updated fragments, so they leave its
   * bitmap.
   */
  public static List<IndexMetadata> pruneUpdatedFields(
      List<IndexMetadata> indices, Collection<Long> updatedFragmentIds, Collection<Integer> fieldsModified) {
    if (fieldsModified.isEmpty()) {
      return indices;
    }
    Set<Integer> modified = new HashSet<>(fieldsModified);
    List<IndexMetadata> result = new ArrayList<>();
    for (IndexMetadata index : indices) {
      RoaringBitmap bitmap = FragmentBitmaps.decode(index.getFragmentBitmap());
      if (bitmap != null && index.getFieldsList().stream().anyMatch(modified::contains)) {
        updatedFragmentIds.forEach(id -> bitmap.remove(FragmentBitmaps.toBitmapId(id)));
        index = index.toBuilder().setFragmentBitmap(FragmentBitmaps.encode(bitmap)).build();
      }
      result.add(index);
    }
    return result;
  }

  /**
   * Update in rewrite-rows mode with stable row ids: rows that only moved keep their row ids, so an index that
   * covered every source fragment and none of whose fields changed value also covers the fragments they moved to.
   */
  public static List<IndexMetadata> registerMovedRows(
      List<IndexMetadata> indices,
      Collection<Long> movedToFragmentIds,
      Collection<Long> sourceFragmentIds,
      Collection<Integer> fieldsForPreservingBitmap) {
    if (movedToFragmentIds.isEmpty()) {
      return indices;
    }
    Set<Integer> valueChanged = new HashSet<>(fieldsForPreservingBitmap);
    List<IndexMetadata> result = new ArrayList<>();
    for (IndexMetadata index : indices) {
      RoaringBitmap bitmap = FragmentBitmaps.decode(index.getFragmentBitmap());
      boolean touchesChangedField = index.getFieldsList().stream().anyMatch(valueChanged::contains);
      if (bitmap != null && !touchesChangedField
          && sourceFragmentIds.stream().allMatch(id -> bitmap.contains(FragmentBitmaps.toBitmapId(id)))) {
        movedToFragmentIds.forEach(id -> bitmap.add(FragmentBitmaps.toBitmapId(id)));
        index = index.toBuilder().setFragmentBitmap(FragmentBitmaps.encode(bitmap)).build();
      }
      result.add(index);
    }
    return result;
  }

  /** Old and new fragment ids of one rewrite group, after id assignment. */
  public record RewrittenGroup(List<Long> oldIds, List<Long> newIds) {
    public RewrittenGroup {
      oldIds = List.copyOf(oldIds);
      newIds = List.copyOf(newIds);
    }

    static RewrittenGroup of(List<DataFragment> oldFragments, List<DataFragment> newFragments) {
      return new RewrittenGroup(
          oldFragments.stream().map(DataFragment::getId).toList(),
          newFragments.stream().map(DataFragment::getId).toList());
    }
  }

  /**
   * A bitmap after compaction: a group wholly covered swaps its old ids for its new ones; a group partly covered
   * means the plan split indexed from unindexed data, which is refused.
   */
  public static RoaringBitmap remapBitmap(RoaringBitmap old, List<RewrittenGroup> groups) {
    RoaringBitmap remapped = old.clone();
    for (RewrittenGroup group : groups) {
      boolean any = group.oldIds().stream().anyMatch(id -> old.contains(FragmentBitmaps.toBitmapId(id)));
      boolean all = group.oldIds().stream().allMatch(id -> old.contains(FragmentBitmaps.toBitmapId(id)));
      if (any && !all) {
        throw new InvalidTransactionException(
            "The compaction plan included a rewrite group that was a split of indexed and non-indexed data: "
                + group.oldIds());
      }
      if (any) {
        group.oldIds().forEach(id -> remapped.remove(FragmentBitmaps.toBitmapId(id)));
        group.newIds().forEach(id -> remapped.add(FragmentBitmaps.toBitmapId(id)));
      }
    }
    return remapped;
  }

  /** Stable row ids: indices stay valid through a rewrite, only their bitmaps follow the fragments. */
  public static List<IndexMetadata> remapAllBitmaps(List<IndexMetadata> indices, List<RewrittenGroup> groups) {
    List<IndexMetadata> result = new ArrayList<>();
    for (IndexMetadata index : indices) {
      RoaringBitmap bitmap = FragmentBitmaps.decode(index.getFragmentBitmap());
      if (bitmap != null) {
        index = index.toBuilder().setFragmentBitmap(FragmentBitmaps.encode(remapBitmap(bitmap, groups))).build();
      }
      result.add(index);
    }
    return result;
  }

  /**
   * Without stable row ids a rewrite invalidates row addresses, so each remapped index is named in
   * rewritten_indices: its bitmap is remapped and its uuid becomes the new segment's uuid. Index files listed by the
   * rewrite replace the old list (they live under the new uuid).
   */
  public static List<IndexMetadata> applyRewrittenIndices(
      List<IndexMetadata> indices, List<Transaction.RewrittenIndex> rewritten, List<RewrittenGroup> groups) {
    List<IndexMetadata> result = new ArrayList<>(indices);
    Set<ByteString> seen = new HashSet<>();
    for (Transaction.RewrittenIndex change : rewritten) {
      ByteString oldId = change.getOldId().getUuid();
      if (!seen.add(oldId)) {
        throw new InvalidTransactionException("An invalid compaction plan must have been generated because "
            + "multiple tasks modified the same index: " + Uuids.format(oldId));
      }
      int position = -1;
      for (int i = 0; i < result.size(); i++) {
        if (uuidOf(result.get(i)).equals(oldId)) {
          position = i;
          break;
        }
      }
      if (position < 0) {
        throw new InvalidTransactionException(
            "Invalid compaction plan refers to index " + Uuids.format(oldId) + " which does not exist");
      }
      IndexMetadata index = result.get(position);
      RoaringBitmap bitmap = FragmentBitmaps.decode(index.getFragmentBitmap());
      if (bitmap == null) {
        throw new InvalidTransactionException(
            "Cannot rewrite index " + Uuids.format(oldId) + " which did not store fragment bitmap");
      }
      IndexMetadata.Builder updated = index.toBuilder()
          .setFragmentBitmap(FragmentBitmaps.encode(remapBitmap(bitmap, groups)))
          .setUuid(change.getNewId());
      if (change.getNewIndexFilesCount() > 0) {
        updated.clearFiles().addAllFiles(change.getNewIndexFilesList());
      }
      result.set(position, updated.build());
    }
    return result;
  }

  static ByteString uuidOf(IndexMetadata index) {
    return index.getUuid().getUuid();
  }
}
