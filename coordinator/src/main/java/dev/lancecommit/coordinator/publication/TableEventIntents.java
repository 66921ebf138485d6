package dev.lancecommit.coordinator.publication;

import dev.lancecommit.events.TableEvent;
import dev.lancecommit.events.TableEventPublisher;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Catalog changes announced before they are made, so that a process dying between the change and its event loses
 * the event of nothing: {@link DurableTableEvents} writes the announcement to the warehouse first, and an
 * announcement left behind is resolved against the catalog later (the change happened: its event is published; it
 * did not: the announcement is dropped).
 */
public interface TableEventIntents {

  /**
   * Announces a change about to be made (blocking: the announcement is durable when this returns).
   *
   * @param previousId for a rename, the identifier before it; otherwise null
   * @param time the event's time (and so its id): the same whether the event is published live or recovered
   */
  Intent announce(TableEvent.Type type, List<String> tableId, List<String> previousId, String actor, Instant time);

  /** One announced change. */
  interface Intent {
    /** The event's time, as announced. */
    Instant time();

    /** The change was made: publish its event (kept until Kafka acknowledges it) and forget the announcement. */
    CompletableFuture<Void> publish(TableEvent event);

    /** The change was refused: forget the announcement. */
    void abandon();
  }

  /** No announcements: events go straight to {@code publisher} (tests, Kafka disabled). */
  static TableEventIntents none(TableEventPublisher publisher) {
    Objects.requireNonNull(publisher, "publisher");
    return (type, tableId, previousId, actor, time) -> new Intent() {
      @Override
      public Instant time() {
        return time;
      }

      @Override
      public CompletableFuture<Void> publish(TableEvent event) {
        return publisher.publish(event);
      }

      @Override
      public void abandon() { }
    };
  }
}
