package dev.lancecommit.format;

import java.util.Arrays;

/**
 * How a version's list of fragments was made by editing the list of the version it was built on, sorted by id: every
 * fragment of that version in its order, except the ones removed (their places in that version, {@link #removedAt})
 * and the ones replaced (their places in the new list, {@link #replacedAt}), and then the new ones from
 * {@link #tailFrom} on. Append, Delete and Update make their lists this way; with it the builder, the encoder and the
 * file check look at those places only, not at every fragment of the table. The arrays are ascending and are not
 * copied: nobody changes them.
 */
public record FragmentEdits(int[] removedAt, int[] replacedAt, int tailFrom) {
  private static final int[] NONE = new int[0];

  /** The version's fragments, then new ones from {@code count} on. */
  public static FragmentEdits appendedAfter(int count) {
    return new FragmentEdits(NONE, NONE, count);
  }

  /** Places of the new list that may hold another fragment than the version built on held there, ascending. */
  public int[] changedAt(int size) {
    int[] changed = Arrays.copyOf(replacedAt, replacedAt.length + Math.max(0, size - tailFrom));
    for (int i = tailFrom, k = replacedAt.length; i < size; i++, k++) {
      changed[k] = i;
    }
    return changed;
  }

  /** How many fragments both lists begin with in the same places, as the same messages. */
  int unchangedPrefix(int size) {
    int prefix = Math.min(tailFrom, size);
    if (replacedAt.length > 0) {
      prefix = Math.min(prefix, replacedAt[0]);
    }
    if (removedAt.length > 0) {
      prefix = Math.min(prefix, removedAt[0]);
    }
    return prefix;
  }
}
