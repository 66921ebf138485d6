package dev.lancecommit.events.trigger;

import dev.lancecommit.format.pb.IndexMetadata;
import java.util.List;

/**
 * An index whose coverage fell behind the table.
 *
 * @param name the index name
 * @param segments every index entry of that name in the manifest (a refresh replaces them all)
 * @param fieldIds the indexed field ids
 * @param detailsType the type URL of the index details, e.g. {@code /lance.table.BTreeIndexDetails}
 * @param unindexedFragmentIds live fragments no segment covers
 * @param unindexedRows their live rows
 */
public record IndexRefreshPlan(String name, List<IndexMetadata> segments, List<Integer> fieldIds, String detailsType,
    List<Long> unindexedFragmentIds, long unindexedRows) {

  public static final String BTREE_DETAILS = "/lance.table.BTreeIndexDetails";

  public IndexRefreshPlan {
    segments = List.copyOf(segments);
    fieldIds = List.copyOf(fieldIds);
    unindexedFragmentIds = List.copyOf(unindexedFragmentIds);
  }

  /** True for index kinds the trigger can rebuild itself (B-tree); others are only reported as due. */
  public boolean rebuildable() {
    return detailsType.endsWith("BTreeIndexDetails") && fieldIds.size() == 1;
  }
}
