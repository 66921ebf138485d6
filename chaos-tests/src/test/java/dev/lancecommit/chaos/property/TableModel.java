package dev.lancecommit.chaos.property;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What the table must hold: the committed operations applied in version order to a plain map of rows (id -> value)
 * and a config map. Row ids are never reused, so a deleted or overwritten id must never be seen again.
 */
public final class TableModel {

  /** What a committed version did, as far as later conflict expectations need it. */
  public record CommittedStep(long version, Step.Kind kind, Set<String> configUpserts, Set<String> configDeletes) {}

  private long version;
  private final TreeMap<Long, String> rows = new TreeMap<>();
  private final Set<Long> gone = new HashSet<>();
  private final TreeMap<String, String> config = new TreeMap<>();
  private final List<CommittedStep> history = new ArrayList<>();

  public long version() {
    return version;
  }

  public Map<Long, String> rows() {
    return rows;
  }

  public Set<Long> gone() {
    return gone;
  }

  public Map<String, String> config() {
    return config;
  }

  /** The steps committed after {@code readVersion}, ascending. */
  public List<CommittedStep> committedSince(long readVersion) {
    return history.stream().filter(c -> c.version() > readVersion).toList();
  }

  /** Records that {@code version} was committed (it must be the next one) with the effect already applied. */
  void committed(long newVersion, Step.Kind kind, Set<String> upserts, Set<String> deletes) {
    if (newVersion != version + 1) {
      throw new AssertionError("the coordinator acknowledged version " + newVersion + " after version " + version);
    }
    version = newVersion;
    history.add(new CommittedStep(newVersion, kind, Set.copyOf(upserts), Set.copyOf(deletes)));
  }

  void insert(Map<Long, String> added) {
    for (Long id : added.keySet()) {
      if (rows.containsKey(id) || gone.contains(id)) {
        throw new IllegalStateException("row id " + id + " reused by the test itself");
      }
    }
    rows.putAll(added);
  }

  void delete(Collection<Long> ids) {
    for (Long id : ids) {
      rows.remove(id);
      gone.add(id);
    }
  }

  void replaceAll(Map<Long, String> newRows) {
    gone.addAll(rows.keySet());
    rows.clear();
    insert(newRows);
  }

  void upsertConfig(String key, String value) {
    config.put(key, value);
  }

  void deleteConfig(String key) {
    config.remove(key);
  }
}
