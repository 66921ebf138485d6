package dev.lancecommit.coordinator.retention;

import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.namespace.TableEntry;
import dev.lancecommit.coordinator.table.TableRef;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@link TableCleanup#clean} over every live table of the catalog every interval, on a thread of its own (never
 * a commit lane's or a request's). A table that fails is logged and tried again next time; the others go on.
 */
public final class RetentionService implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RetentionService.class);

  private final Catalog catalog;
  private final TableCleanup cleanup;
  private final RetentionPolicy policy;
  private final ScheduledThreadPoolExecutor executor;
  private final Predicate<TableRef> cleansHere;

  public RetentionService(Catalog catalog, TableCleanup cleanup, RetentionPolicy policy) {
    this(catalog, cleanup, policy, table -> true);
  }

  /**
   * @param cleansHere the tables this instance cleans (cluster mode: those it owns, whose commits and removal log are
   *     here); the others are left to their owners
   */
  public RetentionService(Catalog catalog, TableCleanup cleanup, RetentionPolicy policy,
      Predicate<TableRef> cleansHere) {
    this.cleansHere = Objects.requireNonNull(cleansHere, "cleansHere");
    this.catalog = Objects.requireNonNull(catalog, "catalog");
    this.cleanup = Objects.requireNonNull(cleanup, "cleanup");
    this.policy = Objects.requireNonNull(policy, "policy");
    this.executor = new ScheduledThreadPoolExecutor(1, runnable -> {
      Thread thread = new Thread(runnable, "lance-commit-retention");
      thread.setDaemon(true);
      return thread;
    });
  }

  /** Runs every {@code interval}, the first time one interval from now. */
  public RetentionService start(Duration interval) {
    long millis = interval.toMillis();
    executor.scheduleWithFixedDelay(this::runQuietly, millis, millis, TimeUnit.MILLISECONDS);
    LOG.info("Retention cleanup every {} keeping {} versions and {} of history", interval, policy.minVersions(),
        policy.minAge());
    return this;
  }

  /** One pass over every table, on the caller's thread; returns the sum of what it removed. */
  public TableCleanup.Result runOnce() {
    TableCleanup.Result total = TableCleanup.Result.NONE;
    for (TableEntry entry : catalog.liveTables()) {
      if (!cleansHere.test(entry.toRef())) {
        continue;
      }
      try {
        total = total.plus(cleanup.clean(entry.toRef(), policy));
      } catch (RuntimeException e) {
        LOG.warn("Retention cleanup of table {} failed; it is tried again next time: {}", entry.toRef().joinedId(),
            e.toString(), e);
      }
    }
    return total;
  }

  private void runQuietly() {
    try {
      runOnce();
    } catch (RuntimeException e) {
      LOG.warn("Retention pass failed", e);
    }
  }

  @Override
  public void close() {
    executor.shutdownNow();
    try {
      executor.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
