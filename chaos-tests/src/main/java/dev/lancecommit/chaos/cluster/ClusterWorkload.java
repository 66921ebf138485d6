package dev.lancecommit.chaos.cluster;

import dev.lancecommit.e2e.CommitApi;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.HandMadeTransactions;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Writers that append to tables through coordinator instances chosen at random for every request, as clients
 * behind a load balancer would (or, following the owner, as the Java and Python clients do: a table's commits to the
 * instance a forwarded answer named). Each writer reads the latest version, builds an append on it (a hand-made data file
 * name; the coordinator never reads data files) and commits it. The careful-client protocol: 200 is final; 409/14
 * rebuilds on a fresh read; 429, 503 and no answer at all (an instance killed or paused) send the very same bytes
 * again, to a random instance, until an answer is definite or the settle deadline passes. Every acknowledgement is
 * recorded with its version, transaction uuid and timing for {@link ClusterChecks}.
 */
public final class ClusterWorkload {
  /** One acknowledged commit. */
  public record Ack(List<String> table, long version, String uuid, long sentNanos, long ackedNanos, int attempts) {
    public long latencyNanos() {
      return ackedNanos - sentNanos;
    }
  }

  /** A commit that never got a definite answer, or got a final refusal. */
  public record Failure(List<String> table, String uuid, String answer) {}

  private final List<List<String>> tables;
  private final Supplier<List<String>> instanceUrls;
  private final HandMadeTransactions txns = new HandMadeTransactions();
  private final List<Ack> acks = Collections.synchronizedList(new ArrayList<>());
  private final List<Failure> failures = Collections.synchronizedList(new ArrayList<>());
  private final AtomicLong resubmits = new AtomicLong();
  private final AtomicLong rebuilds = new AtomicLong();
  private final Map<String, CommitApi> clients = new ConcurrentHashMap<>();
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final boolean followOwner;
  /** With {@code followOwner}: the owner each table's last forwarded answer named. */
  private final Map<List<String>, String> owners = new ConcurrentHashMap<>();
  private volatile long settleDeadline = Long.MAX_VALUE;

  /** @param instanceUrls the instances to choose from, asked before each request (so a test can add one) */
  public ClusterWorkload(List<List<String>> tables, Supplier<List<String>> instanceUrls) {
    this(tables, instanceUrls, false);
  }

  /**
   * @param followOwner send a table's commits to the instance a forwarded answer named as its owner, as the Java and
   *     Python clients do (a random instance again when that one gives no answer)
   */
  public ClusterWorkload(List<List<String>> tables, Supplier<List<String>> instanceUrls, boolean followOwner) {
    this.tables = List.copyOf(tables);
    this.instanceUrls = instanceUrls;
    this.followOwner = followOwner;
  }

  /**
   * Runs {@code writers} writers until {@code duration} has passed, then lets each finish the commit it has in flight
   * (resubmitting for at most {@code settle}).
   */
  public void run(int writers, Duration duration, Duration settle) throws InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    CountDownLatch done = new CountDownLatch(writers);
    for (int w = 0; w < writers; w++) {
      Random random = new Random(31L * w + 7);
      pool.execute(() -> {
        try {
          while (!stopping.get()) {
            commitOne(tables.get(random.nextInt(tables.size())), random);
          }
        } finally {
          done.countDown();
        }
      });
    }
    Thread.sleep(duration.toMillis());
    stopping.set(true);
    settleDeadline = System.nanoTime() + settle.toNanos();
    done.await(settle.toMillis() + 60_000, TimeUnit.MILLISECONDS);
    pool.shutdownNow();
  }

  private CommitApi client(Random random) {
    List<String> urls = instanceUrls.get();
    String url = urls.get(random.nextInt(urls.size()));
    return clients.computeIfAbsent(url, CommitApi::new);
  }

  private void commitOne(List<String> table, Random random) {
    long read = readLatest(table, random);
    if (read < 0) {
      return;
    }
    Transaction txn = txns.append(read);
    long sent = System.nanoTime();
    String last = "";
    for (int attempt = 1; ; attempt++) {
      if (System.nanoTime() > settleDeadline) {
        failures.add(new Failure(table, txn.getUuid(), "no definite answer before the settle deadline: " + last));
        return;
      }
      CommitApi.Response answer;
      String owner = followOwner ? owners.get(table) : null;
      try {
        answer = (owner == null ? client(random) : clients.computeIfAbsent(owner, CommitApi::new)).commit(table, txn);
      } catch (UncheckedIOException e) {
        if (owner != null) {
          owners.remove(table, owner);
        }
        last = "no answer: " + e.getCause();
        resubmits.incrementAndGet();
        pause(100);
        continue; // the instance is down or paused: the same bytes to another
      }
      if (followOwner && answer.servedBy() != null) {
        owners.put(table, answer.servedBy());
      }
      if (answer.status() == 200) {
        acks.add(new Ack(table, answer.version(), txn.getUuid(), sent, System.nanoTime(), attempt));
        return;
      }
      if (answer.status() == 409 && answer.code() == 14) {
        rebuilds.incrementAndGet();
        return; // not committed: the next round reads again
      }
      if (answer.status() == 503 || answer.status() == 429) {
        last = answer.toString();
        resubmits.incrementAndGet();
        pause(50);
        continue;
      }
      failures.add(new Failure(table, txn.getUuid(), answer.toString()));
      return;
    }
  }

  private long readLatest(List<String> table, Random random) {
    while (System.nanoTime() < settleDeadline) {
      try {
        return client(random).latestVersion(table);
      } catch (RuntimeException e) {
        if (stopping.get()) {
          return -1;
        }
        pause(100);
      }
    }
    return -1;
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  public List<Ack> acks() {
    return List.copyOf(acks);
  }

  public List<Failure> failures() {
    return List.copyOf(failures);
  }

  public long resubmits() {
    return resubmits.get();
  }

  public long rebuilds() {
    return rebuilds.get();
  }
}
