package dev.lancecommit.events;

import java.util.concurrent.CompletableFuture;

/** Drops every event; {@link TableEventPublisher#noop()}. */
final class NoopTableEventPublisher implements TableEventPublisher {
  static final NoopTableEventPublisher INSTANCE = new NoopTableEventPublisher();

  private NoopTableEventPublisher() {}

  @Override
  public CompletableFuture<Void> publish(TableEvent event) {
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public void close() {}
}
