package dev.lancecommit.events.trigger;

import java.util.List;
import java.util.Optional;

/**
 * What the trigger decided for one table version.
 *
 * @param version the manifest version the plan was made on: the read_version of the transactions it leads to
 * @param compaction the fragments to compact, if compaction is due
 * @param indexRefreshes indexes whose refresh is due
 * @param notes why something that looked due was not planned (stable row ids, indexed fragments, ...)
 */
public record MaintenancePlan(long version, Optional<CompactionPlan> compaction,
    List<IndexRefreshPlan> indexRefreshes, List<String> notes) {

  public MaintenancePlan {
    indexRefreshes = List.copyOf(indexRefreshes);
    notes = List.copyOf(notes);
  }

  public boolean isEmpty() {
    return compaction.isEmpty() && indexRefreshes.isEmpty();
  }
}
