package dev.lancecommit.events.trigger;

/**
 * When the trigger consumer acts.
 *
 * @param minFragments compaction is due when at least this many small fragments exist (>= 2)
 * @param maxSmallRows a fragment is small when it has fewer live rows than this (>= 1)
 * @param maxFragmentsPerCompaction at most this many fragments are rewritten by one compaction (>= minFragments)
 * @param maxUnindexedRows an index refresh is due when more live rows than this are not covered by the index;
 *     negative disables index refreshes
 */
public record TriggerPolicy(int minFragments, long maxSmallRows, int maxFragmentsPerCompaction,
    long maxUnindexedRows) {

  public static final int DEFAULT_MIN_FRAGMENTS = 8;
  public static final long DEFAULT_MAX_SMALL_ROWS = 100_000;
  public static final int DEFAULT_MAX_FRAGMENTS_PER_COMPACTION = 256;
  public static final long DEFAULT_MAX_UNINDEXED_ROWS = 100_000;

  public TriggerPolicy {
    if (minFragments < 2) {
      throw new IllegalArgumentException("min fragments must be >= 2, got " + minFragments);
    }
    if (maxSmallRows < 1) {
      throw new IllegalArgumentException("max small rows must be >= 1, got " + maxSmallRows);
    }
    if (maxFragmentsPerCompaction < minFragments) {
      throw new IllegalArgumentException("max fragments per compaction (" + maxFragmentsPerCompaction
          + ") must be >= min fragments (" + minFragments + ")");
    }
  }

  public static TriggerPolicy defaults() {
    return new TriggerPolicy(DEFAULT_MIN_FRAGMENTS, DEFAULT_MAX_SMALL_ROWS, DEFAULT_MAX_FRAGMENTS_PER_COMPACTION,
        DEFAULT_MAX_UNINDEXED_ROWS);
  }

  public boolean indexRefreshEnabled() {
    return maxUnindexedRows >= 0;
  }
}
