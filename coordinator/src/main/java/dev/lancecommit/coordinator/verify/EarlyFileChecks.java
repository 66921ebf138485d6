package dev.lancecommit.coordinator.verify;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Checks the data files a transaction adds while it waits in its table's lane, so that by the time the lane builds
 * the version their checks are done: the file check leaves the lane's serial path for the common case. A data
 * file's check depends only on the file and what the transaction says about it (path, size, rows), not on the
 * version it lands on, so a check made early is the check the lane would make.
 *
 * <p>Only an early check that found the file right is used; the lane checks again any file whose early check found
 * a problem (its message then names the fragment as the built version numbers it), has not started, or was never
 * made (no free slot, a data file under a base path, an operation other than Append, Overwrite and Update). An early
 * check that has not started when the lane needs it is taken back and made by the lane with the others, so the lane
 * never waits for a task queued behind it. The data file is not read again between the check and the manifest write;
 * that was true before as well, and Lance's data files are written once under a fresh name.
 */
public final class EarlyFileChecks {
  private final Function<String, StorageLocation> stores;
  private final Executor executor;
  private final Semaphore slots;
  private final Cache<Object, Check> checks;

  /**
   * @param executor runs the checks
   * @param maxRunning transactions whose files are checked early at once for this table; past it the lane checks
   *     the files of the others
   */
  public EarlyFileChecks(Function<String, StorageLocation> stores, Executor executor, int maxRunning) {
    this.stores = stores;
    this.executor = executor;
    this.slots = new Semaphore(Math.max(1, maxRunning));
    // A transaction refused or resubmitted before its turn leaves its checks here unused: they age out.
    this.checks = Caffeine.newBuilder().maximumSize(4L * Math.max(1, maxRunning) + 64)
        .expireAfterWrite(Duration.ofMinutes(1)).build();
  }

  /**
   * Starts checking, on the executor, the data files of the fragments the transaction adds to {@code table}; the
   * transaction is decoded there too ({@code transaction} may throw: nothing is checked early then). Does nothing when
   * this table's early checks already take every slot.
   */
  public void start(StorageLocation table, Supplier<Transaction> transaction) {
    if (!slots.tryAcquire()) {
      return;
    }
    try {
      executor.execute(() -> {
        try {
          checkNow(table, transaction.get());
        } catch (RuntimeException e) {
          // not decodable, or a store failure: the lane answers it
        } finally {
          slots.release();
        }
      });
    } catch (RejectedExecutionException e) {
      slots.release();
    }
  }

  private void checkNow(StorageLocation table, Transaction txn) {
    List<DataFragment> added = addedFragments(txn);
    if (added.isEmpty()) {
      return;
    }
    // No base paths: a data file under one is reached through the table's manifest, which the lane has.
    TableState fragmentsOnly = new TableState(Manifest.newBuilder().addAllFragments(added).build(), List.of());
    List<Check> mine = new ArrayList<>();
    for (NamedFile file : VersionFiles.of(fragmentsOnly, table, stores)) {
      if (file instanceof NamedFile.Data) {
        Check check = new Check(file);
        if (checks.asMap().putIfAbsent(file.identity(), check) == null) {
          mine.add(check); // else the same file named twice, or a resubmission: one check
        }
      }
    }
    mine.forEach(Check::run); // each one the lane has not taken back by now
  }

  /**
   * True when an early check of this very reference found the file right. Waits only for a check that is running;
   * takes back one that has not started (false: the caller checks the file itself). Leaves a marker that the lane has
   * the file in hand, so an early check of the same reference that registers only now does not read it again.
   */
  boolean passed(NamedFile file) {
    Check existing = checks.asMap().put(file.identity(), Check.taken(file));
    if (existing == null || existing.claimed.compareAndSet(false, true)) {
      return false;
    }
    return existing.result.join();
  }

  private static List<DataFragment> addedFragments(Transaction txn) {
    return switch (txn.getOperationCase()) {
      case APPEND -> txn.getAppend().getFragmentsList();
      case OVERWRITE -> txn.getOverwrite().getFragmentsList();
      case UPDATE -> txn.getUpdate().getNewFragmentsList();
      default -> List.of();
    };
  }

  private static final class Check implements Runnable {
    final NamedFile file;
    final AtomicBoolean claimed = new AtomicBoolean();
    final CompletableFuture<Boolean> result = new CompletableFuture<>();

    Check(NamedFile file) {
      this.file = file;
    }

    /** The lane's marker: taken, and never a pass. */
    static Check taken(NamedFile file) {
      Check check = new Check(file);
      check.claimed.set(true);
      check.result.complete(false);
      return check;
    }

    @Override
    public void run() {
      if (!claimed.compareAndSet(false, true)) {
        return; // the lane took it back
      }
      try {
        result.complete(FileInspector.inspect(file, FileInspector.Depth.CONTENT).isEmpty());
      } catch (RuntimeException e) {
        result.complete(false); // the lane checks it again and answers what the store says
      }
    }
  }
}
