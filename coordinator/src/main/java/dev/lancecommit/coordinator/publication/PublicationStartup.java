package dev.lancecommit.coordinator.publication;

import dev.lancecommit.retry.Backoff;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gets Kafka ready for publication on a daemon thread of its own, so that nothing waits for Kafka at start: creates
 * the events topic and the compacted progress topic unless they exist and loads the progress, and repeats that with
 * a growing, jittered pause ({@link PublicationConfig#retryPolicy()}) until it succeeds; then hands the progress to
 * {@code onLoaded}. Each attempt is bounded by {@link PublicationConfig#kafkaTimeout()}; {@link #close} ends an
 * attempt under way at once (its admin client is closed, its consumer interrupted).
 */
final class PublicationStartup {
  private static final Logger LOG = LoggerFactory.getLogger(PublicationStartup.class);
  /** How long closing an admin client may wait for its calls (zero would wait for its thread without a bound). */
  private static final Duration ABORT = Duration.ofMillis(100);

  private final String bootstrap;
  private final PublicationConfig config;
  private final Consumer<PublicationProgress> onLoaded;
  private final CountDownLatch closed = new CountDownLatch(1);
  private final Thread thread;
  private volatile Admin admin; // the admin client of the attempt under way, for close() to abort it
  private volatile String lastFailure;
  /** Set once an attempt succeeded: from then on close() leaves the thread alone. Guarded by this. */
  private boolean handingOver;

  /**
   * @param onLoaded receives the progress once Kafka answered and owns it from then on, also when this startup was
   *     closed meanwhile (it must then release it); runs on the startup thread
   */
  PublicationStartup(String bootstrap, PublicationConfig config, Consumer<PublicationProgress> onLoaded) {
    this.bootstrap = Objects.requireNonNull(bootstrap, "bootstrap");
    this.config = Objects.requireNonNull(config, "config");
    this.onLoaded = Objects.requireNonNull(onLoaded, "onLoaded");
    this.thread = new Thread(this::run, "lance-commit-publication-start");
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  private void run() {
    Backoff backoff = config.retryPolicy().start();
    for (int attempts = 1; !isClosed(); attempts++) {
      PublicationProgress progress;
      try {
        ensureTopics();
        progress = PublicationProgress.load(bootstrap, config);
      } catch (RuntimeException e) {
        if (isClosed()) {
          return;
        }
        lastFailure = describe(e);
        Duration pause = backoff.onFailure().orElseThrow(); // the policy has no limit: attempts never stop
        if (attempts <= 3 || attempts % 10 == 0) {
          LOG.warn("Kafka at {} is not ready for publication (attempt {}): {}; commits are answered and their events "
              + "wait in the outbox, next attempt in {} ms", bootstrap, attempts, lastFailure, pause.toMillis());
        } else {
          LOG.debug("Kafka at {} is not ready for publication (attempt {})", bootstrap, attempts, e);
        }
        if (pauseUnlessClosed(pause)) {
          return;
        }
        continue;
      }
      if (attempts > 1) {
        LOG.info("Kafka at {} answered after {} attempts", bootstrap, attempts);
      }
      synchronized (this) {
        handingOver = true;
      }
      Thread.interrupted(); // an interrupt from a close() racing the last attempt must not disturb the handover
      onLoaded.accept(progress);
      return;
    }
  }

  /** Creates the events topic and the progress topic unless they exist. */
  private void ensureTopics() {
    Duration timeout = config.kafkaTimeout();
    int timeoutMs = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(AdminClientConfig.CLIENT_ID_CONFIG, "lance-commit-publication-start");
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMs);
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.min(timeoutMs, 30_000));
    props.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1000);
    Admin client = Admin.create(props);
    admin = client;
    try {
      if (isClosed()) {
        throw new IllegalStateException("publication closed");
      }
      List<NewTopic> topics = List.of(
          new NewTopic(config.eventsTopic(), config.eventsTopicPartitions(), config.replicationFactor()),
          new NewTopic(config.progressTopic(), PublicationProgress.PARTITIONS, config.replicationFactor())
              .configs(Map.of("cleanup.policy", "compact")));
      long deadline = System.nanoTime() + timeout.toNanos();
      for (Map.Entry<String, KafkaFuture<Void>> created : client.createTopics(topics).values().entrySet()) {
        awaitCreated(created.getKey(), created.getValue(), deadline);
      }
    } finally {
      admin = null;
      client.close(ABORT); // every call has finished or is abandoned: nothing to wait for
    }
  }

  private void awaitCreated(String topic, KafkaFuture<Void> created, long deadline) {
    try {
      created.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof InvalidReplicationFactorException
          || e.getCause() instanceof InvalidPartitionsException) {
        // Retrying cannot help until the configuration or the cluster changes; say which keys decide it.
        throw new IllegalStateException("could not create topic " + topic + ": " + e.getCause().getMessage()
            + " (check kafka.topic.replication and kafka.topic.partitions)", e.getCause());
      }
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException("could not create topic " + topic + ": " + e.getCause(), e.getCause());
      }
    } catch (TimeoutException e) {
      throw new IllegalStateException("Kafka did not answer within " + config.kafkaTimeout().toMillis()
          + " ms (creating topic " + topic + ")", e);
    } catch (InterruptedException e) {
      throw new IllegalStateException("interrupted while creating topic " + topic, e);
    }
  }

  /** The last failed attempt, in one line; empty before any attempt failed. */
  Optional<String> lastFailure() {
    return Optional.ofNullable(lastFailure);
  }

  private boolean isClosed() {
    return closed.getCount() == 0;
  }

  /** True if closed during the pause. */
  private boolean pauseUnlessClosed(Duration pause) {
    try {
      return closed.await(pause.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      return true; // only close() interrupts this thread
    }
  }

  /** The failure and its root cause on one line: a stack trace per attempt would flood the log during an outage. */
  private static String describe(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root == e ? e.toString() : e.getMessage() + " (cause: " + root + ")";
  }

  /**
   * Stops attempting and ends an attempt under way, then waits for the thread up to {@code wait} (zero: not at all).
   * If Kafka answered just before, the progress is still handed to {@code onLoaded}, which must notice.
   */
  void close(Duration wait) {
    closed.countDown();
    synchronized (this) {
      if (!handingOver) {
        thread.interrupt(); // ends a pause, or a consumer call of the attempt under way
      }
    }
    Admin client = admin;
    if (client != null) {
      client.close(ABORT); // fails its pending calls now instead of at their deadline
    }
    if (wait.isZero() || wait.isNegative()) {
      return;
    }
    try {
      thread.join(Math.max(1, wait.toMillis()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      LOG.warn("The attempt to reach Kafka did not end within {} ms; it is left to finish on its own",
          wait.toMillis());
    }
  }
}
