package dev.lancecommit.coordinator.publication;

import dev.lancecommit.coordinator.storage.ObjectInfo;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.events.InvalidTableEventException;
import dev.lancecommit.events.TableEvent;
import dev.lancecommit.events.TableEventPublishException;
import dev.lancecommit.events.TableEventPublisher;
import dev.lancecommit.events.TableEvents;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Table events that are not lost when Kafka is away: each event is first written to the warehouse under
 * {@code _catalog/table-events/pending/} and the file is deleted once Kafka acknowledged the event. Events left
 * pending (Kafka down, the events topic not set up yet, the process killed before the acknowledgement) are sent
 * again, with the same id so consumers drop duplicates, when publication becomes ready and then every
 * {@code period}. A republished event may arrive after a later event of the same table; its time says where it
 * belongs.
 *
 * <p>{@link #publish} does not block: the file is written on {@code worker}.
 */
public final class DurableTableEvents implements TableEventPublisher {
  private static final Logger LOG = LoggerFactory.getLogger(DurableTableEvents.class);
  static final String PENDING_DIR = "_catalog/table-events/pending";

  private final TableEventPublisher kafka;
  private final StorageLocation warehouse;
  private final BooleanSupplier topicReady;
  private final Executor worker;
  private final ScheduledExecutorService timer;
  private final AtomicBoolean republishing = new AtomicBoolean();

  /**
   * @param kafka sends one event (owned from now on: closed with this)
   * @param topicReady whether the events topic is set up (publication ready); events wait in files until then
   * @param period how often pending events are sent again
   */
  public DurableTableEvents(TableEventPublisher kafka, StorageLocation warehouse, BooleanSupplier topicReady,
      Executor worker, Duration period) {
    this.kafka = Objects.requireNonNull(kafka, "kafka");
    this.warehouse = Objects.requireNonNull(warehouse, "warehouse");
    this.topicReady = Objects.requireNonNull(topicReady, "topicReady");
    this.worker = Objects.requireNonNull(worker, "worker");
    this.timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "lance-commit-table-events");
      thread.setDaemon(true);
      return thread;
    });
    long periodMs = Math.max(1, period.toMillis());
    timer.scheduleWithFixedDelay(this::republishPendingQuietly, periodMs, periodMs, TimeUnit.MILLISECONDS);
  }

  @Override
  public CompletableFuture<Void> publish(TableEvent event) {
    Objects.requireNonNull(event, "event");
    return CompletableFuture.runAsync(() -> warehouse.store().put(pendingKey(event),
            TableEvents.defaults().toStructuredJson(event)), worker)
        .thenCompose(written -> send(event));
  }

  /**
   * Sends every pending event again (blocking); each file is deleted once its event is acknowledged.
   *
   * @return how many pending events were acknowledged
   */
  public int republishPending() {
    if (!topicReady.getAsBoolean() || !republishing.compareAndSet(false, true)) {
      return 0;
    }
    int sent = 0;
    try {
      for (ObjectInfo file : warehouse.store().list(warehouse.key(PENDING_DIR))) {
        TableEvent event;
        try {
          byte[] bytes = warehouse.store().get(file.key()).orElse(null);
          if (bytes == null) {
            continue; // acknowledged and deleted meanwhile
          }
          event = TableEvents.fromStructuredJson(bytes);
        } catch (InvalidTableEventException e) {
          LOG.warn("Pending table event {} cannot be read, left in place: {}", file.key(), e.getMessage());
          continue;
        }
        try {
          send(event).join();
          sent++;
        } catch (RuntimeException e) {
          LOG.debug("Pending table event {} not sent yet: {}", event.id(), e.toString());
          break; // Kafka is not taking events: the next pass tries again
        }
      }
    } finally {
      republishing.set(false);
    }
    if (sent > 0) {
      LOG.info("Sent {} table events that had been waiting for Kafka", sent);
    }
    return sent;
  }

  private void republishPendingQuietly() {
    try {
      republishPending();
    } catch (RuntimeException e) {
      LOG.warn("Could not send pending table events: {}", e.toString());
    }
  }

  private CompletableFuture<Void> send(TableEvent event) {
    if (!topicReady.getAsBoolean()) {
      return CompletableFuture.failedFuture(new TableEventPublishException(event.id(), "table event " + event.id()
          + " waits for the events topic (Kafka has not answered since start); it is sent once it is set up", null));
    }
    return kafka.publish(event).thenRunAsync(() -> warehouse.store().delete(pendingKey(event)), worker);
  }

  private String pendingKey(TableEvent event) {
    return warehouse.key(PENDING_DIR + "/" + event.id().replaceAll("[^A-Za-z0-9._-]", "_") + ".json");
  }

  /** Stops resending; pending events stay in their files for the next start. */
  @Override
  public void close() {
    timer.shutdownNow();
    kafka.close();
  }
}
