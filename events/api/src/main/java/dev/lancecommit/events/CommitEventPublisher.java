package dev.lancecommit.events;

import java.util.concurrent.CompletableFuture;

/**
 * Publishes commit events. {@link #publish} never blocks the calling thread; the future completes once the event is
 * durably accepted, or fails with {@link CommitEventPublishException}. Delivery is at least once: a failed future
 * does not prove the event was not delivered, so republishing may create a duplicate that consumers drop by event id.
 */
public interface CommitEventPublisher extends AutoCloseable {

  CompletableFuture<Void> publish(CommitEvent event);

  /** Waits (bounded) for events already handed over, then releases resources. Later publishes fail. */
  @Override
  void close();
}
