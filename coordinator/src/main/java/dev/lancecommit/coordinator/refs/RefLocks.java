package dev.lancecommit.coordinator.refs;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * One permit per table for the operations that check refs and versions and then write or delete them: creating,
 * moving and deleting tags and branches, deleting version records and the retention cleanup. Each checks what
 * exists (a version to tag, a tag on a version to delete) before its write, and two of them interleaving could
 * leave a tag on a deleted version; holding the table's permit across check and write rules that out within this
 * coordinator. A permit (not a lock) because branch creation releases it on another thread, once its Clone landed.
 */
public final class RefLocks {
  /** Longest wait for a table's permit before the request is answered 503 (retry later). */
  static final long WAIT_SECONDS = 60;

  private final ConcurrentHashMap<String, Semaphore> permits = new ConcurrentHashMap<>();

  /** Waits for the table's permit. Call {@link #release} when done. */
  public void acquire(String tableUuid) {
    Semaphore permit = permits.computeIfAbsent(tableUuid, uuid -> new Semaphore(1));
    try {
      if (!permit.tryAcquire(WAIT_SECONDS, TimeUnit.SECONDS)) {
        throw new RefsBusyException("Another tag, branch or version-record change of this table has been running "
            + "for over " + WAIT_SECONDS + " s; retry later");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RefsBusyException("Interrupted while waiting for the table's refs");
    }
  }

  public void release(String tableUuid) {
    permits.get(tableUuid).release();
  }

  /** Runs {@code work} holding the table's permit. */
  public <T> T with(String tableUuid, Supplier<T> work) {
    acquire(tableUuid);
    try {
      return work.get();
    } finally {
      release(tableUuid);
    }
  }

  /** Too long a wait for a table's permit (HTTP 503, code 17). */
  public static final class RefsBusyException extends RuntimeException {
    public RefsBusyException(String message) {
      super(message);
    }
  }
}
