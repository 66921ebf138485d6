package dev.lancecommit.coordinator.publication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.namespace.CreateMode;
import dev.lancecommit.coordinator.namespace.TableEntry;
import dev.lancecommit.coordinator.storage.LocalObjectStore;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.events.TableEvent;
import dev.lancecommit.events.TableEventPublishException;
import dev.lancecommit.events.TableEventPublisher;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Table events survive a Kafka outage and a restart: they wait in the warehouse until Kafka acknowledges them. */
class DurableTableEventsTest {
  @TempDir Path dir;
  private LocalObjectStore store;
  private StorageLocation warehouse;
  private final FakeKafka kafka = new FakeKafka();
  private final AtomicBoolean topicReady = new AtomicBoolean(false);

  @BeforeEach
  void setUp() {
    store = new LocalObjectStore(dir);
    warehouse = new StorageLocation(store, "wh");
  }

  @AfterEach
  void tearDown() {
    store.close();
  }

  @Test
  void eventsWaitInTheWarehouseUntilKafkaAcknowledgesThemAndSurviveARestart() {
    DurableTableEvents first = durable();
    TableEvent declared = event(TableEvent.Type.DECLARED, 1);
    TableEvent dropped = event(TableEvent.Type.DROPPED, 2);

    // the events topic is not set up yet: nothing is sent, both wait
    assertThatThrownBy(() -> first.publish(declared).join()).hasCauseInstanceOf(TableEventPublishException.class);
    topicReady.set(true);
    kafka.down.set(true);
    assertThatThrownBy(() -> first.publish(dropped).join()).hasMessageContaining("Kafka is down");
    assertThat(pendingFiles()).hasSize(2);
    assertThat(kafka.acknowledged).isEmpty();
    first.close(); // the process goes away; the files stay

    kafka.down.set(false);
    DurableTableEvents second = durable();
    assertThat(second.republishPending()).isEqualTo(2);
    assertThat(kafka.acknowledged).extracting(TableEvent::id).containsExactlyInAnyOrder(declared.id(), dropped.id());
    assertThat(pendingFiles()).isEmpty();
    assertThat(second.republishPending()).isZero();
    second.close();
  }

  @Test
  void anAcknowledgedEventLeavesNoFileBehind() {
    topicReady.set(true);
    DurableTableEvents events = durable();
    TableEvent declared = event(TableEvent.Type.DECLARED, 3);
    events.publish(declared).join();
    assertThat(kafka.acknowledged).containsExactly(declared);
    assertThat(pendingFiles()).isEmpty();
    events.close();
  }

  @Test
  void aChangeMadeWhoseEventWasNeverKeptIsRecoveredFromItsAnnouncement() {
    topicReady.set(true);
    Catalog catalog = new Catalog(warehouse);
    catalog.createNamespace(List.of("ns"), CreateMode.CREATE, Map.of());
    Instant announcedAt = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    durable(catalog, Clock.systemUTC()).announce(TableEvent.Type.DECLARED, List.of("ns", "t"), null, "alice",
        announcedAt);
    TableEntry declared = catalog.declareTable(List.of("ns", "t"), Optional.empty(), Map.of());
    // the process dies here: the catalog changed, the event was never kept as pending nor sent
    assertThat(intentFiles()).hasSize(1);

    DurableTableEvents fresh = durable(catalog, Clock.systemUTC());
    assertThat(fresh.republishPending()).isZero(); // a young announcement may still belong to a request under way
    assertThat(intentFiles()).hasSize(1);

    DurableTableEvents later = durable(catalog, Clock.offset(Clock.systemUTC(), Duration.ofMinutes(2)));
    assertThat(later.republishPending()).isEqualTo(1);
    TableEvent expected = TableEvent.of(TableEvent.Type.DECLARED, List.of("ns", "t"), declared.tableUuid(),
        declared.location(), "alice", announcedAt);
    assertThat(kafka.acknowledged).containsExactly(expected); // the id the live event would have had
    assertThat(intentFiles()).isEmpty();
    assertThat(pendingFiles()).isEmpty();
  }

  @Test
  void aRenameIsRecoveredUnderItsNewNameAndAChangeNeverMadeIsForgotten() {
    topicReady.set(true);
    Catalog catalog = new Catalog(warehouse);
    catalog.createNamespace(List.of("ns"), CreateMode.CREATE, Map.of());
    TableEntry before = catalog.declareTable(List.of("ns", "old"), Optional.empty(), Map.of());
    DurableTableEvents events = durable(catalog, Clock.systemUTC());
    Instant at = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    events.announce(TableEvent.Type.RENAMED, List.of("ns", "new"), List.of("ns", "old"), "bob", at);
    catalog.renameTable(List.of("ns", "old"), List.of("ns", "new"));
    events.announce(TableEvent.Type.DROPPED, List.of("ns", "other"), null, "bob", at); // refused, never made

    DurableTableEvents later = durable(catalog, Clock.offset(Clock.systemUTC(), Duration.ofMinutes(2)));
    assertThat(later.republishPending()).isEqualTo(1);
    assertThat(kafka.acknowledged).containsExactly(TableEvent.renamed(List.of("ns", "old"), List.of("ns", "new"),
        before.tableUuid(), before.location(), "bob", at));
    assertThat(intentFiles()).isEmpty();
  }

  @Test
  void anAnnouncedChangeThatIsMadeIsPublishedAndLeavesNothingBehind() {
    topicReady.set(true);
    DurableTableEvents events = durable(null, Clock.systemUTC());
    Instant at = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    TableEventIntents.Intent intent = events.announce(TableEvent.Type.DROPPED, List.of("ns", "t"), null, "alice", at);
    TableEvent dropped = TableEvent.of(TableEvent.Type.DROPPED, List.of("ns", "t"), "uuid-t", "/w/ns/t.lance",
        "alice", intent.time());
    intent.publish(dropped).join();
    assertThat(kafka.acknowledged).containsExactly(dropped);
    assertThat(intentFiles()).isEmpty();
    assertThat(pendingFiles()).isEmpty();
    events.announce(TableEvent.Type.DROPPED, List.of("ns", "u"), null, "alice", at).abandon();
    assertThat(intentFiles()).isEmpty();
  }

  private DurableTableEvents durable(Catalog catalog, Clock clock) {
    return new DurableTableEvents(kafka, warehouse, topicReady::get, Runnable::run, Duration.ofHours(1), catalog,
        tableKey -> true, clock);
  }

  private List<String> intentFiles() {
    return store.list(warehouse.key(DurableTableEvents.INTENTS_DIR)).stream().map(f -> f.key()).toList();
  }

  private DurableTableEvents durable() {
    return new DurableTableEvents(kafka, warehouse, topicReady::get, Runnable::run, Duration.ofHours(1));
  }

  private List<String> pendingFiles() {
    return store.list(warehouse.key(DurableTableEvents.PENDING_DIR)).stream().map(f -> f.key()).toList();
  }

  private static TableEvent event(TableEvent.Type type, long second) {
    return TableEvent.of(type, List.of("ns", "t"), "uuid-t", "/w/ns/t.lance", "alice", Instant.ofEpochSecond(second));
  }

  private static final class FakeKafka implements TableEventPublisher {
    final AtomicBoolean down = new AtomicBoolean(false);
    final List<TableEvent> acknowledged = new CopyOnWriteArrayList<>();

    @Override
    public CompletableFuture<Void> publish(TableEvent event) {
      if (down.get()) {
        return CompletableFuture.failedFuture(new TableEventPublishException(event.id(), "Kafka is down", null));
      }
      acknowledged.add(event);
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public void close() {}
  }
}
