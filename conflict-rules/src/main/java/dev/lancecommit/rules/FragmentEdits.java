package dev.lancecommit.rules;

import java.util.Arrays;

/**
 * How an operation made the next version's list of fragments by editing the list of the version it is built on, when
 * that list is sorted by id: every fragment of that version in its order, except the ones removed (their places in
 * that version, {@link #removedAt}) and the ones replaced (their places in the new list, {@link #replacedAt}), and
 * then the new ones from {@link #tailFrom} on. With it the builder looks at those places only, not at every fragment
 * of the table (Append, Delete and Update make their lists this way).
 */
record FragmentEdits(int[] removedAt, int[] replacedAt, int tailFrom) {
  private static final int[] NONE = new int[0];

  /** The version's fragments, then new ones from {@code count} on. */
  static FragmentEdits appendedAfter(int count) {
    return new FragmentEdits(NONE, NONE, count);
  }

  /** Places of the new list that may hold another fragment than the version built on held there, ascending. */
  int[] changedAt(int size) {
    int[] changed = Arrays.copyOf(replacedAt, replacedAt.length + Math.max(0, size - tailFrom));
    for (int i = tailFrom, k = replacedAt.length; i < size; i++, k++) {
      changed[k] = i;
    }
    return changed;
  }
}
