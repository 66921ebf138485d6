package dev.lancecommit.chaos.harness;

import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.CommitEventReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The after-run checks of the commit events: the whole topic read from the start ({@link CommitEventReader}),
 * deduplicated by event id, must hold exactly one event per version of each table, carrying that version's
 * transaction; and the long-running consumer must have been handed each version exactly once, in order.
 */
final class EventVerifier {
  private final List<TableHistory> histories;
  private final String bootstrap;
  private final String topic;

  EventVerifier(List<TableHistory> histories, String bootstrap, String topic) {
    this.histories = histories;
    this.bootstrap = bootstrap;
    this.topic = topic;
  }

  CheckResult topicHasEveryVersion() {
    List<CommitEvent> events;
    int skipped;
    try (CommitEventReader reader = new CommitEventReader(bootstrap, topic)) {
      events = reader.readToEnd(Duration.ofSeconds(60));
      skipped = reader.skippedRecords();
    } catch (RuntimeException e) {
      return CheckResult.kafka("every version has an event on Kafka", false, "could not read " + topic + ": " + e);
    }
    Map<String, List<CommitEvent>> byTable = new HashMap<>();
    events.forEach(e -> byTable.computeIfAbsent(e.tableKey(), k -> new ArrayList<>()).add(e));
    List<String> problems = new ArrayList<>();
    List<String> parts = new ArrayList<>();
    int duplicates = 0;
    int ungoverned = 0;
    for (TableHistory h : histories) {
      Map<String, CommitEvent> byId = new HashMap<>();
      TreeMap<Long, CommitEvent> byVersion = new TreeMap<>();
      List<CommitEvent> tableEvents = byTable.getOrDefault(h.table().key(), List.of());
      for (CommitEvent e : tableEvents) {
        CommitEvent first = byId.putIfAbsent(e.id(), e);
        if (first != null) {
          duplicates++;
          if (!java.util.Objects.equals(first.transactionUuid(), e.transactionUuid())) {
            problems.add(h.table().key() + " event " + e.id() + " published with transactions "
                + first.transactionUuid() + " and " + e.transactionUuid());
          }
          continue;
        }
        if (!e.governed()) {
          ungoverned++;
        }
        CommitEvent sameVersion = byVersion.put(e.version(), e);
        if (sameVersion != null) {
          problems.add(h.table().key() + " v" + e.version() + " has events with ids " + sameVersion.id() + " and "
              + e.id());
        }
      }
      List<Long> missing = new ArrayList<>();
      for (long v : h.versions()) {
        CommitEvent event = byVersion.get(v);
        if (event == null) {
          missing.add(v);
        } else if (!java.util.Objects.equals(event.transactionUuid(), h.uuidAt(v))) {
          problems.add(h.table().key() + " v" + v + " event names transaction " + event.transactionUuid()
              + ", the version holds " + h.uuidAt(v));
        } else if (!event.members().isEmpty() && !event.members().stream().map(CommitEvent.Member::transactionUuid)
            .toList().equals(h.membersAt(v))) {
          problems.add(h.table().key() + " v" + v + " event lists members " + event.members().stream()
              .map(CommitEvent.Member::transactionUuid).toList() + ", the version holds " + h.membersAt(v));
        }
      }
      for (long v : byVersion.keySet()) {
        if (v < 1 || v > h.latest()) {
          problems.add(h.table().key() + " has an event for v" + v + ", which does not exist");
        }
      }
      if (!missing.isEmpty()) {
        problems.add(h.table().key() + " versions without an event: " + abbreviate(missing));
      }
      parts.add(h.table().key() + " " + (h.versions().size() - missing.size()) + "/" + h.versions().size());
    }
    return CheckResult.kafka("every version has an event on Kafka", problems.isEmpty(),
        events.size() + " events read (" + duplicates + " duplicates dropped by id, " + ungoverned
            + " marked ungoverned, " + skipped + " other records skipped, e.g. table.declared); versions with an event: "
            + String.join(", ", parts) + HistoryVerifier.examples(problems));
  }

  CheckResult consumerSawEachVersionOnceInOrder(EventRecorder recorder, boolean caughtUp) {
    Map<String, List<Long>> delivered = recorder.delivered();
    List<String> problems = new ArrayList<>();
    List<String> parts = new ArrayList<>();
    for (TableHistory h : histories) {
      List<Long> seen = delivered.getOrDefault(h.table().key(), List.of());
      List<Long> expected = new ArrayList<>(h.versions());
      if (!seen.equals(expected)) {
        problems.add(h.table().key() + " delivered " + abbreviate(seen) + ", expected " + abbreviate(expected));
      }
      parts.add(h.table().key() + " " + seen.size() + "/" + expected.size());
    }
    Throwable failure = recorder.failure();
    if (failure != null) {
      problems.add("the consumer stopped: " + failure);
    }
    return CheckResult.kafka("consumer saw each version exactly once, in order", problems.isEmpty(),
        "CommitEventConsumer delivered " + String.join(", ", parts) + (caughtUp ? "" : " (gave up waiting)")
            + "; stats " + recorder.stats() + HistoryVerifier.examples(problems));
  }

  private static String abbreviate(List<Long> versions) {
    if (versions.size() <= 12) {
      return versions.toString();
    }
    return versions.subList(0, 6) + "..." + versions.subList(versions.size() - 6, versions.size()) + " ("
        + versions.size() + ")";
  }
}
