package dev.lancecommit.coordinator.batch;

import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.coordinator.table.VersionVisibility;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * The member versions of the batches this coordinator has recorded and not finished: hidden from namespace readers
 * ({@link VersionVisibility}) from just before the batch record is written until every member version is written.
 * Per table, the lowest version any unfinished batch holds is the first hidden one.
 */
public final class PendingBatches implements VersionVisibility {
  /** location -> (hidden version -> how many unfinished batches hold it). */
  private final Map<String, TreeMap<Long, Integer>> hidden = new HashMap<>();

  @Override
  public synchronized OptionalLong hiddenFrom(String location) {
    TreeMap<Long, Integer> versions = hidden.get(location);
    return versions == null || versions.isEmpty() ? OptionalLong.empty() : OptionalLong.of(versions.firstKey());
  }

  /** True when the table has a version of an unfinished batch. */
  public boolean hides(TableRef table) {
    return hiddenFrom(table.location()).isPresent();
  }

  synchronized void hide(String location, long version) {
    hidden.computeIfAbsent(location, k -> new TreeMap<>()).merge(version, 1, Integer::sum);
  }

  synchronized void show(String location, long version) {
    TreeMap<Long, Integer> versions = hidden.get(location);
    if (versions == null) {
      return;
    }
    versions.computeIfPresent(version, (k, n) -> n == 1 ? null : n - 1);
    if (versions.isEmpty()) {
      hidden.remove(location);
    }
  }
}
