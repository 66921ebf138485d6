package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.auth.Principal;
import dev.lancecommit.coordinator.namespace.TableEntry;
import dev.lancecommit.events.TableEvent;
import dev.lancecommit.events.TableEventPublisher;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes a {@link TableEvent} after a catalog change succeeded, without waiting: the change is already durable,
 * so a publish that fails (Kafka down, publisher closed) is logged and the request still succeeds. The coordinator's
 * publisher keeps such events and sends them again later ({@code DurableTableEvents}).
 * {@link TableEventPublisher#publish} does not block, so this may be called on an event loop.
 */
final class TableEventNotifier {
  private static final Logger LOG = LoggerFactory.getLogger(TableEventNotifier.class);

  private final TableEventPublisher publisher;
  private final Clock clock;

  TableEventNotifier(TableEventPublisher publisher, Clock clock) {
    this.publisher = Objects.requireNonNull(publisher, "publisher");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  void declared(TableEntry entry, Principal caller) {
    publish(TableEvent.of(TableEvent.Type.DECLARED, entry.id(), entry.tableUuid(), entry.location(), caller.name(),
        clock.instant()));
  }

  void registered(TableEntry entry, Principal caller) {
    publish(TableEvent.of(TableEvent.Type.REGISTERED, entry.id(), entry.tableUuid(), entry.location(),
        caller.name(), clock.instant()));
  }

  /** {@code entry} is the entry as it was before it was removed. */
  void deregistered(TableEntry entry, Principal caller) {
    publish(TableEvent.of(TableEvent.Type.DEREGISTERED, entry.id(), entry.tableUuid(), entry.location(),
        caller.name(), clock.instant()));
  }

  /** {@code entry} is the entry as it was before it was removed. */
  void dropped(TableEntry entry, Principal caller) {
    publish(TableEvent.of(TableEvent.Type.DROPPED, entry.id(), entry.tableUuid(), entry.location(), caller.name(),
        clock.instant()));
  }

  /** {@code entry} is the entry under its new identifier. */
  void renamed(List<String> previousId, TableEntry entry, Principal caller) {
    publish(TableEvent.renamed(previousId, entry.id(), entry.tableUuid(), entry.location(), caller.name(),
        clock.instant()));
  }

  private void publish(TableEvent event) {
    try {
      publisher.publish(event).whenComplete((ok, error) -> {
        if (error != null) {
          LOG.warn("table event {} ({} {}) not published; the catalog change stands: {}", event.id(),
              event.type().wireName(), event.tableKey(), error.getMessage());
        }
      });
    } catch (RuntimeException e) {
      LOG.warn("table event {} ({} {}) not published; the catalog change stands", event.id(),
          event.type().wireName(), event.tableKey(), e);
    }
  }
}
