package dev.lancecommit.rules;

import dev.lancecommit.format.FragmentEdits;
import dev.lancecommit.format.FragmentNamesakes;
import dev.lancecommit.format.pb.DataFragment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A table's fragments with some replaced and some removed, in place, as a Delete or an Update leaves them. In a list
 * sorted by id (as every manifest keeps it) the fragments a transaction touches are found by binary search and the runs
 * between them are copied whole, so the cost is one copy of the list, not a lookup per fragment of the table.
 */
final class FragmentSplice {
  private FragmentSplice() {}

  /**
   * @param fragments the table's fragments
   * @param sortedById true when {@code fragments} are in strictly ascending id order
   * @param replacements fragment id -> the fragment that takes its place
   * @param removed ids of the fragments to leave out (a removal wins over a replacement)
   * @param room how many more fragments the caller will add
   */
  static Spliced apply(List<DataFragment> fragments, boolean sortedById,
      Map<Long, DataFragment> replacements, Set<Long> removed, int room) {
    ArrayList<DataFragment> result = new ArrayList<>(fragments.size() + room);
    if (!sortedById) {
      for (DataFragment fragment : fragments) {
        if (!removed.contains(fragment.getId())) {
          result.add(replacements.getOrDefault(fragment.getId(), fragment));
        }
      }
      return new Spliced(result, null);
    }
    int[] touched = new int[replacements.size() + removed.size()];
    int count = 0;
    for (Long id : replacements.keySet()) {
      count = addPosition(fragments, id, touched, count);
    }
    for (Long id : removed) {
      count = addPosition(fragments, id, touched, count);
    }
    Arrays.sort(touched, 0, count);
    int[] removedAt = new int[count];
    int[] replacedAt = new int[count];
    int removals = 0;
    int replaced = 0;
    int from = 0;
    for (int i = 0; i < count; i++) {
      int at = touched[i];
      if (at < from) {
        continue; // an id both replaced and removed
      }
      result.addAll(fragments.subList(from, at));
      DataFragment fragment = fragments.get(at);
      if (removed.contains(fragment.getId())) {
        removedAt[removals++] = at;
      } else {
        replacedAt[replaced++] = result.size();
        result.add(replacements.getOrDefault(fragment.getId(), fragment));
      }
      from = at + 1;
    }
    result.addAll(fragments.subList(from, fragments.size()));
    return new Spliced(result, new FragmentEdits(Arrays.copyOf(removedAt, removals),
        Arrays.copyOf(replacedAt, replaced), result.size()));
  }

  /**
   * The spliced list, and how it was made from the table's ({@code edits}: null when the table's list was not sorted by
   * id and was walked instead). {@code edits} counts every fragment a caller adds to the list as new.
   */
  record Spliced(ArrayList<DataFragment> fragments, FragmentEdits edits) {}

  private static int addPosition(List<DataFragment> sorted, long id, int[] positions, int count) {
    int at = FragmentNamesakes.indexOf(sorted, id);
    if (at < 0) {
      return count; // not in the table: nothing to replace or remove
    }
    positions[count] = at;
    return count + 1;
  }
}
