package dev.lancecommit.events;

import dev.lancecommit.config.Config;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes {@link TableEvent}s as structured-mode JSON CloudEvents to the commit event topic, key = table id joined
 * with {@code $} (so a table's catalog changes and commits share a partition and keep their relative order).
 *
 * <p>Producer settings are those of {@link KafkaCommitEventPublisher} (idempotent, acks=all, linger 0, delivery
 * bounded by the publish timeout). Sends run on one thread of the publisher's own, so {@link #publish} never blocks
 * the caller, even while Kafka is unreachable (the producer may then block up to the timeout fetching metadata).
 */
public final class KafkaTableEventPublisher implements TableEventPublisher {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaTableEventPublisher.class);

  private final String topic;
  private final Duration publishTimeout;
  private final TableEvents events;
  private final Producer<String, byte[]> producer;
  private final ExecutorService sender;
  private final AtomicBoolean closed = new AtomicBoolean();

  private KafkaTableEventPublisher(Builder builder) {
    Config settings = builder.settings();
    this.topic = settings.get(EventPublisherBuilder.TOPIC);
    this.publishTimeout = settings.get(EventPublisherBuilder.PUBLISH_TIMEOUT_MS);
    this.events = new TableEvents(URI.create(settings.get(EventPublisherBuilder.SOURCE).trim()));
    this.producer = new KafkaProducer<>(EventProducers.properties(settings.get(EventPublisherBuilder.BOOTSTRAP_SERVERS),
        "lance-table-events", publishTimeout, builder.producerProperties));
    this.sender = Executors.newSingleThreadExecutor(runnable -> {
      Thread thread = new Thread(runnable, "lance-table-events-sender");
      thread.setDaemon(true);
      return thread;
    });
  }

  public static Builder builder(String bootstrapServers) {
    return new Builder(bootstrapServers);
  }

  public String topic() {
    return topic;
  }

  @Override
  public CompletableFuture<Void> publish(TableEvent event) {
    Objects.requireNonNull(event, "event");
    CompletableFuture<Void> result = new CompletableFuture<>();
    if (closed.get()) {
      result.completeExceptionally(failure(event, "publisher is closed", null));
      return result;
    }
    ProducerRecord<String, byte[]> record;
    try {
      record = new ProducerRecord<>(topic, event.tableKey(), events.toStructuredJson(event));
      record.headers().add(KafkaCommitEventPublisher.CONTENT_TYPE_HEADER, CommitEvents.STRUCTURED_CONTENT_TYPE.getBytes(StandardCharsets.UTF_8));
    } catch (RuntimeException e) {
      result.completeExceptionally(failure(event, "could not encode event", e));
      return result;
    }
    try {
      sender.execute(() -> send(event, record, result));
    } catch (RejectedExecutionException e) {
      result.completeExceptionally(failure(event, "publisher is closed", e));
    }
    return result;
  }

  private void send(TableEvent event, ProducerRecord<String, byte[]> record, CompletableFuture<Void> result) {
    try {
      producer.send(record, (metadata, error) -> {
        if (error == null) {
          result.complete(null);
        } else {
          result.completeExceptionally(failure(event, "not acknowledged by Kafka", error));
        }
      });
    } catch (RuntimeException e) {
      result.completeExceptionally(failure(event, "could not be handed to Kafka", e));
    }
  }

  private TableEventPublishException failure(TableEvent event, String why, Throwable cause) {
    return new TableEventPublishException(event.id(),
        "table event " + event.id() + " (" + event.type().wireName() + " " + event.tableKey() + ", topic " + topic
            + ") " + why + (cause == null ? "" : ": " + cause),
        cause);
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    sender.shutdown();
    try {
      if (!sender.awaitTermination(publishTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn("table event sender did not drain within {}", publishTimeout);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    producer.close(publishTimeout);
  }

  /** Builder; every setting has a default except the bootstrap servers. */
  public static final class Builder extends EventPublisherBuilder<Builder> {
    private Builder(String bootstrapServers) {
      super(bootstrapServers);
    }

    @Override
    Builder self() {
      return this;
    }

    public KafkaTableEventPublisher build() {
      return new KafkaTableEventPublisher(this);
    }
  }
}
