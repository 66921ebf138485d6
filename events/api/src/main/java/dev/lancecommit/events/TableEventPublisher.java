package dev.lancecommit.events;

import java.util.concurrent.CompletableFuture;

/**
 * Publishes table (catalog) events. {@link #publish} never blocks the calling thread; the future completes once the
 * event is acknowledged, or fails with {@link TableEventPublishException}. Delivery is at most once per call: nothing
 * is retried, and a catalog change never waits for or fails because of its event.
 */
public interface TableEventPublisher extends AutoCloseable {

  CompletableFuture<Void> publish(TableEvent event);

  @Override
  void close();

  /** A publisher that drops every event (events disabled). */
  static TableEventPublisher noop() {
    return NoopTableEventPublisher.INSTANCE;
  }
}
