package dev.lancecommit.coordinator.publication;

import dev.lancecommit.coordinator.commit.CommitEventSink;
import dev.lancecommit.coordinator.publication.PendingVersions.EventItem;
import dev.lancecommit.coordinator.publication.PendingVersions.GoneItem;
import dev.lancecommit.coordinator.publication.PendingVersions.Item;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.CommitEventPublisher;
import dev.lancecommit.retry.Backoff;
import dev.lancecommit.rules.OperationKind;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Accepts commit events without waiting for Kafka and publishes them, per table in version order, with retries that
 * never give up. {@link #accept} queues the event and returns, so a commit is answered at once whether Kafka is up or
 * not.
 *
 * <p>Each table has a queue ordered by version and at most one event in flight. The next event leaves only when it is
 * the version right after the last one published; when it is not (a version written around the coordinator, or an
 * event dropped from memory), the gap listener (the {@link Reconciler}) is asked to read the missing versions from
 * storage and hands them in through {@link #recover}. A version already published or queued is never queued again,
 * so the commit path and the reconciler never publish one version twice while this process lives; after a crash,
 * {@link PublicationProgress} lags and a few events are published again (consumers drop them by id).
 *
 * <p>Memory is bounded per table ({@link PublicationConfig#maxQueuedPerTable()}): beyond it the newest events are
 * dropped and the reconciler re-reads them once the queue has drained.
 *
 * <p>The outbox starts before Kafka has answered: until {@link #begin} hands it the loaded progress it queues events
 * (within the same bound) but sends nothing, since it does not know yet what an earlier process published. Then it
 * drops what the progress covers and pumps every table.
 */
public final class EventOutbox implements CommitEventSink, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EventOutbox.class);

  private enum State { RUNNING, CLOSING, STOPPED, HALTED }

  private final CommitEventPublisher kafka;
  private final PublicationConfig config;
  /** The tables whose events this instance publishes (cluster mode: those it owns); others' events are dropped. */
  private final Predicate<TableRef> publishes;
  /** Null until {@link #begin}: nothing is sent before it is known what was published before. */
  private volatile PublicationProgress progress;
  private final CompletableFuture<Void> ready = new CompletableFuture<>();
  private final ScheduledThreadPoolExecutor scheduler;
  private final ConcurrentHashMap<String, TableQueue> tables = new ConcurrentHashMap<>();
  private volatile Consumer<TableRef> gapListener = table -> { };
  private volatile State state = State.RUNNING;
  private final AtomicLong failedAttempts = new AtomicLong();
  private final AtomicLong publishedEvents = new AtomicLong();

  /**
   * An outbox that queues but does not send until {@link #begin} is called.
   *
   * @param kafka publishes one event; this outbox owns it from now on and closes it
   */
  public EventOutbox(CommitEventPublisher kafka, PublicationConfig config) {
    this(kafka, config, table -> true);
  }

  /**
   * @param publishes the tables whose events this outbox publishes (in cluster mode, those this instance owns); an
   *     event of any other table is dropped, its owner's reconciler publishes it
   */
  public EventOutbox(CommitEventPublisher kafka, PublicationConfig config, Predicate<TableRef> publishes) {
    this.kafka = Objects.requireNonNull(kafka, "kafka");
    this.config = Objects.requireNonNull(config, "config");
    this.publishes = Objects.requireNonNull(publishes, "publishes");
    this.scheduler = new ScheduledThreadPoolExecutor(1, runnable -> {
      Thread thread = new Thread(runnable, "lance-commit-outbox");
      thread.setDaemon(true);
      return thread;
    });
    this.scheduler.setRemoveOnCancelPolicy(true);
  }

  /**
   * Starts sending: every queued version the progress covers is dropped, then every table is pumped. Call it once
   * Kafka answered and the progress is loaded; this outbox closes {@code progress} from now on.
   *
   * @return false if the outbox was closed or halted first (or already began); the caller keeps {@code progress}
   */
  public boolean begin(PublicationProgress progress) {
    Objects.requireNonNull(progress, "progress");
    synchronized (this) {
      if (state != State.RUNNING || this.progress != null) {
        return false;
      }
      this.progress = progress;
    }
    ready.complete(null);
    for (TableQueue queue : tables.values()) {
      pump(queue);
    }
    return true;
  }

  /** True once {@link #begin} handed in the progress: events are being sent. */
  public boolean ready() {
    return progress != null;
  }

  /**
   * Completes when the outbox begins sending; fails if it is closed or halted before that. A copy: completing it
   * changes nothing here.
   */
  public CompletableFuture<Void> whenReady() {
    return ready.copy();
  }

  /** Called (outside any lock, possibly often) when a table's next version is missing from its queue. */
  public void onGap(Consumer<TableRef> listener) {
    this.gapListener = Objects.requireNonNull(listener, "listener");
  }

  /**
   * Queues the event and returns: the commit does not wait for Kafka. Once this outbox is closed or halted the event
   * is dropped, as a dead process would drop it; the reconciler publishes it after the next start.
   */
  @Override
  public void accept(CommitEvent event) {
    Objects.requireNonNull(event, "event");
    State current = state;
    if (current == State.STOPPED || current == State.HALTED) {
      LOG.debug("Outbox is {}; event {} is left to the reconciler", current, event.id());
      return;
    }
    TableRef ref = refOf(event);
    if (!publishes.test(ref)) {
      LOG.debug("Event {} belongs to a table another instance owns now; its reconciler publishes it", event.id());
      return;
    }
    TableQueue queue = queue(ref);
    synchronized (queue) {
      sync(queue);
      if (createsTableAbove(event) && queue.published < event.version() - 1) {
        // A Clone creates the table at its source's version number: the versions below it never exist here, so
        // its event need not wait for the reconciler to prove them gone.
        queue.published = event.version() - 1;
      }
      if (queue.pending.offer(event, true, queue.floor())) {
        evictOverflow(queue);
      }
    }
    pump(queue);
  }

  private static boolean createsTableAbove(CommitEvent event) {
    // A Clone only ever creates a table (the lane refuses one on a table with versions).
    return event.governed() && event.version() > 1 && OperationKind.CLONE.lanceName().equals(event.operation());
  }

  /**
   * What the reconciler needs to know about a table's queue.
   *
   * @param truncated events of the table were dropped from memory and must be read back from storage
   */
  record View(long published, NavigableSet<Long> queued, int free, long evictions, boolean truncated) {}

  View view(TableRef table) {
    TableQueue queue = queue(table);
    synchronized (queue) {
      sync(queue);
      NavigableSet<Long> queued = queue.pending.eventVersions();
      if (queue.inFlight != null) {
        queued.add(queue.inFlight.version());
      }
      int free = Math.max(0, config.maxQueuedPerTable() - queue.pending.eventCount());
      return new View(queue.published, queued, free, queue.evictions, queue.truncated);
    }
  }

  /**
   * Hands in versions read from storage, ascending.
   *
   * @param complete true when {@code items} reach the newest version the reconciler listed, false when it stopped
   *     early (queue full, store failure) and must be asked again once the queue drains
   * @param seen the view the reconciler started from
   */
  void recover(TableRef table, List<Item> items, boolean complete, View seen) {
    TableQueue queue = queue(table);
    synchronized (queue) {
      sync(queue);
      for (Item item : items) {
        if (item instanceof EventItem e) {
          queue.pending.offer(e.event(), false, queue.floor());
        } else {
          GoneItem gone = (GoneItem) item;
          queue.pending.offerGone(gone.first(), gone.last(), queue.floor());
        }
      }
      evictOverflow(queue);
      if (!complete) {
        queue.truncated = true;
      } else if (queue.evictions == seen.evictions()) {
        queue.truncated = false; // nothing was dropped since the reconciler looked: it has seen everything
      }
    }
    pump(queue);
  }

  /**
   * The highest version of the table published with every version before it (0 when none is known, and always 0
   * before {@link #begin}).
   *
   * @param streamKey the table uuid, or {@code tableUuid@branch} for a branch ({@link TableRef#streamKey()})
   */
  public long publishedThrough(String streamKey) {
    TableQueue queue = tables.get(streamKey);
    if (queue == null) {
      PublicationProgress loaded = progress;
      return loaded == null ? 0 : loaded.recorded(streamKey).orElse(0);
    }
    synchronized (queue) {
      return sync(queue) ? queue.published : 0;
    }
  }

  /** Events waiting in memory, all tables together (in flight included). */
  public int backlog() {
    int total = 0;
    for (TableQueue queue : tables.values()) {
      synchronized (queue) {
        total += queue.pending.eventCount() + (queue.inFlight == null ? 0 : 1);
      }
    }
    return total;
  }

  /**
   * When the oldest event waiting in memory was committed (in flight included), or empty when none waits: how far
   * publication lags behind the commits this process holds.
   */
  public Optional<Instant> oldestUnpublished() {
    Instant oldest = null;
    for (TableQueue queue : tables.values()) {
      CommitEvent first;
      synchronized (queue) {
        first = queue.inFlight != null ? queue.inFlight : queue.pending.firstEvent();
      }
      if (first != null && (oldest == null || first.committedAt().isBefore(oldest))) {
        oldest = first.committedAt();
      }
    }
    return Optional.ofNullable(oldest);
  }

  /** Events Kafka acknowledged since start. */
  public long publishedEvents() {
    return publishedEvents.get();
  }

  /** Publish attempts Kafka did not acknowledge since start (each is retried). */
  public long failedAttempts() {
    return failedAttempts.get();
  }

  private TableQueue queue(TableRef table) {
    TableQueue queue = tables.computeIfAbsent(table.streamKey(), key -> new TableQueue(table));
    synchronized (queue) {
      queue.ref = table;
    }
    return queue;
  }

  /**
   * Raises the queue's published version to what the progress recorded, once the progress is loaded (a queue made
   * before {@link #begin} starts at 0). Call holding the queue's lock.
   *
   * @return true if the progress is applied, false while it is not loaded yet
   */
  private boolean sync(TableQueue queue) {
    if (queue.synced) {
      return true;
    }
    PublicationProgress loaded = progress;
    if (loaded == null) {
      return false;
    }
    queue.published = Math.max(queue.published, loaded.recorded(queue.ref.streamKey()).orElse(0));
    queue.synced = true;
    return true;
  }

  private void evictOverflow(TableQueue queue) {
    int evicted = queue.pending.evictNewestAbove(config.maxQueuedPerTable());
    if (evicted > 0) {
      queue.evictions += evicted;
      if (!queue.truncated) {
        LOG.warn("Table {} has more than {} events waiting for Kafka; newer ones are dropped from memory and will "
            + "be read back from storage", queue.ref.joinedId(), config.maxQueuedPerTable());
      }
      queue.truncated = true;
    }
  }

  /** Sends the table's next event if it may leave now; asks the reconciler when the next version is missing. */
  private void pump(TableQueue queue) {
    CommitEvent next = null;
    boolean missing = false;
    TableRef ref;
    synchronized (queue) {
      ref = queue.ref;
      if (state == State.STOPPED || state == State.HALTED || queue.detached || queue.inFlight != null
          || !sync(queue)) {
        return;
      }
      while (true) {
        queue.pending.dropThrough(queue.published);
        Item first = queue.pending.first();
        if (first == null) {
          missing = queue.truncated;
          break;
        }
        if (first.first() > queue.published + 1) {
          missing = true;
          break;
        }
        queue.pending.removeFirst();
        if (first instanceof GoneItem gone) {
          queue.published = gone.last();
          progress.advance(ref.streamKey(), ref.id(), gone.last());
          continue;
        }
        next = ((EventItem) first).event();
        queue.inFlight = next;
        break;
      }
    }
    if (next != null) {
      send(queue, next);
    } else if (missing) {
      gapListener.accept(ref);
    }
  }

  private void send(TableQueue queue, CommitEvent event) {
    if (state == State.STOPPED || state == State.HALTED) {
      return;
    }
    synchronized (queue) {
      if (queue.detached) {
        return; // handed over: a retry of this event is the new owner's business
      }
    }
    CompletableFuture<Void> sent;
    try {
      sent = kafka.publish(event);
    } catch (RuntimeException e) {
      sent = CompletableFuture.failedFuture(e);
    }
    // continue on our own thread, never on Kafka's I/O thread
    sent.whenCompleteAsync((ok, failure) -> onSent(queue, event, failure), scheduler);
  }

  private void onSent(TableQueue queue, CommitEvent event, Throwable failure) {
    if (failure == null) {
      publishedEvents.incrementAndGet();
      boolean detached;
      synchronized (queue) {
        detached = queue.detached;
        if (queue.inFlight == event) {
          queue.inFlight = null;
          queue.published = Math.max(queue.published, event.version());
          if (queue.backoff != null && queue.backoff.failures() > 0) {
            LOG.info("Kafka acknowledged event {} after {} failed attempts", event.id(), queue.backoff.failures());
            queue.backoff.reset();
          }
        }
      }
      if (!detached) {
        progress.advance(event.streamKey(), event.tableId(), event.version());
        pump(queue);
      }
      return;
    }
    failedAttempts.incrementAndGet();
    int failures;
    Duration delay;
    synchronized (queue) {
      if (queue.backoff == null) {
        queue.backoff = config.retryPolicy().start();
      }
      delay = queue.backoff.onFailure().orElseThrow(); // the policy has no limit: attempts never stop
      failures = queue.backoff.failures();
    }
    if (failures == 1 || failures % 20 == 0) {
      LOG.warn("Kafka did not acknowledge event {} (attempt {}): {}; retrying every {} ms at most, commits are not "
          + "blocked", event.id(), failures, failure.getMessage(), delay.toMillis());
    } else {
      LOG.debug("Kafka did not acknowledge event {} (attempt {})", event.id(), failures, failure);
    }
    try {
      scheduler.schedule(() -> send(queue, event), delay.toMillis(), TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException stopped) {
      LOG.debug("Outbox stopped; event {} is left to the reconciler", event.id());
    }
  }

  /** True when no table has an event that could be sent now (none can before {@link #begin}). */
  private boolean idle() {
    return idle(table -> true, false);
  }

  /**
   * True when no table {@code which} selects has an event that could be sent now; with {@code gapsToo}, none that
   * waits for a missing version either.
   */
  private boolean idle(Predicate<TableRef> which, boolean gapsToo) {
    if (progress == null) {
      return true;
    }
    for (TableQueue queue : tables.values()) {
      synchronized (queue) {
        if (!which.test(queue.ref)) {
          continue;
        }
        if (queue.inFlight != null) {
          return false;
        }
        Item first = queue.pending.first();
        if (first != null && (gapsToo || first.first() <= queue.published + 1)) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * Waits, at most {@code timeout}, until every queued event of the tables {@code which} selects is published (cluster
   * mode: before handing them to another instance).
   *
   * @return true if nothing of theirs is left
   */
  public boolean awaitPublished(Predicate<TableRef> which, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!idle(which, true)) {
      if (System.nanoTime() >= deadline || state != State.RUNNING) {
        return false;
      }
      sleep(10);
    }
    return true;
  }

  /**
   * Raises the published version of the tables {@code which} selects to what the progress says now (after
   * {@link PublicationProgress#refresh}: another instance published them meanwhile), and sends what may go.
   */
  public void resync(Predicate<TableRef> which) {
    PublicationProgress loaded = progress;
    if (loaded == null) {
      return;
    }
    for (TableQueue queue : List.copyOf(tables.values())) {
      synchronized (queue) {
        if (!which.test(queue.ref) || !queue.synced) {
          continue;
        }
        queue.published = Math.max(queue.published, loaded.recorded(queue.ref.streamKey()).orElse(0));
      }
      pump(queue);
    }
  }

  /**
   * Forgets the tables {@code which} selects: their queued events are dropped and nothing more of theirs is sent or
   * recorded from here (cluster mode: another instance owns them now; its reconciler publishes what is missing). A
   * table queued again later starts from the progress as last read.
   *
   * @return how many queued events were dropped
   */
  public int forget(Predicate<TableRef> which) {
    int dropped = 0;
    for (TableQueue queue : List.copyOf(tables.values())) {
      synchronized (queue) {
        if (!which.test(queue.ref)) {
          continue;
        }
        queue.detached = true;
        dropped += queue.pending.eventCount() + (queue.inFlight == null ? 0 : 1);
        tables.remove(queue.ref.streamKey(), queue);
      }
    }
    return dropped;
  }

  /**
   * Publishes what can still be published within {@link PublicationConfig#shutdownDrain()}, records the progress and
   * releases Kafka. Whatever is left is published by the reconciler after the next start.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (state != State.RUNNING) {
        return;
      }
      state = State.CLOSING;
    }
    long deadline = System.nanoTime() + config.shutdownDrain().toNanos();
    while (!idle() && System.nanoTime() < deadline) {
      sleep(20);
    }
    if (!idle()) {
      LOG.warn("{} events were not published before shutdown; the reconciler publishes them after the next start",
          backlog());
    } else if (progress == null && backlog() > 0) {
      LOG.warn("Kafka did not answer before shutdown: {} queued events were never sent; the reconciler publishes "
          + "them after the next start", backlog());
    }
    synchronized (this) {
      state = State.STOPPED;
    }
    ready.completeExceptionally(new IllegalStateException("the outbox was closed before Kafka answered"));
    scheduler.shutdownNow();
    try {
      kafka.close();
    } finally {
      PublicationProgress loaded = progress;
      if (loaded != null) {
        loaded.close();
      }
    }
  }

  /**
   * Stops at once, as if the process died: queued events are lost, no more progress is written, later events are
   * dropped. For tests that prove the reconciler recovers what a crash loses.
   */
  public void halt() {
    synchronized (this) {
      if (state == State.STOPPED || state == State.HALTED) {
        return;
      }
      state = State.HALTED;
    }
    ready.completeExceptionally(new IllegalStateException("the outbox was halted before Kafka answered"));
    scheduler.shutdownNow();
    PublicationProgress loaded = progress;
    if (loaded != null) {
      loaded.halt();
    }
    kafka.close();
  }

  private static TableRef refOf(CommitEvent event) {
    return new TableRef(event.tableId(), event.location(), event.tableUuid(), event.branch());
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** One table's queue; every field is guarded by the instance's monitor. */
  private static final class TableQueue {
    TableRef ref;
    long published;
    final PendingVersions pending = new PendingVersions();
    CommitEvent inFlight;
    /** Failed attempts of the event in flight; null until the first failure. */
    Backoff backoff;
    boolean truncated;
    long evictions;
    /** The loaded progress has been applied to {@link #published}. */
    boolean synced;
    /** Forgotten (handed over to another instance): nothing more is sent or recorded from it. */
    boolean detached;

    TableQueue(TableRef ref) {
      this.ref = ref;
    }

    /** Versions at or below this are published or being published. */
    long floor() {
      return inFlight == null ? published : Math.max(published, inFlight.version());
    }
  }
}
