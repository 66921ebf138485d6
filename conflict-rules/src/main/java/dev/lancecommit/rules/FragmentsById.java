package dev.lancecommit.rules;

import dev.lancecommit.format.FragmentNamesakes;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.DataFragment;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Fragments of a manifest looked up by id without copying them into a map: manifests keep their fragments sorted by
 * id, so a lookup is a binary search. A list that is not sorted (which Lance never writes) falls back to a map. Checks
 * run on every commit use this so that a lookup costs nothing per fragment the table has; a table state's fragments
 * are looked at for their order once ({@link TableState#fragmentsSortedById}), not per commit.
 */
public final class FragmentsById {
  private static final FragmentsById NONE = new FragmentsById(List.of(), true);

  private final List<DataFragment> fragments;
  private final boolean sorted;
  private Map<Long, DataFragment> byId;

  private FragmentsById(List<DataFragment> fragments, boolean sorted) {
    this.fragments = fragments;
    this.sorted = sorted;
  }

  public static FragmentsById of(TableState state) {
    return new FragmentsById(state.manifest().getFragmentsList(), state.fragmentsSortedById());
  }

  static FragmentsById none() {
    return NONE;
  }

  /** The fragment with id {@code id}, or null. */
  public DataFragment get(long id) {
    if (fragments.isEmpty()) {
      return null;
    }
    if (!sorted) {
      if (byId == null) {
        byId = new HashMap<>();
        fragments.forEach(f -> byId.putIfAbsent(f.getId(), f));
      }
      return byId.get(id);
    }
    int at = FragmentNamesakes.indexOf(fragments, id);
    return at >= 0 ? fragments.get(at) : null;
  }

  DataFragment getOrDefault(long id, DataFragment fallback) {
    DataFragment found = get(id);
    return found != null ? found : fallback;
  }

  boolean containsKey(long id) {
    return get(id) != null;
  }
}
