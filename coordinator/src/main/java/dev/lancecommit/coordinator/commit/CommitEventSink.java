package dev.lancecommit.coordinator.commit;

import dev.lancecommit.events.CommitEvent;

/**
 * Where the commit lane hands the event of a version that landed. {@link #accept} only enqueues: it returns at once
 * and does not fail, so a commit's answer never waits for, or depends on, Kafka. Delivery is the sink's business
 * (the publication outbox sends in version order and retries; the reconciler publishes from storage whatever an
 * earlier process never handed over).
 */
@FunctionalInterface
public interface CommitEventSink {

  void accept(CommitEvent event);

  /** For {@code kafka=none}: commits publish nothing. */
  static CommitEventSink discard() {
    return event -> { };
  }
}
