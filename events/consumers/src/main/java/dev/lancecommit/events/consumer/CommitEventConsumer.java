package dev.lancecommit.events.consumer;

import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.CommitEvents;
import dev.lancecommit.events.InvalidCommitEventException;
import dev.lancecommit.events.TableEvents;
import dev.lancecommit.events.tracing.Telemetry;
import io.opentelemetry.api.OpenTelemetry;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the commit event topic in a Kafka consumer group and hands each table's events to a {@link CommitHandler}
 * in version order, without duplicates, remembering progress in a {@link TableCheckpointStore}.
 *
 * <p>Guarantees, given the delivery rules of the topic (at least once, duplicates, a republished version may arrive
 * after a later one):
 *
 * <ul>
 *   <li>Per table uuid, the handler sees strictly increasing versions, each at most once per checkpoint: a version
 *       at or below the checkpoint is dropped. A version above checkpoint+1 waits for the missing ones up to
 *       {@link ConsumerOptions#gapTimeout()}, then is delivered with a warning; a skipped version that shows up later
 *       is dropped (and counted as late).
 *   <li>The checkpoint is advanced right after the handler returns; Kafka offsets are committed (manually) only up to
 *       events that were delivered and checkpointed or dropped, never past an event still waiting. So nothing read is
 *       lost across a crash or a rebalance. The one window: a crash after the handler returned and before the
 *       checkpoint was written delivers that version again on restart, so handlers should be idempotent.
 *   <li>A failing handler (or checkpoint write) is retried with backoff; later versions of that table wait behind
 *       it, other tables go on. Fetching pauses while more than {@link ConsumerOptions#maxPendingEvents()} events
 *       wait.
 *   <li>On a rebalance, offsets of revoked partitions are committed and their waiting events forgotten (the new
 *       owner reads them again); checkpoints are re-read from the store. With several consumers in one group, give
 *       them a shared store, or versions may be delivered again by the new owner of a partition.
 * </ul>
 *
 * <p>Threads: {@link #start()} runs the loop on a daemon thread of its own (or call {@link #run()} on yours); the
 * handler and the store are called on that thread only. {@link #close()} may be called from any thread.
 */
public final class CommitEventConsumer implements AutoCloseable, Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(CommitEventConsumer.class);
  private static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

  private final ConsumerOptions options;
  private final CommitHandler handler;
  private final TableCheckpointStore store;
  private final KafkaConsumer<String, byte[]> consumer;
  private final Sequencer sequencer;
  private final LongSupplier nanoClock;
  private final AtomicLong invalid = new AtomicLong();
  private final AtomicLong tableEvents = new AtomicLong();
  private final Map<TopicPartition, Long> committed = new HashMap<>();
  private final CountDownLatch finished = new CountDownLatch(1);
  private volatile boolean closing;
  private volatile boolean running;
  private volatile Throwable failure;
  private Thread thread;
  private boolean paused;

  /** A consumer that passes each event's trace context on to the handler but records no spans. */
  public CommitEventConsumer(ConsumerOptions options, TableCheckpointStore store, CommitHandler handler) {
    this(options, store, handler, Telemetry.propagatingOnly().openTelemetry());
  }

  /**
   * A consumer that runs each delivery in a CONSUMER span continuing the trace the event carries (its
   * distributed-tracing extension), current while the handler runs.
   */
  public CommitEventConsumer(ConsumerOptions options, TableCheckpointStore store, CommitHandler handler,
      OpenTelemetry openTelemetry) {
    this(options, store, handler, openTelemetry, System::nanoTime);
  }

  CommitEventConsumer(ConsumerOptions options, TableCheckpointStore store, CommitHandler handler,
      LongSupplier nanoClock) {
    this(options, store, handler, Telemetry.propagatingOnly().openTelemetry(), nanoClock);
  }

  private CommitEventConsumer(ConsumerOptions options, TableCheckpointStore store, CommitHandler handler,
      OpenTelemetry openTelemetry, LongSupplier nanoClock) {
    this.options = Objects.requireNonNull(options, "options");
    this.store = Objects.requireNonNull(store, "store");
    this.handler = new TracedCommitHandler(Objects.requireNonNull(handler, "handler"),
        Objects.requireNonNull(openTelemetry, "openTelemetry"), options.topic(), options.groupId());
    this.nanoClock = nanoClock;
    this.sequencer = new Sequencer(store, options.gapTimeout(), options.retryPolicy(), nanoClock);
    this.consumer = new KafkaConsumer<>(consumerProperties(options));
  }

  /** Starts the polling loop on a daemon thread named after the group. */
  public synchronized CommitEventConsumer start() {
    if (thread != null) {
      throw new IllegalStateException("consumer already started");
    }
    thread = new Thread(this, "commit-consumer-" + options.groupId());
    thread.setDaemon(true);
    thread.start();
    return this;
  }

  /** The polling loop; returns after {@link #close()} or a fatal Kafka error (see {@link #failure()}). */
  @Override
  public void run() {
    running = true;
    try {
      consumer.subscribe(List.of(options.topic()), new Rebalance());
      while (!closing) {
        ConsumerRecords<String, byte[]> records;
        try {
          records = consumer.poll(options.pollTimeout());
        } catch (WakeupException e) {
          continue;
        }
        for (ConsumerRecord<String, byte[]> record : records) {
          accept(record);
        }
        sequencer.deliver(handler);
        commitOffsets(false);
        flowControl();
      }
    } catch (WakeupException e) {
      // closing
    } catch (RuntimeException | Error e) {
      failure = e;
      LOG.error("commit event consumer {} stopped: {}", options.groupId(), e.toString(), e);
    } finally {
      try {
        if (failure == null) {
          commitOffsets(true);
        }
      } catch (RuntimeException e) {
        LOG.warn("final offset commit failed: {}", e.toString());
      }
      consumer.close(CLOSE_TIMEOUT);
      running = false;
      finished.countDown();
    }
  }

  private void accept(ConsumerRecord<String, byte[]> record) {
    CommitEvent event;
    try {
      event = CommitEvents.fromStructuredJson(record.value());
    } catch (InvalidCommitEventException e) {
      if (TableEvents.isTableEvent(record.value())) {
        // Table events share the commit topic (one order per table id); they are another consumer's business.
        tableEvents.incrementAndGet();
        LOG.debug("skipping table event {}-{}@{}", record.topic(), record.partition(), record.offset());
        return;
      }
      invalid.incrementAndGet();
      LOG.warn("skipping record {}-{}@{}: {}", record.topic(), record.partition(), record.offset(), e.getMessage());
      return;
    }
    TopicPartition partition = new TopicPartition(record.topic(), record.partition());
    sequencer.offer(new Pending(event, partition, record.offset(), nanoClock.getAsLong()));
  }

  /** Commits what may be committed; a final commit (on the way out) tolerates one pending wakeup. */
  private void commitOffsets(boolean finalCommit) {
    for (int attempt = 0; attempt < 2; attempt++) {
      try {
        Map<TopicPartition, OffsetAndMetadata> offsets = committable(consumer.assignment());
        if (offsets.isEmpty()) {
          return;
        }
        consumer.commitSync(offsets, COMMIT_TIMEOUT);
        offsets.forEach((tp, offset) -> committed.put(tp, offset.offset()));
        return;
      } catch (WakeupException e) {
        if (!finalCommit) {
          throw e;
        }
      } catch (KafkaException e) {
        // offsets stay where they were: the records are read again later and dropped by the checkpoint
        LOG.warn("offset commit failed (records may be read again): {}", e.toString());
        return;
      }
    }
  }

  private Map<TopicPartition, OffsetAndMetadata> committable(Collection<TopicPartition> partitions) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    for (TopicPartition tp : partitions) {
      long position;
      try {
        position = consumer.position(tp, COMMIT_TIMEOUT);
      } catch (WakeupException e) {
        throw e;
      } catch (KafkaException e) {
        continue;
      }
      long offset = sequencer.committableOffset(tp, position);
      Long last = committed.get(tp);
      if (last == null || last != offset) {
        offsets.put(tp, new OffsetAndMetadata(offset));
      }
    }
    return offsets;
  }

  private void flowControl() {
    boolean full = sequencer.pending() >= options.maxPendingEvents();
    if (full && !paused) {
      LOG.warn("{} events are waiting (behind gaps or a failing handler); pausing fetches", sequencer.pending());
      consumer.pause(consumer.assignment());
      paused = true;
    } else if (!full && paused) {
      consumer.resume(consumer.paused());
      paused = false;
    }
  }

  private final class Rebalance implements ConsumerRebalanceListener {
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      if (partitions.isEmpty()) {
        return;
      }
      try {
        Map<TopicPartition, OffsetAndMetadata> offsets = committable(partitions);
        if (!offsets.isEmpty()) {
          consumer.commitSync(offsets, COMMIT_TIMEOUT);
        }
      } catch (WakeupException e) {
        LOG.debug("offset commit on revocation interrupted by close; records may be read again");
      } catch (KafkaException e) {
        LOG.warn("offset commit on revocation failed (records may be read again): {}", e.toString());
      }
      forget(partitions);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      forget(partitions);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      sequencer.forgetCheckpoints();
      if (paused) {
        consumer.pause(partitions);
      }
      LOG.info("consumer {} assigned {}", options.groupId(), partitions);
    }

    private void forget(Collection<TopicPartition> partitions) {
      sequencer.dropPartitions(partitions);
      partitions.forEach(committed::remove);
      LOG.info("consumer {} released {}", options.groupId(), partitions);
    }
  }

  /** The counters so far; safe from any thread. */
  public ConsumerStats stats() {
    return new ConsumerStats(sequencer.delivered.get(), sequencer.duplicates.get(), sequencer.late.get(),
        sequencer.gapsSkipped.get(), invalid.get(), tableEvents.get(), sequencer.handlerFailures.get(),
        sequencer.pending());
  }

  public ConsumerOptions options() {
    return options;
  }

  public TableCheckpointStore checkpointStore() {
    return store;
  }

  public boolean isRunning() {
    return running;
  }

  /** The error that stopped the loop, or null. */
  public Throwable failure() {
    return failure;
  }

  /** Waits until the loop has ended. */
  public boolean awaitTermination(Duration timeout) throws InterruptedException {
    return finished.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Stops the loop after the current step, commits what may be committed and closes the Kafka consumer. The
   * checkpoint store is not closed (its owner closes it).
   */
  @Override
  public void close() {
    closing = true;
    Thread loop;
    synchronized (this) {
      loop = thread;
    }
    if (loop == null && !running) {
      consumer.close(CLOSE_TIMEOUT);
      return;
    }
    consumer.wakeup();
    if (loop != null && loop != Thread.currentThread()) {
      try {
        if (!finished.await(CLOSE_TIMEOUT.toMillis() * 3, TimeUnit.MILLISECONDS)) {
          LOG.warn("commit event consumer {} did not stop in time", options.groupId());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static Properties consumerProperties(ConsumerOptions options) {
    Properties props = new Properties();
    props.putAll(options.consumerProperties());
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrapServers());
    props.put(ConsumerConfig.GROUP_ID_CONFIG, options.groupId());
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, options.clientId());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, options.autoOffsetReset());
    props.putIfAbsent(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return props;
  }
}
