package dev.lancecommit.events.trigger;

import dev.lancecommit.format.FeatureFlags;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.IndexMetadata;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.roaringbitmap.RoaringBitmap;

/**
 * Decides, from a table's latest manifest alone, whether compaction or an index refresh is due. Pure: no I/O.
 *
 * <ul>
 *   <li>Compaction: fragments with fewer than {@link TriggerPolicy#maxSmallRows()} live rows are small; when at
 *       least {@link TriggerPolicy#minFragments()} of them exist, the first {@link
 *       TriggerPolicy#maxFragmentsPerCompaction()} (in manifest order) are planned. Fragments covered by an index
 *       are left alone (the rewrite would need the index remapped, which this consumer does not do), and so is a
 *       table with stable row ids (rewritten rows must keep their ids) or an index whose coverage is unknown.
 *   <li>Index refresh: per index name (system indexes {@code __lance*} aside), the live rows of fragments no
 *       segment covers; above {@link TriggerPolicy#maxUnindexedRows()} a refresh is due.
 * </ul>
 */
public final class MaintenancePlanner {
  /** Prefix of Lance's system indexes (fragment reuse, MemWAL), never refreshed nor counted as coverage. */
  public static final String SYSTEM_INDEX_PREFIX = "__lance";

  private MaintenancePlanner() {}

  public static MaintenancePlan plan(ManifestFile latest, TriggerPolicy policy) {
    List<DataFragment> fragments = latest.manifest().getFragmentsList();
    List<String> notes = new ArrayList<>();
    Map<String, List<IndexMetadata>> byName = new LinkedHashMap<>();
    for (IndexMetadata index : latest.indices()) {
      if (!index.getName().startsWith(SYSTEM_INDEX_PREFIX)) {
        byName.computeIfAbsent(index.getName(), k -> new ArrayList<>()).add(index);
      }
    }
    Map<String, RoaringBitmap> coverage = new LinkedHashMap<>();
    List<String> unknownCoverage = new ArrayList<>();
    for (Map.Entry<String, List<IndexMetadata>> entry : byName.entrySet()) {
      RoaringBitmap covered = new RoaringBitmap();
      boolean known = true;
      for (IndexMetadata segment : entry.getValue()) {
        RoaringBitmap bitmap = bitmap(segment);
        if (bitmap == null) {
          known = false;
        } else {
          covered.or(bitmap);
        }
      }
      if (known) {
        coverage.put(entry.getKey(), covered);
      } else {
        unknownCoverage.add(entry.getKey());
      }
    }

    Optional<CompactionPlan> compaction = planCompaction(latest, fragments, coverage, unknownCoverage, policy, notes);
    List<IndexRefreshPlan> refreshes = new ArrayList<>();
    if (policy.indexRefreshEnabled()) {
      for (Map.Entry<String, List<IndexMetadata>> entry : byName.entrySet()) {
        RoaringBitmap covered = coverage.get(entry.getKey());
        if (covered == null) {
          notes.add("index '" + entry.getKey() + "' records no fragment coverage; its refresh cannot be judged");
          continue;
        }
        List<Long> unindexed = new ArrayList<>();
        long rows = 0;
        for (DataFragment fragment : fragments) {
          if (!covered.contains((int) fragment.getId())) {
            long live = liveRows(fragment);
            if (live > 0) {
              unindexed.add(fragment.getId());
              rows += live;
            }
          }
        }
        if (rows > policy.maxUnindexedRows()) {
          IndexMetadata first = entry.getValue().get(0);
          refreshes.add(new IndexRefreshPlan(entry.getKey(), entry.getValue(), first.getFieldsList(),
              first.hasIndexDetails() ? first.getIndexDetails().getTypeUrl() : "", unindexed, rows));
        }
      }
    }
    return new MaintenancePlan(latest.version(), compaction, refreshes, notes);
  }

  private static Optional<CompactionPlan> planCompaction(ManifestFile latest, List<DataFragment> fragments,
      Map<String, RoaringBitmap> coverage, List<String> unknownCoverage, TriggerPolicy policy, List<String> notes) {
    List<DataFragment> small = new ArrayList<>();
    int indexed = 0;
    int unknownSize = 0;
    for (DataFragment fragment : fragments) {
      boolean unknownDeletions = fragment.hasDeletionFile() && fragment.getDeletionFile().getNumDeletedRows() == 0;
      if (fragment.getPhysicalRows() == 0 || unknownDeletions) {
        unknownSize++;
        continue;
      }
      if (liveRows(fragment) >= policy.maxSmallRows()) {
        continue;
      }
      if (coveredByAny(coverage, fragment.getId())) {
        indexed++;
        continue;
      }
      small.add(fragment);
    }
    if (unknownSize > 0) {
      notes.add(unknownSize + " fragment(s) do not record their (deleted) row count and are not compacted");
    }
    if (indexed > 0) {
      notes.add(indexed + " small fragment(s) are covered by an index and are not compacted");
    }
    if (small.size() < policy.minFragments()) {
      return Optional.empty();
    }
    if (FeatureFlags.usesStableRowIds(latest.manifest())) {
      notes.add(small.size() + " small fragments, but the table uses stable row ids: compaction is left to Lance");
      return Optional.empty();
    }
    if (!unknownCoverage.isEmpty()) {
      notes.add(small.size() + " small fragments, but index(es) " + unknownCoverage
          + " record no coverage: compaction could break them and is skipped");
      return Optional.empty();
    }
    List<DataFragment> chosen = small.subList(0, Math.min(small.size(), policy.maxFragmentsPerCompaction()));
    long rows = chosen.stream().mapToLong(MaintenancePlanner::liveRows).sum();
    return Optional.of(new CompactionPlan(chosen, rows));
  }

  private static boolean coveredByAny(Map<String, RoaringBitmap> coverage, long fragmentId) {
    for (RoaringBitmap bitmap : coverage.values()) {
      if (bitmap.contains((int) fragmentId)) {
        return true;
      }
    }
    return false;
  }

  /** Physical rows minus deleted rows (0 when the fragment does not record its size). */
  public static long liveRows(DataFragment fragment) {
    long deleted = fragment.hasDeletionFile() ? fragment.getDeletionFile().getNumDeletedRows() : 0;
    return Math.max(0, fragment.getPhysicalRows() - deleted);
  }

  /** The fragment bitmap of an index, or null when it records none (empty bytes mean "unknown" in Lance). */
  static RoaringBitmap bitmap(IndexMetadata index) {
    if (index.getFragmentBitmap().isEmpty()) {
      return null;
    }
    RoaringBitmap bitmap = new RoaringBitmap();
    try {
      bitmap.deserialize(ByteBuffer.wrap(index.getFragmentBitmap().toByteArray()));
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("index '" + index.getName() + "' has an unreadable fragment bitmap", e);
    }
    return bitmap;
  }
}
