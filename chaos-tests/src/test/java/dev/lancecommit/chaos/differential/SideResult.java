package dev.lancecommit.chaos.differential;

import java.util.Optional;

/**
 * What one side (stock Lance or the coordinator) did with a pair: the outcome of the first commit, of the second
 * (absent when there is none or the first failed), the table Lance reads back when everything committed, and the
 * latest version the table is at.
 */
public record SideResult(Outcome first, Optional<Outcome> second, Optional<TableSnapshot> snapshot,
    long latestVersion) {

  /** The compared class: the second's outcome, or the first's prefixed with "first " when the first failed. */
  public String outcomeClass() {
    if (!first.committed()) {
      return "first " + first.kind();
    }
    return second.map(o -> o.kind().name()).orElse(first.kind().name());
  }

  /** The versions this side acknowledged on top of the read version. */
  long acknowledgedVersion() {
    long acknowledged = BaseTable.READ_VERSION;
    if (first.committed()) {
      acknowledged++;
      if (second.map(Outcome::committed).orElse(false)) {
        acknowledged++;
      }
    }
    return acknowledged;
  }

  @Override
  public String toString() {
    return first + second.map(o -> " / " + o).orElse("");
  }
}
