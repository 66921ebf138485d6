package dev.lancecommit.events.trigger;

import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;

import dev.lancecommit.config.Config;
import dev.lancecommit.config.ConfigKey;
import dev.lancecommit.config.ConfigKeys;

/**
 * When the trigger consumer acts. The keys ({@link #keys()}) are the trigger command's options of the same names.
 *
 * @param minFragments compaction is due when at least this many small fragments exist (>= 2)
 * @param maxSmallRows a fragment is small when it has fewer live rows than this (>= 1)
 * @param maxFragmentsPerCompaction at most this many fragments are rewritten by one compaction (>= minFragments)
 * @param maxUnindexedRows an index refresh is due when more live rows than this are not covered by the index;
 *     negative disables index refreshes
 */
public record TriggerPolicy(int minFragments, long maxSmallRows, int maxFragmentsPerCompaction,
    long maxUnindexedRows) {

  private static final ConfigKeys KEYS = new ConfigKeys();
  public static final ConfigKey<Integer> MIN_FRAGMENTS = KEYS.integer("min-fragments", 8, atLeast(2),
      "Compact when at least this many fragments are small.");
  public static final ConfigKey<Long> MAX_SMALL_ROWS = KEYS.longInteger("max-small-rows", 100_000L, atLeast(1),
      "A fragment with fewer live rows than this is small.");
  public static final ConfigKey<Integer> MAX_FRAGMENTS_PER_COMPACTION = KEYS.integer("max-fragments-per-compaction",
      256, atLeast(2), "At most this many fragments per rewrite (at least min-fragments).");
  public static final ConfigKey<Long> MAX_UNINDEXED_ROWS = KEYS.longInteger("max-unindexed-rows", 100_000L, null,
      "Refresh an index when more live rows than this are not covered by it; -1: never.");

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

  /** The policy keys. */
  public static ConfigKeys keys() {
    return KEYS;
  }

  /** The policy the keys describe (in a configuration that includes {@link #keys()}). */
  public static TriggerPolicy from(Config config) {
    return new TriggerPolicy(config.get(MIN_FRAGMENTS), config.get(MAX_SMALL_ROWS),
        config.get(MAX_FRAGMENTS_PER_COMPACTION), config.get(MAX_UNINDEXED_ROWS));
  }

  public static TriggerPolicy defaults() {
    return from(KEYS.defaults());
  }

  public boolean indexRefreshEnabled() {
    return maxUnindexedRows >= 0;
  }
}
