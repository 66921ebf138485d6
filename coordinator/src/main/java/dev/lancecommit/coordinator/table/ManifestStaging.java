package dev.lancecommit.coordinator.table;

import dev.lancecommit.coordinator.storage.StagedPut;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * A version's manifest being staged ({@link dev.lancecommit.coordinator.storage.ObjectStore#stagePutIfAbsent}) on a
 * thread of its own, so that neither the preparation of the version nor the write before it waits for it: the lane's
 * pipeline gets a third stage (prepare, stage the manifest, create it) and the slowest of the three sets its pace.
 * Whoever needs the staged put first and finds the staging not started does it itself, so nothing ever waits for a
 * thread that may not come.
 */
final class ManifestStaging {
  private static final StagedPut NOTHING = new StagedPut() {
    @Override
    public void create() {
      throw new IllegalStateException("A discarded staged manifest cannot be created");
    }

    @Override
    public void discard() {}
  };

  private final Supplier<StagedPut> stage;
  private final AtomicBoolean taken = new AtomicBoolean();
  private final CompletableFuture<StagedPut> staged = new CompletableFuture<>();

  private ManifestStaging(Supplier<StagedPut> stage) {
    this.stage = stage;
  }

  /** Staging started on {@code executor} (or later, by {@link #get}, if the executor refuses it). */
  static ManifestStaging start(Supplier<StagedPut> stage, Executor executor) {
    ManifestStaging staging = new ManifestStaging(stage);
    try {
      executor.execute(staging::runIfNotTaken);
    } catch (RejectedExecutionException e) {
      // get() stages it
    }
    return staging;
  }

  /** Staged here and now. */
  static ManifestStaging now(Supplier<StagedPut> stage) {
    ManifestStaging staging = new ManifestStaging(stage);
    staging.runIfNotTaken();
    staging.get(); // a failure to stage is the caller's, at once
    return staging;
  }

  private void runIfNotTaken() {
    if (!taken.compareAndSet(false, true)) {
      return;
    }
    try {
      staged.complete(stage.get());
    } catch (Throwable t) {
      staged.completeExceptionally(t);
    }
  }

  /** The staged put, staging it here if nobody started; the staging's own failure is thrown. */
  StagedPut get() {
    runIfNotTaken();
    try {
      return staged.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw e;
    }
  }

  /** Removes what staging wrote, now or when the staging under way ends; a staging not started never starts. */
  void discard() {
    if (taken.compareAndSet(false, true)) {
      staged.complete(NOTHING);
      return;
    }
    staged.whenComplete((put, failure) -> {
      if (put != null) {
        put.discard();
      }
    });
  }
}
