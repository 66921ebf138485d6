package dev.lancecommit.format;

import dev.lancecommit.format.pb.DataFragment;
import java.util.List;

/**
 * Where each fragment of a version stood in the version before: one walk of both id-sorted lists, no map of every
 * fragment. A fragment whose namesake is the very same message was carried over unchanged, which is how the builder,
 * the encoder, the file check and the commit event find what a version changed without reading every fragment of
 * the table.
 *
 * <p>The walk still passes every fragment of the table once per version, so it runs on plain arrays: a carried
 * fragment costs one reference comparison, not list calls and an id read.
 */
public final class FragmentNamesakes {
  private static final DataFragment[] NONE = new DataFragment[0];

  private final DataFragment[] previous;
  private final DataFragment[] next;
  private final int[] namesakes;

  private FragmentNamesakes(DataFragment[] previous, DataFragment[] next, int[] namesakes) {
    this.previous = previous;
    this.next = next;
    this.namesakes = namesakes;
  }

  /**
   * Matches each fragment of {@code next} with the fragment of {@code previous} that has its id. Both lists must be
   * in strictly ascending id order ({@link TableState#fragmentsSortedById}).
   */
  public static FragmentNamesakes of(List<DataFragment> previous, List<DataFragment> next) {
    DataFragment[] before = previous.toArray(NONE);
    DataFragment[] after = next.toArray(NONE);
    int[] namesakes = new int[after.length];
    int j = 0;
    for (int i = 0; i < after.length; i++) {
      DataFragment fragment = after[i];
      if (j < before.length && before[j] == fragment) {
        namesakes[i] = j++; // carried over: the same message, so the same id
        continue;
      }
      long id = fragment.getId();
      while (j < before.length && before[j].getId() < id) {
        j++;
      }
      namesakes[i] = j < before.length && before[j].getId() == id ? j : -1;
    }
    return new FragmentNamesakes(before, after, namesakes);
  }

  /** Fragments of the next version. */
  public int size() {
    return next.length;
  }

  /** The next version's fragment at {@code index}. */
  public DataFragment next(int index) {
    return next[index];
  }

  /** The index in the previous version of the fragment with the id of the next version's {@code index}, or -1. */
  public int namesake(int index) {
    return namesakes[index];
  }

  /** The previous version's fragment with the id of the next version's {@code index}, or null. */
  public DataFragment namesakeOf(int index) {
    return namesakes[index] >= 0 ? previous[namesakes[index]] : null;
  }

  /** True when the next version's fragment at {@code index} is its namesake itself: carried over as it was. */
  public boolean carried(int index) {
    return namesakes[index] >= 0 && previous[namesakes[index]] == next[index];
  }
}
