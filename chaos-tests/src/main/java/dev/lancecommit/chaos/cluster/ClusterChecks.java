package dev.lancecommit.chaos.cluster;

import dev.lancecommit.coordinator.storage.ObjectStores;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.coordinator.table.TableVersions;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.CommitEventReader;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.group.GroupMembers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

/**
 * What must hold after a cluster run, read from the warehouse and the events topic: every acknowledged commit is the
 * version it was acknowledged as (nothing lost, nothing forked: each version holds the one transaction acknowledged
 * for it, and no transaction was acknowledged twice), and every version has its event.
 */
public final class ClusterChecks {
  private ClusterChecks() {}

  /** Problems with the acknowledged commits of one table at {@code location}; empty when all is well. */
  public static List<String> acknowledgedCommitsLanded(ObjectStores stores, String location,
      List<ClusterWorkload.Ack> acks) {
    List<String> problems = new ArrayList<>();
    TableOperations ops = TableOperations.of(stores.resolve(location));
    TableVersions listing = ops.versions();
    ManifestNaming.Scheme scheme = listing.scheme().orElse(ManifestNaming.Scheme.V2);
    Map<String, Long> byUuid = new HashMap<>();
    for (ClusterWorkload.Ack ack : acks) {
      Long otherVersion = byUuid.putIfAbsent(ack.uuid(), ack.version());
      if (otherVersion != null && otherVersion != ack.version()) {
        problems.add("transaction " + ack.uuid() + " acknowledged as versions " + otherVersion + " and "
            + ack.version());
      }
      ManifestFile manifest = ops.readManifest(ack.version(), scheme).orElse(null);
      if (manifest == null) {
        problems.add("acknowledged version " + ack.version() + " (" + ack.uuid() + ") is not in storage");
        continue;
      }
      // A version is one transaction, or a group whose recorded transaction names its members (group commit).
      Transaction landed = ops.transactionOf(manifest);
      List<String> members = GroupMembers.of(landed).isEmpty() ? List.of(landed.getUuid()) : GroupMembers.of(landed);
      if (!members.contains(ack.uuid())) {
        problems.add("version " + ack.version() + " holds " + members + ", not the acknowledged " + ack.uuid());
      }
    }
    List<Long> versions = listing.versions();
    if (!versions.isEmpty() && versions.size() != versions.get(versions.size() - 1) - versions.get(0) + 1) {
      problems.add("versions are not contiguous: " + versions);
    }
    return problems;
  }

  /** The latest version of the table at {@code location} (0 when it has none). */
  public static long latestVersion(ObjectStores stores, String location) {
    return TableOperations.of(stores.resolve(location)).versions().latest().orElse(0L);
  }

  /** Versions 1..latest of the table that have no event on the topic after waiting up to {@code timeout}. */
  public static Set<Long> versionsWithoutEvent(String bootstrap, String topic, List<String> table, long latest,
      Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    Set<Long> missing = new TreeSet<>();
    try (CommitEventReader reader = new CommitEventReader(bootstrap, topic)) {
      do {
        List<CommitEvent> events = reader.readTable(table, Duration.ofSeconds(5));
        Set<Long> seen = events.stream().map(CommitEvent::version).collect(Collectors.toSet());
        missing = LongStream.rangeClosed(1, latest).boxed().filter(v -> !seen.contains(v))
            .collect(Collectors.toCollection(TreeSet::new));
      } while (!missing.isEmpty() && System.nanoTime() < deadline);
    }
    return missing;
  }

  /**
   * The longest time the table went without an acknowledged commit while writers were sending, between
   * {@code fromNanos} and {@code toNanos}: how long it was unavailable at worst.
   */
  public static Duration longestGap(List<ClusterWorkload.Ack> acks, long fromNanos, long toNanos) {
    List<Long> times = acks.stream().map(ClusterWorkload.Ack::ackedNanos).filter(t -> t >= fromNanos && t <= toNanos)
        .sorted(Comparator.naturalOrder()).toList();
    long previous = fromNanos;
    long longest = 0;
    for (long t : times) {
      longest = Math.max(longest, t - previous);
      previous = t;
    }
    longest = Math.max(longest, toNanos - previous);
    return Duration.ofNanos(longest);
  }
}
