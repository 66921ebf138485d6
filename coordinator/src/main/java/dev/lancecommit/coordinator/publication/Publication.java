package dev.lancecommit.coordinator.publication;

import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.events.CommitEventPublisher;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Predicate;
import dev.lancecommit.coordinator.table.TableRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Event publication as the coordinator runs it: the progress topic, the outbox commits publish into, and the
 * reconciler that publishes what the outbox never saw. {@link #outbox()} is the
 * {@link dev.lancecommit.coordinator.commit.CommitEventSink} to hand to the commit service. Close it after the commit service and the REST server are stopped.
 *
 * <p>Starting never waits for Kafka, so a coordinator restarted during a Kafka outage answers commits at once. Until
 * Kafka answers, a background thread keeps trying to ensure the events topic and the progress topic and to load the
 * progress; meanwhile the outbox queues events (within its per-table bound) and sends none, because it does not
 * know yet what was published before. Once the progress is loaded ({@link #ready()}), the outbox sends every queued
 * table in version order and the reconciler runs its first pass, which publishes whatever storage holds that Kafka
 * lacks, events dropped from memory during the wait included.
 */
public final class Publication implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Publication.class);

  private final PublicationConfig config;
  private final EventOutbox outbox;
  private final Reconciler reconciler;
  private final PublicationStartup startup;
  private final Object lock = new Object();
  private boolean stopped; // guarded by lock
  private volatile PublicationProgress progress;

  private Publication(PublicationConfig config, String bootstrap, CommitEventPublisher kafka,
      Function<String, StorageLocation> stores, TableSource tables, Predicate<TableRef> publishes) {
    this.config = config;
    this.outbox = new EventOutbox(kafka, config, publishes);
    this.reconciler = new Reconciler(outbox, tables, stores, config, Clock.systemUTC(), publishes);
    this.startup = new PublicationStartup(bootstrap, config, this::onKafkaReady);
  }

  /**
   * Starts the outbox at once and, in the background, gets Kafka ready: creates the events topic and the compacted
   * progress topic if needed and loads the progress, retrying until Kafka answers; then the outbox starts sending
   * and the reconciler starts (its first pass at once). Returns without touching Kafka.
   *
   * @param kafka publishes one event to the events topic; owned by the publication from now on (closed with it)
   * @param stores resolves a table location to its store, e.g. {@code ObjectStores::resolve}
   */
  public static Publication start(PublicationConfig config, String bootstrap, CommitEventPublisher kafka,
      Function<String, StorageLocation> stores, TableSource tables) {
    return start(config, bootstrap, kafka, stores, tables, table -> true);
  }

  /**
   * {@link #start(PublicationConfig, String, CommitEventPublisher, Function, TableSource)} for the tables
   * {@code publishes} selects only (cluster mode: the tables of the partitions this instance owns, as that changes).
   */
  public static Publication start(PublicationConfig config, String bootstrap, CommitEventPublisher kafka,
      Function<String, StorageLocation> stores, TableSource tables, Predicate<TableRef> publishes) {
    Publication publication = new Publication(config, bootstrap, kafka, stores, tables, publishes);
    publication.startup.start();
    LOG.info("Publishing commit events to {} through an outbox (progress topic {}, reconciling every {} ms); "
        + "sending starts once Kafka answers", config.eventsTopic(), config.progressTopic(),
        config.reconcileInterval().toMillis());
    return publication;
  }

  private void onKafkaReady(PublicationProgress loaded) {
    synchronized (lock) {
      if (stopped) {
        loaded.halt(); // nothing was recorded through it: there is nothing to write
        return;
      }
      outbox.onGap(reconciler::reconcileSoon); // before the outbox pumps, so no gap it finds goes unheard
      if (!outbox.begin(loaded)) {
        loaded.halt();
        return;
      }
      progress = loaded;
      reconciler.start();
    }
    LOG.info("Kafka answered: publishing the events queued meanwhile ({}), progress of {} tables loaded",
        outbox.backlog(), loaded.recordedAtStart().size());
  }

  /**
   * Cluster mode, partitions are handed over: waits (at most {@code timeout}) until the queued events of the tables
   * {@code which} selects are published, records the progress, then forgets those tables, so their new owner starts
   * from a current progress and nothing of theirs is sent from here any more.
   */
  public void release(Predicate<TableRef> which, Duration timeout) {
    boolean published = outbox.awaitPublished(which, timeout);
    PublicationProgress current = progress;
    if (current != null) {
      try {
        current.flush();
      } catch (RuntimeException e) {
        LOG.warn("Could not record the progress of the tables handed over; their new owner republishes a few "
            + "events: {}", e.toString());
      }
    }
    int dropped = outbox.forget(which);
    if (!published || dropped > 0) {
      LOG.warn("{} events of tables handed over were not published in time; their new owner's reconciler "
          + "publishes them", dropped);
    }
  }

  /** Cluster mode, partitions were lost: forgets their tables at once (their new owner publishes what is missing). */
  public void drop(Predicate<TableRef> which) {
    outbox.forget(which);
  }

  /**
   * Cluster mode, partitions were taken over: in the background, reads the progress their previous owner recorded
   * and publishes whatever of their tables' versions has no event yet.
   */
  public void adopt(Predicate<TableRef> which) {
    reconciler.reconcileSoon(which, () -> {
      PublicationProgress current = progress;
      if (current != null) {
        current.refresh();
        outbox.resync(which); // queues made before the refresh move on to what it says
      }
    });
  }

  /** The sink commits hand their events to; it only enqueues, never waits for Kafka. */
  public EventOutbox outbox() {
    return outbox;
  }

  public Reconciler reconciler() {
    return reconciler;
  }

  /** The progress, once Kafka answered. */
  public Optional<PublicationProgress> progress() {
    return Optional.ofNullable(progress);
  }

  /** True once Kafka answered, the progress is loaded and events are being sent. */
  public boolean ready() {
    return outbox.ready();
  }

  /** Why the last attempt to reach Kafka failed, while publication is not ready yet. */
  public Optional<String> startupProblem() {
    return ready() ? Optional.empty() : startup.lastFailure();
  }

  /** Completes when {@link #ready()} becomes true; fails if the publication is closed or halted before. */
  public CompletableFuture<Void> whenReady() {
    return outbox.whenReady();
  }

  /**
   * Stops reconciling, drains the outbox (bounded by {@link PublicationConfig#shutdownDrain()}), records the progress
   * and releases Kafka. While Kafka has not answered yet it stops trying (waiting at most the drain bound for an
   * attempt under way) and releases Kafka; the queued events are left to the reconciler of the next start.
   */
  @Override
  public void close() {
    synchronized (lock) {
      stopped = true;
    }
    try {
      startup.close(config.shutdownDrain());
      reconciler.close();
    } finally {
      outbox.close();
    }
  }

  /** Dies on the spot, as a killed process would: nothing more is published or recorded (for tests). */
  public void halt() {
    synchronized (lock) {
      stopped = true;
    }
    startup.close(Duration.ZERO);
    reconciler.close();
    outbox.halt();
  }
}
