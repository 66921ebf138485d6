package dev.lancecommit.coordinator.publication;

import dev.lancecommit.events.TableEvent;
import dev.lancecommit.events.TableEventPublishException;
import dev.lancecommit.events.TableEventPublisher;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * Table events share the commit events' topic, which publication creates once Kafka answers. Sent before that, an
 * event would make the broker auto-create the topic with its own defaults; so until then a table event fails at once
 * (table events are at most once, and would fail anyway while Kafka is unreachable).
 */
public final class ReadyGatedTableEvents implements TableEventPublisher {
  private final TableEventPublisher delegate;
  private final BooleanSupplier topicReady;

  public ReadyGatedTableEvents(TableEventPublisher delegate, BooleanSupplier topicReady) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.topicReady = Objects.requireNonNull(topicReady, "topicReady");
  }

  @Override
  public CompletableFuture<Void> publish(TableEvent event) {
    if (!topicReady.getAsBoolean()) {
      return CompletableFuture.failedFuture(new TableEventPublishException(event.id(), "table event " + event.id()
          + " not published: the events topic is not set up yet (Kafka has not answered since start)", null));
    }
    return delegate.publish(event);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
