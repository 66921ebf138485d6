package dev.lancecommit.coordinator.table;

import dev.lancecommit.coordinator.concurrent.ClaimableTask;
import dev.lancecommit.coordinator.storage.StagedPut;
import java.util.concurrent.Executor;
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

  private final ClaimableTask<StagedPut> staging;

  private ManifestStaging(ClaimableTask<StagedPut> staging) {
    this.staging = staging;
  }

  /** Staging started on {@code executor} (or later, by {@link #get}, if the executor refuses it). */
  static ManifestStaging start(Supplier<StagedPut> stage, Executor executor) {
    return new ManifestStaging(ClaimableTask.start(stage, executor));
  }

  /** Staged here and now; a failure to stage is the caller's, at once. */
  static ManifestStaging now(Supplier<StagedPut> stage) {
    ManifestStaging staging = new ManifestStaging(ClaimableTask.start(stage, Runnable::run));
    staging.get();
    return staging;
  }

  /** The staged put, staging it here if nobody started; the staging's own failure is thrown. */
  StagedPut get() {
    return staging.runOrAwait();
  }

  /** Removes what staging wrote, now or when the staging under way ends; a staging not started never starts. */
  void discard() {
    if (!staging.cancel(NOTHING)) {
      staging.whenSucceeded(StagedPut::discard);
    }
  }
}
