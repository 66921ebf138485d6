package dev.lancecommit.format;

import dev.lancecommit.format.pb.DataFragment;
import java.util.Arrays;
import java.util.List;

/**
 * Where each fragment of a version stood in the version before: one walk of both id-sorted lists, no map of every
 * fragment. A fragment whose namesake is the very same message was carried over unchanged, which is how the builder,
 * the encoder, the file check and the commit event find what a version changed without reading every fragment of
 * the table.
 *
 * <p>Most versions change only the table's last fragments (an Append adds after them), so the lists usually begin
 * with a long run of the very same messages in the same places: that {@linkplain #carriedPrefix() carried prefix} is
 * found by reference comparisons alone and kept as its length, and only the fragments after it are walked and
 * remembered. Callers that skip the prefix do work that follows what the version changed, not the table's size.
 */
public final class FragmentNamesakes {
  private final List<DataFragment> previous;
  private final List<DataFragment> next;
  private final int prefix;
  /** For each fragment of {@link #next} after the prefix, the index of its namesake in {@link #previous}, or -1. */
  private final int[] namesakes;
  /** The places of {@link #next} that are not carried over, ascending. */
  private final int[] changed;

  private FragmentNamesakes(List<DataFragment> previous, List<DataFragment> next, int prefix, int[] namesakes,
      int[] changed) {
    this.previous = previous;
    this.next = next;
    this.prefix = prefix;
    this.namesakes = namesakes;
    this.changed = changed;
  }

  /**
   * Matches each fragment of {@code next} with the fragment of {@code previous} that has its id. Both lists must be
   * in strictly ascending id order ({@link TableState#fragmentsSortedById}) and must not change afterwards.
   */
  public static FragmentNamesakes of(List<DataFragment> previous, List<DataFragment> next) {
    int prefix = carriedPrefix(previous, next);
    int[] namesakes = new int[next.size() - prefix];
    int[] changed = new int[namesakes.length];
    int changes = 0;
    int j = prefix;
    int before = previous.size();
    for (int i = prefix; i < next.size(); i++) {
      DataFragment fragment = next.get(i);
      if (j < before && previous.get(j) == fragment) {
        namesakes[i - prefix] = j++; // carried over: the same message, so the same id
        continue;
      }
      long id = fragment.getId();
      while (j < before && previous.get(j).getId() < id) {
        j++;
      }
      int namesake = j < before && previous.get(j).getId() == id ? j : -1;
      namesakes[i - prefix] = namesake;
      if (namesake >= 0 && previous.get(namesake) == fragment) {
        j++; // carried over after fragments that were removed
      } else {
        changed[changes++] = i;
      }
    }
    return new FragmentNamesakes(previous, next, prefix, namesakes, Arrays.copyOf(changed, changes));
  }

  /**
   * {@link #of(List, List)} for the fragments of {@code next}, sorted by id, built on {@code previous}: when the builder
   * made them by editing that very list ({@link TableState#editsFrom}) the places are worked out from its edits,
   * reading only the fragments it changed; otherwise both lists are walked.
   */
  public static FragmentNamesakes of(List<DataFragment> previous, TableState next) {
    List<DataFragment> fragments = next.manifest().getFragmentsList();
    FragmentEdits edits = next.editsFrom(previous);
    if (edits == null) {
      return of(previous, fragments);
    }
    int n = fragments.size();
    int prefix = edits.unchangedPrefix(n);
    int[] namesakes = new int[n - prefix];
    int[] removedAt = edits.removedAt();
    int r = 0;
    int j = prefix; // the place in previous of the next fragment kept from it
    int tailFrom = Math.min(edits.tailFrom(), n);
    for (int i = prefix; i < tailFrom; i++) {
      while (r < removedAt.length && removedAt[r] == j) {
        r++;
        j++;
      }
      namesakes[i - prefix] = j++; // kept in its place among the others, or replaced there under its id
    }
    int[] candidates = edits.changedAt(n);
    int[] changed = new int[candidates.length];
    int changes = 0;
    for (int at : candidates) {
      if (at >= tailFrom) {
        namesakes[at - prefix] = indexOf(previous, fragments.get(at).getId());
      }
      int namesake = namesakes[at - prefix];
      if (namesake < 0 || previous.get(namesake) != fragments.get(at)) {
        changed[changes++] = at;
      }
    }
    return new FragmentNamesakes(previous, fragments, prefix, namesakes, Arrays.copyOf(changed, changes));
  }

  /** The index of the fragment with id {@code id} in {@code sorted} (strictly ascending ids), or -1. */
  public static int indexOf(List<DataFragment> sorted, long id) {
    int low = 0;
    int high = sorted.size() - 1;
    while (low <= high) {
      int mid = (low + high) >>> 1;
      long midId = sorted.get(mid).getId();
      if (midId < id) {
        low = mid + 1;
      } else if (midId > id) {
        high = mid - 1;
      } else {
        return mid;
      }
    }
    return -1;
  }

  /** How many fragments both lists begin with as the very same messages, in the same places. */
  public static int carriedPrefix(List<DataFragment> previous, List<DataFragment> next) {
    int n = Math.min(previous.size(), next.size());
    int i = 0;
    while (i < n && previous.get(i) == next.get(i)) {
      i++;
    }
    return i;
  }

  /** Fragments of the next version. */
  public int size() {
    return next.size();
  }

  /**
   * How many fragments the next version begins with that are the previous version's first ones, the very same
   * messages in the same places: each of them is {@linkplain #carried carried}, and is its own namesake's index.
   */
  public int carriedPrefix() {
    return prefix;
  }

  /** The next version's fragment at {@code index}. */
  public DataFragment next(int index) {
    return next.get(index);
  }

  /** The index in the previous version of the fragment with the id of the next version's {@code index}, or -1. */
  public int namesake(int index) {
    return index < prefix ? index : namesakes[index - prefix];
  }

  /** The previous version's fragment with the id of the next version's {@code index}, or null. */
  public DataFragment namesakeOf(int index) {
    int namesake = namesake(index);
    return namesake >= 0 ? previous.get(namesake) : null;
  }

  /** The places of the next version's fragments that are not {@linkplain #carried carried}, ascending. */
  public int[] changed() {
    return changed;
  }

  /** True when the next version's fragment at {@code index} is its namesake itself: carried over as it was. */
  public boolean carried(int index) {
    if (index < prefix) {
      return true;
    }
    int namesake = namesakes[index - prefix];
    return namesake >= 0 && previous.get(namesake) == next.get(index);
  }
}
