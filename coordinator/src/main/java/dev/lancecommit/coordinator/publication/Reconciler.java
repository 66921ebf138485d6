package dev.lancecommit.coordinator.publication;

import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.coordinator.publication.PendingVersions.EventItem;
import dev.lancecommit.coordinator.publication.PendingVersions.GoneItem;
import dev.lancecommit.coordinator.publication.PendingVersions.Item;
import dev.lancecommit.coordinator.commit.VersionEvents;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.coordinator.table.TableVersions;
import dev.lancecommit.coordinator.table.VersionFile;
import dev.lancecommit.coordinator.table.VersionTransaction;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.format.CorruptManifestException;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.WriterVersions;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.InvalidTransactionException;
import dev.lancecommit.rules.OperationKind;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.LongStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the versions that have no event yet: those whose coordinator died between writing the manifest and
 * publishing, and those written bypassing the coordinator ({@code governed = false}, actor "unknown").
 *
 * <p>For a table it finds the versions after the one its outbox has published (from the newest version, found
 * without listing {@code _versions/} on a store that lists in key order), skips what the outbox already holds,
 * reads every other version's manifest and transaction and hands the events to the outbox in version order (with
 * the versions that are gone from storage, so the outbox does not wait for them). It runs for every
 * table at {@link #start()} (which {@link Publication} calls once Kafka answered and the outbox is ready) and every
 * {@link PublicationConfig#reconcileInterval()}, and for one table shortly after the outbox reports a gap. All work
 * happens on one thread of its own, so one table is never reconciled twice at once; the outbox alone decides what is
 * sent, so nothing is published twice or out of order.
 */
public final class Reconciler implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Reconciler.class);
  /**
   * Most versions above the published one a pass reads by number without listing {@code _versions/}: each missing one
   * (cleaned up) costs a request, so a table further behind is listed instead.
   */
  static final int MAX_VERSIONS_READ_UNLISTED = 256;

  private final EventOutbox outbox;
  private final TableSource tables;
  private final Function<String, StorageLocation> stores;
  private final PublicationConfig config;
  private final Clock clock;
  private final Predicate<TableRef> publishes;
  private final ScheduledThreadPoolExecutor executor;
  private final ConcurrentHashMap<String, TableRef> requested = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Long> failedUntil = new ConcurrentHashMap<>();
  private volatile boolean closed;
  private final AtomicLong governedRecovered = new AtomicLong();
  private final AtomicLong ungovernedRecovered = new AtomicLong();

  /**
   * @param stores resolves a table location to its store (the coordinator's {@code ObjectStores::resolve})
   */
  public Reconciler(EventOutbox outbox, TableSource tables, Function<String, StorageLocation> stores,
      PublicationConfig config, Clock clock) {
    this(outbox, tables, stores, config, clock, table -> true);
  }

  /** @param publishes the tables this instance publishes (cluster mode: those it owns); the others are left alone */
  public Reconciler(EventOutbox outbox, TableSource tables, Function<String, StorageLocation> stores,
      PublicationConfig config, Clock clock, Predicate<TableRef> publishes) {
    this.publishes = Objects.requireNonNull(publishes, "publishes");
    this.outbox = Objects.requireNonNull(outbox, "outbox");
    this.tables = Objects.requireNonNull(tables, "tables");
    this.stores = Objects.requireNonNull(stores, "stores");
    this.config = Objects.requireNonNull(config, "config");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.executor = new ScheduledThreadPoolExecutor(1, runnable -> {
      Thread thread = new Thread(runnable, "lance-commit-reconciler");
      thread.setDaemon(true);
      return thread;
    });
    this.executor.setRemoveOnCancelPolicy(true);
  }

  /**
   * Versions this reconciler read from storage and handed to the outbox since start: {@code governed} ones (their
   * commit's event was lost, e.g. a crash) or not (written bypassing the coordinator).
   */
  public long recoveredVersions(boolean governed) {
    return governed ? governedRecovered.get() : ungovernedRecovered.get();
  }

  /** Listens to the outbox's gaps, runs a pass over every table now and then every reconcile interval. */
  public Reconciler start() {
    outbox.onGap(this::reconcileSoon);
    long interval = config.reconcileInterval().toMillis();
    executor.scheduleWithFixedDelay(this::passQuietly, 0, interval, TimeUnit.MILLISECONDS);
    return this;
  }

  /** Reconciles the table after the gap delay, once however often it is asked in the meantime. */
  public void reconcileSoon(TableRef table) {
    reconcileAfter(table, config.gapReconcileDelay());
  }

  private void reconcileAfter(TableRef table, Duration after) {
    if (closed || requested.putIfAbsent(table.streamKey(), table) != null) {
      return;
    }
    long now = System.nanoTime();
    long backoff = Math.max(0, failedUntil.getOrDefault(table.streamKey(), now) - now);
    long delay = Math.max(after.toNanos(), backoff);
    try {
      executor.schedule(() -> {
        TableRef ref = requested.remove(table.streamKey());
        if (ref != null) {
          reconcileQuietly(ref);
        }
      }, delay, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      requested.remove(table.streamKey());
    }
  }

  /**
   * Runs one pass over every table on the reconciler's thread and waits for it (tests, operators); first waits,
   * within the same timeout, for the outbox to be ready (Kafka answered).
   */
  public void reconcileAllNow(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    awaitReady(timeout);
    await(executor.submit((Runnable) this::pass), remaining(deadline));
  }

  /** Reconciles one table on the reconciler's thread and waits for it (and first for the outbox to be ready). */
  public void reconcileNow(TableRef table, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    awaitReady(timeout);
    await(executor.submit(() -> reconcile(table)), remaining(deadline));
  }

  private void awaitReady(Duration timeout) {
    try {
      outbox.whenReady().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException("The outbox stopped before Kafka answered", e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("Kafka did not answer within " + timeout + "; nothing was reconciled", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while waiting for Kafka", e);
    }
  }

  private static Duration remaining(long deadline) {
    return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
  }

  private void passQuietly() {
    try {
      pass();
    } catch (RuntimeException e) {
      LOG.warn("Reconciliation pass failed; next one in {} ms", config.reconcileInterval().toMillis(), e);
    }
  }

  private void pass() {
    pass(table -> true);
  }

  private void pass(Predicate<TableRef> which) {
    for (TableRef table : tables.tables()) {
      if (closed) {
        return;
      }
      if (which.test(table)) {
        reconcileQuietly(table);
      }
    }
  }

  /**
   * Runs a pass over the tables {@code which} selects on the reconciler's thread, first running {@code before} there
   * (cluster mode: a partition was taken over; {@code before} reads the progress its previous owner left). Returns
   * at once.
   */
  public void reconcileSoon(Predicate<TableRef> which, Runnable before) {
    if (closed) {
      return;
    }
    try {
      executor.execute(() -> {
        try {
          before.run();
          pass(which);
        } catch (RuntimeException e) {
          LOG.warn("Reconciling taken-over tables failed; the next pass covers them", e);
        }
      });
    } catch (RejectedExecutionException e) {
      LOG.debug("Reconciler closed; taken-over tables are covered after the next start");
    }
  }

  private void reconcileQuietly(TableRef table) {
    try {
      reconcile(table);
      failedUntil.remove(table.streamKey());
    } catch (RuntimeException e) {
      markFailed(table);
      LOG.warn("Could not reconcile the events of table {} ({}): {}", table.joinedId(), table.location(),
          e.getMessage(), e);
    }
  }

  private void markFailed(TableRef table) {
    long retryIn = Math.min(config.reconcileInterval().toNanos(), Duration.ofSeconds(10).toNanos());
    failedUntil.put(table.streamKey(), System.nanoTime() + retryIn);
  }

  private void reconcile(TableRef table) {
    if (!outbox.ready()) {
      return; // what was published before is not known yet; the first pass once it is covers every table
    }
    if (!publishes.test(table)) {
      return; // another instance owns the table and publishes its events
    }
    EventOutbox.View view = outbox.view(table);
    TableOperations storage = TableOperations.of(stores.apply(table.branchRoot()));
    Unpublished found = unpublished(storage, view.published());
    List<Long> unpublished = found.versions();
    if (unpublished.isEmpty()) {
      if (found.latest().isPresent() && found.latest().getAsLong() < view.published()) {
        LOG.warn("Table {} has versions up to {} but events were published up to {}: was the dataset replaced?",
            table.joinedId(), found.latest().getAsLong(), view.published());
      }
      outbox.recover(table, List.of(), true, view);
      return;
    }
    ManifestNaming.Scheme scheme = found.scheme();
    List<Item> items = new ArrayList<>();
    long cursor = view.published() + 1;
    int budget = view.free();
    boolean complete = true;
    TableState previous = null;
    long previousVersion = -1;
    int recovered = 0;
    int ungoverned = 0;
    boolean leftToCommit = false;
    try {
      for (long version : unpublished) {
        if (version > cursor) {
          items.add(new GoneItem(cursor, version - 1)); // cleaned up: a later version exists, these never will
        }
        cursor = version + 1;
        if (view.queued().contains(version)) {
          continue;
        }
        if (budget == 0) {
          complete = false;
          break;
        }
        Optional<ManifestFile> file;
        try {
          file = storage.readManifest(version, scheme);
        } catch (CorruptManifestException e) {
          LOG.error("Version {} of table {} has a corrupt manifest ({}); publishing it as an unknown operation",
              version, table.joinedId(), e.getMessage());
          items.add(new EventItem(unreadable(table, version, storage.manifestUri(version, scheme)), false));
          budget--;
          recovered++;
          ungoverned++;
          continue;
        }
        if (file.isEmpty()) {
          items.add(new GoneItem(version, version)); // deleted since the listing
          continue;
        }
        if (!view.truncated() && (view.queued().isEmpty() || version > view.queued().last())
            && justWrittenByCoordinator(file.get().manifest())) {
          leftToCommit = true; // its commit is about to publish it; this and later versions are checked again
          break;
        }
        TableState before = previousVersion == version - 1 ? previous : stateOf(storage, version - 1, scheme);
        CommitEvent event = describe(table, storage, version, scheme, file.get(), before);
        items.add(new EventItem(event, false));
        budget--;
        recovered++;
        if (!event.governed()) {
          ungoverned++;
        }
        previous = file.get().manifest().getVersion() == version ? file.get().tableState() : null;
        previousVersion = version;
      }
    } catch (RuntimeException e) {
      markFailed(table); // before handing in: the outbox may ask again at once
      outbox.recover(table, items, false, view); // hand in what was read; the rest after a retry
      throw e;
    }
    governedRecovered.addAndGet(recovered - ungoverned);
    ungovernedRecovered.addAndGet(ungoverned);
    if (recovered > 0) {
      LOG.info("Recovered {} unpublished versions of table {} ({} written bypassing the coordinator){}", recovered,
          table.joinedId(), ungoverned, complete ? "" : "; more follow once the queue drains");
    }
    outbox.recover(table, items, complete, view);
    if (leftToCommit) {
      reconcileAfter(table, config.liveGrace());
    }
  }

  /**
   * The versions above {@code published} to read, ascending. On a store that lists in key order the newest version is
   * exact without a whole listing ({@link TableOperations#latestVersionFile}: with V2 names, the first keys of
   * {@code _versions/}, one request however many versions the table has); when it is at most
   * {@link #MAX_VERSIONS_READ_UNLISTED} above {@code published}, every number in between is read, and one that is
   * missing was cleaned up and is read as gone. Otherwise (far behind, V1 names) {@code _versions/} is listed. So is
   * it on a local disk, where the newest version comes from the version hint, which writers that do not move it
   * (Lance before 2026, hand-made tools) can leave below versions cleaned up since: probing upward from it would stop
   * at the gap and never see the versions above, whereas listing a local directory is cheap.
   */
  private static Unpublished unpublished(TableOperations storage, long published) {
    if (storage.location().store().listsUnordered()) {
      return listed(storage, published);
    }
    Optional<VersionFile> newest = storage.latestVersionFile();
    if (newest.isEmpty()) {
      return new Unpublished(List.of(), null, OptionalLong.empty()); // no version at all
    }
    long latest = newest.get().version();
    if (latest <= published) {
      return new Unpublished(List.of(), null, OptionalLong.of(latest));
    }
    String uri = newest.get().manifestUri();
    Optional<ManifestNaming.ParsedName> name = ManifestNaming.parse(uri.substring(uri.lastIndexOf('/') + 1));
    if (name.isPresent() && latest - published <= MAX_VERSIONS_READ_UNLISTED) {
      return new Unpublished(LongStream.rangeClosed(published + 1, latest).boxed().toList(), name.get().scheme(),
          OptionalLong.of(latest));
    }
    return listed(storage, published);
  }

  private static Unpublished listed(TableOperations storage, long published) {
    TableVersions listing = storage.versions();
    listing.scheme(); // a table whose _versions/ mixes both naming schemes is refused, as Lance refuses it
    List<Long> above = listing.versions().stream().filter(v -> v > published).toList();
    return new Unpublished(above, above.isEmpty() ? null : listing.scheme().orElseThrow(), listing.latest());
  }

  /** @param scheme the table's naming scheme; null when there is nothing to read */
  private record Unpublished(List<Long> versions, ManifestNaming.Scheme scheme, OptionalLong latest) {}

  private boolean justWrittenByCoordinator(Manifest manifest) {
    if (config.liveGrace().isZero() || !WriterVersions.writtenByCoordinator(manifest) || !manifest.hasTimestamp()) {
      return false;
    }
    return VersionEvents.committedAt(manifest, Instant.EPOCH)
        .isAfter(clock.instant().minus(config.liveGrace()));
  }

  private CommitEvent describe(TableRef table, TableOperations storage, long version, ManifestNaming.Scheme scheme,
      ManifestFile file, TableState previous) {
    String manifestUri = storage.manifestUri(version, scheme);
    if (file.manifest().getVersion() != version) {
      LOG.error("Manifest {} says it is version {}; publishing it as an unknown operation", manifestUri,
          file.manifest().getVersion());
      return unreadable(table, version, manifestUri);
    }
    boolean governed = WriterVersions.writtenByCoordinator(file.manifest());
    Optional<Transaction> txn = transactionOf(storage, file, manifestUri);
    String actor = governed
        ? txn.map(t -> t.getTransactionPropertiesMap().get(VersionEvents.ACTOR_PROPERTY)).orElse(null)
        : VersionEvents.UNKNOWN_ACTOR;
    return VersionEvents.describe(table, previous, file.tableState(),
            txn.map(Transaction::getReadVersion).orElse(version - 1),
            txn.map(Reconciler::operationName).orElse(VersionEvents.UNKNOWN_OPERATION),
            txn.map(Transaction::getUuid).orElse(null),
            manifestUri, clock.instant())
        .actor(actor)
        .governed(governed)
        .members(txn.map(t -> VersionEvents.members(t, file.manifest(), governed ? actor : null)).orElse(List.of()))
        .batchId(governed ? txn.map(VersionEvents::batchOf).orElse(null) : null)
        .build();
  }

  /** A version whose manifest cannot be decoded: it still landed, so the audit trail hears of it. */
  private CommitEvent unreadable(TableRef table, long version, String manifestUri) {
    return CommitEvent.builder()
        .tableId(table.id())
        .tableUuid(table.tableUuid())
        .location(table.location())
        .branch(table.branch())
        .version(version)
        .readVersion(version - 1)
        .operation(VersionEvents.UNKNOWN_OPERATION)
        .manifestPath(manifestUri)
        .committedAt(clock.instant())
        .actor(VersionEvents.UNKNOWN_ACTOR)
        .governed(false)
        .build();
  }

  private static TableState stateOf(TableOperations storage, long version, ManifestNaming.Scheme scheme) {
    if (version < 1) {
      return null;
    }
    try {
      return storage.readManifest(version, scheme).map(ManifestFile::tableState).orElse(null);
    } catch (CorruptManifestException e) {
      return null;
    }
  }

  /** The inline transaction or the {@code .txn} file; empty when a writer left neither (or it is unreadable). */
  private static Optional<Transaction> transactionOf(TableOperations storage, ManifestFile file, String manifestUri) {
    VersionTransaction found = storage.lookupTransaction(file);
    if (found.source() == VersionTransaction.Source.UNREADABLE_FILE) {
      LOG.warn("Transaction file {} of {} is unreadable: {}", found.fileName(), manifestUri,
          found.failure().getMessage());
    }
    return found.found();
  }

  private static String operationName(Transaction txn) {
    try {
      return OperationKind.of(txn).lanceName();
    } catch (InvalidTransactionException e) {
      return VersionEvents.UNKNOWN_OPERATION;
    }
  }

  private static void await(Future<?> future, Duration timeout) {
    try {
      future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw new IllegalStateException(e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException("Reconciliation did not finish within " + timeout, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while reconciling", e);
    }
  }

  /** Stops listening to gaps and scheduling passes; a pass under way finishes its current table. */
  @Override
  public void close() {
    closed = true;
    outbox.onGap(table -> { });
    executor.shutdownNow();
    try {
      executor.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
