package dev.lancecommit.format;

import dev.lancecommit.format.pb.DataFragment;
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

  private FragmentNamesakes(List<DataFragment> previous, List<DataFragment> next, int prefix, int[] namesakes) {
    this.previous = previous;
    this.next = next;
    this.prefix = prefix;
    this.namesakes = namesakes;
  }

  /**
   * Matches each fragment of {@code next} with the fragment of {@code previous} that has its id. Both lists must be
   * in strictly ascending id order ({@link TableState#fragmentsSortedById}) and must not change afterwards.
   */
  public static FragmentNamesakes of(List<DataFragment> previous, List<DataFragment> next) {
    int prefix = carriedPrefix(previous, next);
    int[] namesakes = new int[next.size() - prefix];
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
      namesakes[i - prefix] = j < before && previous.get(j).getId() == id ? j : -1;
    }
    return new FragmentNamesakes(previous, next, prefix, namesakes);
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

  /** True when the next version's fragment at {@code index} is its namesake itself: carried over as it was. */
  public boolean carried(int index) {
    if (index < prefix) {
      return true;
    }
    int namesake = namesakes[index - prefix];
    return namesake >= 0 && previous.get(namesake) == next.get(index);
  }
}
