package dev.lancecommit.coordinator.retention;

import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;

import dev.lancecommit.config.Config;
import dev.lancecommit.config.ConfigKey;
import dev.lancecommit.config.ConfigKeys;
import java.time.Duration;

/**
 * The retention cleanup's keys ({@link TableCleanup}, {@link RetentionService}); the coordinator's configuration
 * includes {@link #keys()}.
 */
public final class RetentionConfig {
  private static final ConfigKeys KEYS = new ConfigKeys();

  public static final ConfigKey<Boolean> ENABLED = KEYS.bool("retention.enabled", false,
      "Run the retention cleanup over every catalogued table (and its branches) every retention.interval.ms: delete "
          + "the records of versions the policy does not keep, then the data, deletion, index and transaction files "
          + "no remaining version names (Lance's cleanup_old_versions rules). Off by default: version/delete still "
          + "deletes version records on request.");
  public static final ConfigKey<Duration> INTERVAL_MS = KEYS.millis("retention.interval.ms", 3_600_000,
      atLeast(1), "How often the retention cleanup runs (the first run one interval after start).");
  public static final ConfigKey<Integer> MIN_VERSIONS = KEYS.integer("retention.min-versions", 10, atLeast(1),
      "Newest versions of each table and branch kept whatever their age (the latest is always kept; tagged "
          + "versions and versions a branch was made from are kept too, as Lance keeps them).");
  public static final ConfigKey<Duration> MIN_AGE_MS = KEYS.millis("retention.min-age.ms", 604_800_000L,
      atLeast(0), "Versions younger than this are kept, and so are files younger than this that no version names "
          + "yet (they may belong to a commit in flight: writers must commit within this age of writing their files). "
          + "Default 7 days, as Lance's unverified-file threshold.");
  public static final ConfigKey<Duration> COMMIT_GRACE_MS = KEYS.millis("retention.commit-grace.ms", 600_000,
      atLeast(0), "After version records of a table are deleted (by the cleanup or version/delete), and after start, "
          + "wait this long before deleting the files they named, so that a Restore or branch Clone that read one of "
          + "them has landed and names its files. Far above the longest commit (seconds).");

  private final Config values;

  private RetentionConfig(Config values) {
    this.values = values;
  }

  public static ConfigKeys keys() {
    return KEYS;
  }

  public static RetentionConfig from(Config values) {
    return new RetentionConfig(values);
  }

  public boolean enabled() {
    return values.get(ENABLED);
  }

  public Duration interval() {
    return values.get(INTERVAL_MS);
  }

  public Duration commitGrace() {
    return values.get(COMMIT_GRACE_MS);
  }

  public RetentionPolicy policy() {
    return new RetentionPolicy(values.get(MIN_VERSIONS), values.get(MIN_AGE_MS));
  }
}
