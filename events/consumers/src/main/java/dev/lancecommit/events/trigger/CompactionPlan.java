package dev.lancecommit.events.trigger;

import dev.lancecommit.format.pb.DataFragment;
import java.util.List;

/**
 * Small fragments to rewrite as one.
 *
 * @param fragments the fragments exactly as the planned-on manifest lists them, in manifest order
 * @param liveRows their rows minus deleted rows: the rows the new fragment must hold
 */
public record CompactionPlan(List<DataFragment> fragments, long liveRows) {
  public CompactionPlan {
    fragments = List.copyOf(fragments);
  }

  public List<Long> fragmentIds() {
    return fragments.stream().map(DataFragment::getId).toList();
  }
}
