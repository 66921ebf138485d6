package dev.lancecommit.chaos.harness;

import dev.lancecommit.events.kafka.EmbeddedKafkaBroker;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Injects faults on a seeded schedule, one thread per enabled kind (so episodes of different kinds may overlap):
 * kill -9 and restart of the coordinator, S3 fault windows on the proxy, Kafka broker stop and start, and with a
 * cluster kill -9 and restart of one instance, and SIGSTOP of one instance past its group session timeout then
 * SIGCONT (never both to one instance at once). Every kind's
 * first episode falls inside the run, so even a short run sees each enabled kind at least once. {@link #stopAndHeal}
 * ends the schedule and leaves everything running and healthy.
 */
final class FaultScheduler {
  private static final Logger LOG = LoggerFactory.getLogger(FaultScheduler.class);
  /** Longest time the S3 proxy holds a stalled request before forwarding it anyway. */
  static final long MAX_STALL_MILLIS = 9_000;

  private final ChaosOptions options;
  /** Pausing an instance this much longer than the session timeout makes the group give its tables away. */
  static final long PAUSE_PAST_SESSION_MILLIS = 2_000;

  private final CoordinatorProcess coordinator;
  private final CoordinatorCluster cluster;
  private final long sessionTimeoutMillis;
  private final java.util.Set<CoordinatorProcess> disturbed = new java.util.HashSet<>();
  private final S3FaultProxy proxy;
  private final EmbeddedKafkaBroker kafka;
  private final FaultLog log;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final List<Thread> threads = new ArrayList<>();
  private final List<Throwable> failures = new ArrayList<>();
  private long startNanos;

  FaultScheduler(ChaosOptions options, CoordinatorProcess coordinator, S3FaultProxy proxy, EmbeddedKafkaBroker kafka,
      FaultLog log) {
    this(options, coordinator, null, 0, proxy, kafka, log);
  }

  /**
   * @param coordinator the single coordinator, or null with a cluster
   * @param cluster the instances of a cluster, or null with a single coordinator
   * @param sessionTimeoutMillis the cluster's group session timeout (how long a paused instance keeps its tables)
   */
  FaultScheduler(ChaosOptions options, CoordinatorProcess coordinator, CoordinatorCluster cluster,
      long sessionTimeoutMillis, S3FaultProxy proxy, EmbeddedKafkaBroker kafka, FaultLog log) {
    this.options = options;
    this.coordinator = coordinator;
    this.cluster = cluster;
    this.sessionTimeoutMillis = sessionTimeoutMillis;
    this.proxy = proxy;
    this.kafka = kafka;
    this.log = log;
  }

  void start() {
    startNanos = System.nanoTime();
    if (options.faults().contains(FaultKind.KILL)) {
      spawn("chaos-kill", this::killLoop);
    }
    if (options.faults().contains(FaultKind.S3) && proxy != null) {
      spawn("chaos-s3", this::s3Loop);
    }
    if (options.faults().contains(FaultKind.KAFKA)) {
      spawn("chaos-kafka", this::kafkaLoop);
    }
    if (options.faults().contains(FaultKind.INSTANCE_KILL) && cluster != null) {
      spawn("chaos-instance-kill", this::instanceKillLoop);
    }
    if (options.faults().contains(FaultKind.INSTANCE_PAUSE) && cluster != null) {
      spawn("chaos-instance-pause", this::instancePauseLoop);
    }
  }

  /** Ends the schedule: S3 faults off, Kafka running, the coordinator running. */
  void stopAndHeal() throws InterruptedException {
    stopped.countDown();
    for (Thread t : threads) {
      t.join(TimeUnit.MINUTES.toMillis(6));
    }
    if (proxy != null) {
      proxy.setFaults(S3Faults.NONE);
    }
    if (!kafka.isRunning()) {
      startKafka();
    }
    if (coordinator != null && !coordinator.isRunning()) {
      coordinator.start();
      log.event(FaultLog.COORDINATOR_RESTART, "at heal");
    }
    if (cluster != null) {
      for (CoordinatorProcess instance : cluster.instances()) {
        if (!instance.isRunning()) {
          instance.start();
          log.event(FaultLog.INSTANCE_RESTART, instance.baseUrl() + " at heal");
        }
      }
    }
  }

  /** Errors of the fault threads themselves (e.g. a broker that would not start again). */
  List<Throwable> failures() {
    synchronized (failures) {
      return List.copyOf(failures);
    }
  }

  private void killLoop(Random random) {
    long runMillis = options.seconds() * 1000L;
    if (waitUntil((long) (runMillis * (0.12 + 0.25 * random.nextDouble())))) {
      return;
    }
    while (true) {
      long pid = coordinator.pid();
      coordinator.kill();
      log.event(FaultLog.COORDINATOR_KILL, "pid " + pid);
      long down = 200 + random.nextInt(1800);
      boolean stop = sleep(down);
      coordinator.start();
      log.event(FaultLog.COORDINATOR_RESTART, "pid " + coordinator.pid() + ", " + down + " ms after the kill");
      if (stop || sleep(12_000 + random.nextInt(18_000))) {
        return;
      }
    }
  }

  private void instanceKillLoop(Random random) {
    long runMillis = options.seconds() * 1000L;
    if (waitUntil((long) (runMillis * (0.10 + 0.25 * random.nextDouble())))) {
      return;
    }
    while (true) {
      CoordinatorProcess victim = pick(random);
      boolean stop;
      if (victim == null) {
        stop = sleep(1_000);
      } else {
        try {
          long pid = victim.pid();
          victim.kill();
          log.event(FaultLog.INSTANCE_KILL, victim.baseUrl() + " pid " + pid);
          long down = 500 + random.nextInt(4_500);
          stop = sleep(down);
          victim.start();
          log.event(FaultLog.INSTANCE_RESTART, victim.baseUrl() + " pid " + victim.pid() + ", " + down
              + " ms after the kill");
        } finally {
          release(victim);
        }
        stop = stop || sleep(12_000 + random.nextInt(18_000));
      }
      if (stop) {
        return;
      }
    }
  }

  private void instancePauseLoop(Random random) {
    long runMillis = options.seconds() * 1000L;
    if (waitUntil((long) (runMillis * (0.20 + 0.25 * random.nextDouble())))) {
      return;
    }
    while (true) {
      CoordinatorProcess victim = pick(random);
      boolean stop;
      if (victim == null) {
        stop = sleep(1_000);
      } else {
        try {
          victim.suspend();
          long paused = sessionTimeoutMillis + PAUSE_PAST_SESSION_MILLIS + random.nextInt(4_000);
          log.event(FaultLog.INSTANCE_PAUSE, victim.baseUrl() + " pid " + victim.pid() + " for " + paused + " ms");
          stop = sleep(paused);
          victim.resume();
          log.event(FaultLog.INSTANCE_RESUME, victim.baseUrl());
        } finally {
          release(victim);
        }
        stop = stop || sleep(12_000 + random.nextInt(18_000));
      }
      if (stop) {
        return;
      }
    }
  }

  /** A running instance no other fault holds now (held until {@link #release}), or null. */
  private CoordinatorProcess pick(Random random) {
    synchronized (disturbed) {
      List<CoordinatorProcess> candidates = cluster.instances().stream()
          .filter(i -> i.isRunning() && !disturbed.contains(i)).toList();
      if (candidates.size() < 2) {
        return null; // one instance always serves
      }
      CoordinatorProcess chosen = candidates.get(random.nextInt(candidates.size()));
      disturbed.add(chosen);
      return chosen;
    }
  }

  private void release(CoordinatorProcess instance) {
    synchronized (disturbed) {
      disturbed.remove(instance);
    }
  }

  private void s3Loop(Random random) {
    long runMillis = options.seconds() * 1000L;
    if (waitUntil((long) (runMillis * (0.05 + 0.2 * random.nextDouble())))) {
      return;
    }
    while (true) {
      S3Faults faults = new S3Faults(
          0.05 + 0.30 * random.nextDouble(),
          0.10 + 0.30 * random.nextDouble(),
          50 + random.nextInt(750),
          0.05 * random.nextDouble(),
          6_000 + random.nextInt((int) MAX_STALL_MILLIS - 6_000),
          0.20 + 0.50 * random.nextDouble());
      long length = 3_000 + random.nextInt(6_000);
      proxy.setFaults(faults);
      log.event(FaultLog.S3_WINDOW, faults + " for " + length + " ms");
      boolean stop = sleep(length);
      proxy.setFaults(S3Faults.NONE);
      log.note("s3 faults off");
      if (stop || sleep(4_000 + random.nextInt(8_000))) {
        return;
      }
    }
  }

  private void kafkaLoop(Random random) {
    long runMillis = options.seconds() * 1000L;
    if (waitUntil((long) (runMillis * (0.25 + 0.3 * random.nextDouble())))) {
      return;
    }
    while (true) {
      kafka.stop();
      long down = 2_000 + random.nextInt(6_000);
      log.event(FaultLog.KAFKA_STOP, "for " + down + " ms");
      boolean stop = sleep(down);
      startKafka();
      if (stop || sleep(20_000 + random.nextInt(20_000))) {
        return;
      }
    }
  }

  private void startKafka() {
    RuntimeException last = null;
    for (int attempt = 1; attempt <= 5; attempt++) {
      try {
        kafka.start();
        log.event(FaultLog.KAFKA_START, attempt == 1 ? "" : "attempt " + attempt);
        return;
      } catch (RuntimeException e) {
        last = e;
        LOG.warn("embedded Kafka did not start again (attempt {}): {}", attempt, e.toString());
        kafka.stop();
        pause(2000);
      }
    }
    throw last;
  }

  private void spawn(String name, java.util.function.Consumer<Random> loop) {
    Random random = new Random(options.seed() * 31 + name.hashCode());
    Thread thread = new Thread(() -> {
      try {
        loop.accept(random);
      } catch (Throwable t) {
        LOG.error("fault thread {} failed", name, t);
        log.note(name + " failed: " + t);
        synchronized (failures) {
          failures.add(t);
        }
      }
    }, name);
    thread.setDaemon(true);
    threads.add(thread);
    thread.start();
  }

  /** Waits until {@code offsetMillis} after the start; true when stopped meanwhile. */
  private boolean waitUntil(long offsetMillis) {
    long remaining = offsetMillis - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    return remaining > 0 && sleep(remaining);
  }

  /** True when the schedule was stopped during the sleep (or before it). */
  private boolean sleep(long millis) {
    try {
      return stopped.await(millis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true;
    }
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
