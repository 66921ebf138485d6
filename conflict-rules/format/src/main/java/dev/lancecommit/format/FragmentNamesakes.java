package dev.lancecommit.format;

import dev.lancecommit.format.pb.DataFragment;
import java.util.List;

/**
 * Where each fragment of a version stood in the version before: one walk of both id-sorted lists, no map of every
 * fragment. A fragment whose namesake is the very same message was carried over unchanged, which is how the builder,
 * the encoder and the file check find what a version changed without reading every fragment of the table.
 */
public final class FragmentNamesakes {
  private FragmentNamesakes() {}

  /**
   * For each fragment of {@code next}, the index in {@code previous} of the fragment with the same id, or -1. Both
   * lists must be in strictly ascending id order ({@link TableState#fragmentsSortedById}).
   */
  public static int[] of(List<DataFragment> previous, List<DataFragment> next) {
    int[] namesakes = new int[next.size()];
    int j = 0;
    for (int i = 0; i < next.size(); i++) {
      long id = next.get(i).getId();
      while (j < previous.size() && previous.get(j).getId() < id) {
        j++;
      }
      namesakes[i] = j < previous.size() && previous.get(j).getId() == id ? j : -1;
    }
    return namesakes;
  }

  /** True when {@code next}'s fragment at {@code index} is its namesake itself: carried over as it was. */
  public static boolean carried(int[] namesakes, List<DataFragment> previous, List<DataFragment> next, int index) {
    return namesakes[index] >= 0 && previous.get(namesakes[index]) == next.get(index);
  }
}
