package dev.lancecommit.coordinator.storage;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Checks at startup that a store's {@link ObjectStore#putIfAbsent} really is create-only and atomic; commits are only
 * safe on a store that passes. Some S3-compatible stores ignore {@code If-None-Match} and silently overwrite.
 */
public final class ConditionalPutProbe {
  static final int RACERS = 8;
  private static final long RACE_TIMEOUT_SECONDS = 120;

  private ConditionalPutProbe() {}

  /**
   * Writes fresh keys below {@code probeKeyPrefix} and removes them again.
   *
   * @throws StoreException if the store does not honour If-None-Match, or could not be probed
   */
  public static void verify(ObjectStore store, String probeKeyPrefix) {
    String base = ObjectKeys.join(probeKeyPrefix, "conditional-put-probe-" + UUID.randomUUID());
    String singleKey = base + "-single";
    String raceKey = base + "-race";
    try {
      checkSecondWriteRefused(store, singleKey);
      checkExactlyOneRacerWins(store, raceKey);
    } finally {
      deleteQuietly(store, singleKey);
      deleteQuietly(store, raceKey);
    }
  }

  private static void checkSecondWriteRefused(ObjectStore store, String key) {
    byte[] first = payload("first");
    store.putIfAbsent(key, first);
    try {
      store.putIfAbsent(key, payload("second"));
      throw notHonoured(store, "a second create-only write of " + store.uriOf(key) + " succeeded");
    } catch (ObjectAlreadyExistsException expected) {
      // the store refused to overwrite
    }
    byte[] stored = store.get(key).orElse(null);
    if (!Arrays.equals(first, stored)) {
      throw notHonoured(store, "a refused create-only write still replaced " + store.uriOf(key));
    }
  }

  private static void checkExactlyOneRacerWins(ObjectStore store, String key) {
    ExecutorService pool = Executors.newFixedThreadPool(RACERS, r -> {
      Thread thread = new Thread(r, "conditional-put-probe");
      thread.setDaemon(true);
      return thread;
    });
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Boolean>> racers = new ArrayList<>();
      for (int i = 0; i < RACERS; i++) {
        byte[] data = payload("racer-" + i);
        racers.add(pool.submit(() -> {
          start.await();
          try {
            store.putIfAbsent(key, data);
            return true;
          } catch (ObjectAlreadyExistsException lost) {
            return false;
          }
        }));
      }
      start.countDown();
      List<Integer> winners = new ArrayList<>();
      for (int i = 0; i < RACERS; i++) {
        if (awaitRacer(store, racers.get(i))) {
          winners.add(i);
        }
      }
      if (winners.size() != 1) {
        throw notHonoured(store, winners.size() + " of " + RACERS + " concurrent create-only writes of "
            + store.uriOf(key) + " succeeded, expected exactly 1");
      }
      byte[] stored = store.get(key).orElse(null);
      if (!Arrays.equals(payload("racer-" + winners.get(0)), stored)) {
        throw notHonoured(store, "the object at " + store.uriOf(key) + " is not the winning writer's");
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static boolean awaitRacer(ObjectStore store, Future<Boolean> racer) {
    try {
      return racer.get(RACE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof StoreOutcomeUnknownException || cause instanceof StoreUnavailableException) {
        throw (StoreException) cause; // transient: the caller may probe again with fresh keys
      }
      throw new StoreException("conditional put probe of " + store.uri() + " could not complete: " + cause, cause);
    } catch (TimeoutException e) {
      throw new StoreException("conditional put probe of " + store.uri() + " timed out", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreException("conditional put probe of " + store.uri() + " was interrupted", e);
    }
  }

  private static StoreException notHonoured(ObjectStore store, String evidence) {
    return new StoreException("object store " + store.uri() + " does not honour If-None-Match (create-only put): "
        + evidence + "; commits would not be safe, refusing to serve");
  }

  private static byte[] payload(String label) {
    return ("lance-commit-coordinator conditional put probe: " + label).getBytes(StandardCharsets.UTF_8);
  }

  private static void deleteQuietly(ObjectStore store, String key) {
    try {
      store.delete(key);
    } catch (RuntimeException e) {
      // leftover probe objects are harmless; the original outcome matters more
    }
  }
}
