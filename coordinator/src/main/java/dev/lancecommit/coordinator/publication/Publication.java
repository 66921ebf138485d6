package dev.lancecommit.coordinator.publication;

import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.events.CommitEventPublisher;
import java.time.Clock;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Event publication as the coordinator runs it: the progress topic, the outbox commits publish into, and the
 * reconciler that publishes what the outbox never saw. {@link #outbox()} is the {@link CommitEventPublisher} to hand
 * to the commit service. Close it after the commit service and the REST server are stopped.
 */
public final class Publication implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Publication.class);

  private final PublicationProgress progress;
  private final EventOutbox outbox;
  private final Reconciler reconciler;

  private Publication(PublicationProgress progress, EventOutbox outbox, Reconciler reconciler) {
    this.progress = progress;
    this.outbox = outbox;
    this.reconciler = reconciler;
  }

  /**
   * Loads the progress (creating the compacted progress topic if needed), then starts the outbox and the reconciler,
   * whose first pass runs at once in the background.
   *
   * @param kafka publishes one event to the events topic; owned by the publication from now on (closed with it),
   *     also when this method fails
   * @param stores resolves a table location to its store, e.g. {@code ObjectStores::resolve}
   * @throws IllegalStateException if Kafka does not answer within {@link PublicationConfig#kafkaTimeout()}
   */
  public static Publication start(PublicationConfig config, String bootstrap, CommitEventPublisher kafka,
      Function<String, StorageLocation> stores, TableSource tables) {
    PublicationProgress progress;
    try {
      progress = PublicationProgress.open(bootstrap, config);
    } catch (RuntimeException e) {
      kafka.close();
      throw e;
    }
    EventOutbox outbox = new EventOutbox(kafka, progress, config);
    Reconciler reconciler = new Reconciler(outbox, tables, stores, config, Clock.systemUTC()).start();
    LOG.info("Publishing commit events through an outbox (progress topic {}, reconciling every {} ms)",
        config.progressTopic(), config.reconcileInterval().toMillis());
    return new Publication(progress, outbox, reconciler);
  }

  /** The publisher commits publish into; it never waits for Kafka. */
  public EventOutbox outbox() {
    return outbox;
  }

  public Reconciler reconciler() {
    return reconciler;
  }

  public PublicationProgress progress() {
    return progress;
  }

  /** Stops reconciling, drains the outbox (bounded), records the progress and releases Kafka. */
  @Override
  public void close() {
    try {
      reconciler.close();
    } finally {
      outbox.close();
    }
  }

  /** Dies on the spot, as a killed process would: nothing more is published or recorded (for tests). */
  public void halt() {
    reconciler.close();
    outbox.halt();
  }
}
