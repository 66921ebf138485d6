package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.auth.Principal;
import dev.lancecommit.coordinator.namespace.TableEntry;
import dev.lancecommit.coordinator.publication.TableEventIntents;
import dev.lancecommit.events.TableEvent;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The table events of catalog changes. A change is announced before it is made ({@link #announce}, blocking: the
 * coordinator's announcements are durable, so a process dying right after the change still leaves its event to be
 * published); once the change is made its event is published without waiting ({@code declared}, ...): a publish that
 * fails (Kafka down) is logged and the request still succeeds, the event is kept and sent again later
 * ({@code DurableTableEvents}). A refused change withdraws its announcement ({@link #made}).
 */
final class TableEventNotifier {
  private static final Logger LOG = LoggerFactory.getLogger(TableEventNotifier.class);

  private final TableEventIntents intents;
  private final Clock clock;

  TableEventNotifier(TableEventIntents intents, Clock clock) {
    this.intents = Objects.requireNonNull(intents, "intents");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** Announces a change of table {@code id} about to be made; blocking. {@code previousId} only for RENAMED. */
  TableEventIntents.Intent announce(TableEvent.Type type, List<String> id, List<String> previousId,
      Principal caller) {
    return intents.announce(type, id, previousId, caller.name(), clock.instant().truncatedTo(ChronoUnit.MILLIS));
  }

  /** Makes the announced change: withdraws the announcement when {@code change} throws. */
  static <T> T made(TableEventIntents.Intent intent, Supplier<T> change) {
    try {
      return change.get();
    } catch (RuntimeException e) {
      intent.abandon();
      throw e;
    }
  }

  void declared(TableEntry entry, Principal caller, TableEventIntents.Intent intent) {
    publish(intent, TableEvent.of(TableEvent.Type.DECLARED, entry.id(), entry.tableUuid(), entry.location(),
        caller.name(), intent.time()));
  }

  void registered(TableEntry entry, Principal caller, TableEventIntents.Intent intent) {
    publish(intent, TableEvent.of(TableEvent.Type.REGISTERED, entry.id(), entry.tableUuid(), entry.location(),
        caller.name(), intent.time()));
  }

  /** {@code entry} is the entry as it was before it was removed. */
  void deregistered(TableEntry entry, Principal caller, TableEventIntents.Intent intent) {
    publish(intent, TableEvent.of(TableEvent.Type.DEREGISTERED, entry.id(), entry.tableUuid(), entry.location(),
        caller.name(), intent.time()));
  }

  /** {@code entry} is the entry as it was before it was removed. */
  void dropped(TableEntry entry, Principal caller, TableEventIntents.Intent intent) {
    publish(intent, TableEvent.of(TableEvent.Type.DROPPED, entry.id(), entry.tableUuid(), entry.location(),
        caller.name(), intent.time()));
  }

  /** {@code entry} is the entry under its new identifier. */
  void renamed(List<String> previousId, TableEntry entry, Principal caller, TableEventIntents.Intent intent) {
    publish(intent, TableEvent.renamed(previousId, entry.id(), entry.tableUuid(), entry.location(), caller.name(),
        intent.time()));
  }

  private void publish(TableEventIntents.Intent intent, TableEvent event) {
    try {
      intent.publish(event).whenComplete((ok, error) -> {
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
