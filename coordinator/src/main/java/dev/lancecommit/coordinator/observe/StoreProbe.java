package dev.lancecommit.coordinator.observe;

import dev.lancecommit.coordinator.storage.StorageLocation;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Readiness's view of the warehouse store: every interval, on a thread of its own, a HEAD of the catalog's probe key
 * (an absent key is an answer too). Up while the last probe was answered and is recent (a probe stuck longer than
 * three intervals counts as down).
 */
public final class StoreProbe implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StoreProbe.class);
  static final String PROBE_KEY = "_catalog/.probe";

  private final StorageLocation warehouse;
  private final Duration interval;
  private final Clock clock;
  private final ScheduledThreadPoolExecutor executor;
  private volatile Instant lastAnswer;
  private volatile String lastFailure = "not probed yet";

  public StoreProbe(StorageLocation warehouse, Duration interval, Clock clock) {
    this.warehouse = warehouse;
    this.interval = interval;
    this.clock = clock;
    this.executor = new ScheduledThreadPoolExecutor(1, runnable -> {
      Thread thread = new Thread(runnable, "lcc-store-probe");
      thread.setDaemon(true);
      return thread;
    });
  }

  /** Probes once now (on the caller's thread), then every interval in the background. */
  public StoreProbe start() {
    probe();
    executor.scheduleWithFixedDelay(this::probe, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    return this;
  }

  void probe() {
    try {
      warehouse.store().head(warehouse.key(PROBE_KEY));
      if (lastFailure != null && lastAnswer != null) {
        LOG.info("The warehouse store answers again");
      }
      lastAnswer = clock.instant();
      lastFailure = null;
    } catch (RuntimeException e) {
      if (lastFailure == null) {
        LOG.warn("The warehouse store did not answer the readiness probe: {}", e.toString());
      }
      lastFailure = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
  }

  /** The readiness check. */
  public Readiness.Check check() {
    Instant answered = lastAnswer;
    String failure = lastFailure;
    String where = warehouse.uri();
    if (failure != null) {
      return new Readiness.Check("down", true, where + ": " + failure);
    }
    Duration age = Duration.between(answered, clock.instant());
    if (age.compareTo(interval.multipliedBy(3)) > 0) {
      return new Readiness.Check("down", true, where + ": no answer for " + age.toSeconds() + " s");
    }
    return new Readiness.Check(Readiness.Check.UP, true, where + " answered " + age.toMillis() + " ms ago");
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
