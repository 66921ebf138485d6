package dev.lancecommit.events;

import dev.lancecommit.config.Config;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes commit events to Kafka as structured-mode JSON CloudEvents.
 *
 * <ul>
 *   <li>Record key: the table id joined with {@code $}, so all events of a table land, in order, in one partition.
 *   <li>Record value: the CloudEvent in structured JSON mode; header {@code content-type:
 *       application/cloudevents+json; charset=UTF-8} (the CloudEvents Kafka binding's structured mode).
 *   <li>Producer: idempotent, {@code acks=all}; {@code delivery.timeout.ms} and {@code max.block.ms} equal the publish
 *       timeout, so a Kafka outage fails the future instead of hanging.
 * </ul>
 *
 * <p>Threads: {@link #publish} hands the record to one sender thread owned by the publisher ({@code send()} may block
 * on metadata) and returns at once. Events are sent in {@code publish} call order. The future completes on the Kafka
 * producer's I/O thread, or on the publisher's timer thread when the publish timeout passes first: callers must not
 * run blocking work in non-async continuations of it.
 */
public final class KafkaCommitEventPublisher implements CommitEventPublisher {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaCommitEventPublisher.class);

  public static final String DEFAULT_TOPIC = "lance.commits";
  public static final String CONTENT_TYPE_HEADER = "content-type";

  private final String topic;
  private final Duration publishTimeout;
  private final CommitEvents events;
  private final Producer<String, byte[]> producer;
  private final ExecutorService sender;
  private final ScheduledThreadPoolExecutor timer;
  private final Map<CompletableFuture<Void>, CommitEvent> pending = new ConcurrentHashMap<>();
  private final AtomicBoolean closed = new AtomicBoolean();

  private KafkaCommitEventPublisher(Builder builder) {
    Config settings = builder.settings();
    this.topic = settings.get(EventPublisherBuilder.TOPIC);
    this.publishTimeout = settings.get(EventPublisherBuilder.PUBLISH_TIMEOUT_MS);
    this.events = new CommitEvents(URI.create(settings.get(EventPublisherBuilder.SOURCE).trim()));
    this.producer = new KafkaProducer<>(EventProducers.properties(settings.get(EventPublisherBuilder.BOOTSTRAP_SERVERS),
        "lance-commit-events", publishTimeout, builder.producerProperties));
    this.sender =
        new ThreadPoolExecutor(
            1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), daemon("lance-commit-events-sender"));
    this.timer = new ScheduledThreadPoolExecutor(1, daemon("lance-commit-events-timer"));
    this.timer.setRemoveOnCancelPolicy(true);
  }

  public static Builder builder(String bootstrapServers) {
    return new Builder(bootstrapServers);
  }

  /**
   * Builds a publisher from flat configuration: the keys of {@link EventPublisherBuilder#keys()} (bootstrap.servers
   * required; topic, source, publish.timeout.ms, producer.* pass-through). Unknown keys and invalid values are
   * refused naming the key.
   */
  public static KafkaCommitEventPublisher fromConfig(Map<String, String> config) {
    return new Builder(config.getOrDefault(EventPublisherBuilder.BOOTSTRAP_SERVERS.name(), "")).configure(config)
        .build();
  }

  public String topic() {
    return topic;
  }

  public Duration publishTimeout() {
    return publishTimeout;
  }

  public URI source() {
    return events.source();
  }

  @Override
  public CompletableFuture<Void> publish(CommitEvent event) {
    Objects.requireNonNull(event, "event");
    CompletableFuture<Void> result = new CompletableFuture<>();
    if (closed.get()) {
      result.completeExceptionally(failure(event, "publisher is closed", null));
      return result;
    }
    ProducerRecord<String, byte[]> record;
    try {
      record = new ProducerRecord<>(topic, event.tableKey(), events.toStructuredJson(event));
      record.headers().add(CONTENT_TYPE_HEADER, CommitEvents.STRUCTURED_CONTENT_TYPE.getBytes(StandardCharsets.UTF_8));
    } catch (RuntimeException e) {
      result.completeExceptionally(failure(event, "could not encode event", e));
      return result;
    }
    pending.put(result, event);
    try {
      ScheduledFuture<?> deadline =
          timer.schedule(
              () ->
                  result.completeExceptionally(
                      failure(
                          event,
                          "not acknowledged within " + publishTimeout.toMillis() + " ms",
                          new TimeoutException())),
              publishTimeout.toMillis(),
              TimeUnit.MILLISECONDS);
      result.whenComplete(
          (ignored, error) -> {
            deadline.cancel(false);
            pending.remove(result);
          });
      sender.execute(() -> send(event, record, result));
    } catch (RejectedExecutionException e) {
      pending.remove(result);
      result.completeExceptionally(failure(event, "publisher is closed", e));
    }
    return result;
  }

  private void send(CommitEvent event, ProducerRecord<String, byte[]> record, CompletableFuture<Void> result) {
    if (result.isDone()) {
      return; // timed out while queued behind a blocked send: do not deliver late
    }
    try {
      producer.send(
          record,
          (metadata, error) -> {
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

  private CommitEventPublishException failure(CommitEvent event, String why, Throwable cause) {
    String message =
        "commit event "
            + event.id()
            + " (table "
            + event.tableKey()
            + " version "
            + event.version()
            + ", topic "
            + topic
            + ") "
            + why
            + (cause == null || cause instanceof TimeoutException && cause.getMessage() == null
                ? ""
                : ": " + cause);
    return new CommitEventPublishException(event.id(), message, cause);
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    sender.shutdown();
    try {
      if (!sender.awaitTermination(publishTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn("commit event sender did not drain within {}", publishTimeout);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    producer.close(publishTimeout);
    timer.shutdownNow();
    pending.forEach(
        (future, event) -> future.completeExceptionally(failure(event, "publisher closed before acknowledgement", null)));
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    };
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

    public KafkaCommitEventPublisher build() {
      return new KafkaCommitEventPublisher(this);
    }
  }
}
