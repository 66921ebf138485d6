package dev.lancecommit.coordinator.publication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.coordinator.storage.LocalObjectStore;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.events.TableEvent;
import dev.lancecommit.events.TableEventPublishException;
import dev.lancecommit.events.TableEventPublisher;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
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
