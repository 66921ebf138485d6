package dev.lancecommit.coordinator.publication;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.namespace.TableChange;
import dev.lancecommit.coordinator.storage.ObjectInfo;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.events.InvalidTableEventException;
import dev.lancecommit.events.TableEvent;
import dev.lancecommit.events.TableEventPublishException;
import dev.lancecommit.events.TableEventPublisher;
import dev.lancecommit.events.TableEvents;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
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
public final class DurableTableEvents implements TableEventPublisher, TableEventIntents {
  private static final Logger LOG = LoggerFactory.getLogger(DurableTableEvents.class);
  private static final ObjectMapper MAPPER = new ObjectMapper()
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
  static final String PENDING_DIR = "_catalog/table-events/pending";
  static final String INTENTS_DIR = "_catalog/table-events/intents";
  /**
   * An announcement younger than this may belong to a request still under way; older ones are resolved against the
   * catalog.
   */
  static final Duration INTENT_GRACE = Duration.ofSeconds(60);

  /** An announced catalog change, as written to the warehouse. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Announcement(
      @JsonProperty("type") String type,
      @JsonProperty("table_id") List<String> tableId,
      @JsonProperty("previous_table_id") List<String> previousTableId,
      @JsonProperty("actor") String actor,
      @JsonProperty("time") String time) {}

  private final TableEventPublisher kafka;
  private final StorageLocation warehouse;
  private final BooleanSupplier topicReady;
  private final Executor worker;
  private final ScheduledExecutorService timer;
  private final AtomicBoolean republishing = new AtomicBoolean();
  private final Predicate<String> publishes;
  private final Catalog catalog;
  private final Clock clock;

  /**
   * @param kafka sends one event (owned from now on: closed with this)
   * @param topicReady whether the events topic is set up (publication ready); events wait in files until then
   * @param period how often pending events are sent again
   */
  public DurableTableEvents(TableEventPublisher kafka, StorageLocation warehouse, BooleanSupplier topicReady,
      Executor worker, Duration period) {
    this(kafka, warehouse, topicReady, worker, period, null, tableKey -> true, Clock.systemUTC());
  }

  /**
   * @param catalog where announced changes left behind are looked up; null leaves them alone
   * @param publishes the tables (by id joined with {@code $}) whose pending events this instance sends again
   *     (cluster mode: those it owns, so one instance at a time sends a table's events); the others are left to
   *     their tables' owners
   */
  public DurableTableEvents(TableEventPublisher kafka, StorageLocation warehouse, BooleanSupplier topicReady,
      Executor worker, Duration period, Catalog catalog, Predicate<String> publishes, Clock clock) {
    this.publishes = Objects.requireNonNull(publishes, "publishes");
    this.catalog = catalog;
    this.clock = Objects.requireNonNull(clock, "clock");
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
      resolveAnnouncements();
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
        if (!publishes.test(event.tableKey())) {
          continue; // another instance owns the table and sends its pending events
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

  @Override
  public Intent announce(TableEvent.Type type, List<String> tableId, List<String> previousId, String actor,
      Instant time) {
    String key = warehouse.key(INTENTS_DIR + "/" + time.toEpochMilli() + "-" + UUID.randomUUID() + ".json");
    Announcement announcement = new Announcement(type.wireName(), List.copyOf(tableId),
        previousId == null ? null : List.copyOf(previousId), actor, time.toString());
    try {
      warehouse.store().put(key, MAPPER.writeValueAsBytes(announcement));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Intent() {
      @Override
      public Instant time() {
        return time;
      }

      @Override
      public CompletableFuture<Void> publish(TableEvent event) {
        return CompletableFuture.runAsync(() -> {
          warehouse.store().put(pendingKey(event), TableEvents.defaults().toStructuredJson(event));
          deleteQuietly(key); // the pending event carries on from here
        }, worker).thenCompose(written -> send(event));
      }

      @Override
      public void abandon() {
        CompletableFuture.runAsync(() -> deleteQuietly(key), worker);
      }
    };
  }

  /**
   * Announcements left behind by a process that died between announcing a change and keeping its event: the
   * catalog says whether the change was made (then its event is kept as pending, with the announced time, so its id
   * is the one the live event would have had) or not (then the announcement is dropped).
   */
  void resolveAnnouncements() {
    if (catalog == null) {
      return;
    }
    long now = clock.millis();
    for (ObjectInfo file : warehouse.store().list(warehouse.key(INTENTS_DIR))) {
      String name = file.key().substring(file.key().lastIndexOf('/') + 1);
      long announcedAt;
      try {
        announcedAt = Long.parseLong(name.substring(0, name.indexOf('-')));
      } catch (RuntimeException e) {
        continue; // not one of ours
      }
      if (now - announcedAt < INTENT_GRACE.toMillis()) {
        continue; // its request may still be under way
      }
      try {
        resolve(file.key());
      } catch (RuntimeException e) {
        LOG.warn("Announced table change {} not resolved yet: {}", file.key(), e.toString());
      }
    }
  }

  private void resolve(String key) {
    byte[] bytes = warehouse.store().get(key).orElse(null);
    if (bytes == null) {
      return;
    }
    Announcement announced;
    try {
      announced = MAPPER.readValue(bytes, Announcement.class);
    } catch (IOException e) {
      LOG.warn("Announced table change {} cannot be read, left in place: {}", key, e.getMessage());
      return;
    }
    if (!publishes.test(String.join("$", announced.tableId()))) {
      return; // another instance owns the table
    }
    TableEvent.Type type = TableEvent.Type.valueOf(announced.type().toUpperCase(java.util.Locale.ROOT));
    Instant time = Instant.parse(announced.time());
    Optional<TableChange> made = catalog.tableChangesSince(announced.tableId(), time).stream()
        .filter(change -> madeBy(type, announced, change)).findFirst();
    if (made.isEmpty()) {
      LOG.info("Announced {} of {} was never made; dropping the announcement", announced.type(),
          announced.tableId());
      deleteQuietly(key);
      return;
    }
    TableChange change = made.get();
    TableEvent event = type == TableEvent.Type.RENAMED
        ? TableEvent.renamed(announced.previousTableId(), change.id(), change.tableUuid(), change.location(),
            announced.actor(), time)
        : TableEvent.of(type, change.id(), change.tableUuid(), change.location(), announced.actor(), time);
    warehouse.store().put(pendingKey(event), TableEvents.defaults().toStructuredJson(event));
    deleteQuietly(key);
    LOG.info("Recovered the {} event of {} from its announcement", announced.type(), announced.tableId());
  }

  private static boolean madeBy(TableEvent.Type type, Announcement announced, TableChange change) {
    if (type == TableEvent.Type.RENAMED) {
      return change.renamedFrom().filter(from -> from.equals(announced.previousTableId())).isPresent();
    }
    return change.status().equals(type.wireName());
  }

  private void deleteQuietly(String key) {
    try {
      warehouse.store().delete(key);
    } catch (RuntimeException e) {
      LOG.debug("Could not delete {}: {}", key, e.toString());
    }
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
