package dev.lancecommit.chaos.harness;

import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.consumer.CommitEventConsumer;
import dev.lancecommit.events.consumer.ConsumerOptions;
import dev.lancecommit.events.consumer.ConsumerStats;
import dev.lancecommit.events.consumer.InMemoryCheckpointStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A downstream consumer running through the whole run: the project's {@link CommitEventConsumer} in its own consumer
 * group (per-table ordered, deduplicated delivery), recording the versions it is handed per table. Its gap timeout is
 * longer than any run, so it never skips a missing version: it waits for it.
 */
final class EventRecorder implements AutoCloseable {
  private final CommitEventConsumer consumer;
  private final Map<String, List<Long>> delivered = new HashMap<>();

  private EventRecorder(String bootstrap, String topic, String groupId) {
    ConsumerOptions options = ConsumerOptions.builder(bootstrap, groupId)
        .topic(topic)
        .gapTimeout(Duration.ofHours(6))
        .pollTimeout(Duration.ofMillis(300))
        .retryBackoff(Duration.ofMillis(200))
        .retryBackoffMax(Duration.ofSeconds(2))
        .build();
    this.consumer = new CommitEventConsumer(options, new InMemoryCheckpointStore(), this::onCommit);
  }

  static EventRecorder start(String bootstrap, String topic, String groupId) {
    EventRecorder recorder = new EventRecorder(bootstrap, topic, groupId);
    recorder.consumer.start();
    return recorder;
  }

  private void onCommit(CommitEvent event) {
    synchronized (delivered) {
      delivered.computeIfAbsent(event.tableKey(), k -> new ArrayList<>()).add(event.version());
    }
  }

  /** Versions handed to the handler, per table key, in delivery order. */
  Map<String, List<Long>> delivered() {
    synchronized (delivered) {
      Map<String, List<Long>> copy = new HashMap<>();
      delivered.forEach((k, v) -> copy.put(k, List.copyOf(v)));
      return copy;
    }
  }

  /** Waits until every table's last delivered version is at least its latest version; false on timeout. */
  boolean awaitDelivered(Map<String, Long> latest, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (caughtUp(latest)) {
        return true;
      }
      Thread.sleep(250);
    }
    return caughtUp(latest);
  }

  private boolean caughtUp(Map<String, Long> latest) {
    Map<String, List<Long>> now = delivered();
    for (Map.Entry<String, Long> e : latest.entrySet()) {
      List<Long> versions = now.getOrDefault(e.getKey(), List.of());
      if (versions.isEmpty() || versions.get(versions.size() - 1) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  ConsumerStats stats() {
    return consumer.stats();
  }

  Throwable failure() {
    return consumer.failure();
  }

  @Override
  public void close() {
    consumer.close();
  }
}
