package dev.lancecommit.events.trigger;

import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Transaction;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans and carries out maintenance of one table, committing every result through the coordinator like any writer.
 *
 * <p>Commit loop: a 409 with code 14 (retryable conflict) re-reads the latest manifest and rebuilds on it (reusing
 * the written fragments when the compacted fragments are unchanged, planning again otherwise), at most
 * {@code maxAttempts} times. No answer or 429/5xx resubmits the same bytes (same transaction uuid, so the
 * coordinator recognizes a commit that did land) a bounded number of times. Any other refusal ends the attempt.
 *
 * <p>Without a {@link MaintenanceWorker} it only detects: due maintenance is recorded as {@code DUE}. With one, an
 * index refresh the worker cannot do (not a B-tree) is recorded as {@code DUE} too.
 */
public final class MaintenanceRunner {
  private static final Logger LOG = LoggerFactory.getLogger(MaintenanceRunner.class);
  private static final int RESUBMITS = 3;

  private final CoordinatorClient coordinator;
  private final TriggerPolicy policy;
  private final MaintenanceWorker worker;
  private final MaintenanceRecorder recorder;
  private final Function<String, TableFiles> files;
  private final int maxAttempts;
  private final Duration resubmitBackoff;
  private final Clock clock;

  public MaintenanceRunner(CoordinatorClient coordinator, TriggerPolicy policy, MaintenanceWorker worker,
      MaintenanceRecorder recorder, int maxAttempts) {
    this(coordinator, policy, worker, recorder, TableFiles::at, maxAttempts, Duration.ofMillis(500),
        Clock.systemUTC());
  }

  MaintenanceRunner(CoordinatorClient coordinator, TriggerPolicy policy, MaintenanceWorker worker,
      MaintenanceRecorder recorder, Function<String, TableFiles> files, int maxAttempts, Duration resubmitBackoff,
      Clock clock) {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("max attempts must be >= 1, got " + maxAttempts);
    }
    this.coordinator = Objects.requireNonNull(coordinator, "coordinator");
    this.policy = Objects.requireNonNull(policy, "policy");
    this.worker = worker;
    this.recorder = Objects.requireNonNull(recorder, "recorder");
    this.files = files;
    this.maxAttempts = maxAttempts;
    this.resubmitBackoff = resubmitBackoff;
    this.clock = clock;
  }

  /**
   * Evaluates the table of {@code event} on its latest manifest and acts.
   *
   * @return the version the evaluation ended on (the latest version seen)
   */
  public long run(CommitEvent event) {
    TableFiles table = files.apply(event.location());
    ManifestFile latest = table.latestManifest();
    MaintenancePlan plan = MaintenancePlanner.plan(latest, policy);
    for (String note : plan.notes()) {
      LOG.info("table {} v{}: {}", event.tableKey(), latest.version(), note);
    }
    long seen = latest.version();
    if (plan.compaction().isPresent()) {
      seen = Math.max(seen, compact(event, table, latest, plan.compaction().get()));
      if (policy.indexRefreshEnabled()) {
        latest = table.latestManifest();
        plan = MaintenancePlanner.plan(latest, policy);
        seen = Math.max(seen, latest.version());
      }
    }
    for (IndexRefreshPlan refresh : plan.indexRefreshes()) {
      seen = Math.max(seen, refreshIndex(event, table, latest, refresh));
    }
    return seen;
  }

  private long compact(CommitEvent event, TableFiles table, ManifestFile base, CompactionPlan plan) {
    if (worker == null) {
      record(event, base.version(), MaintenanceAction.Kind.COMPACTION, MaintenanceAction.Status.DUE, -1,
          plan.fragmentIds(), plan.liveRows(), plan.fragments().size() + " small fragments (detection only)");
      return base.version();
    }
    List<DataFragment> written = null;
    for (int attempt = 1; attempt <= maxAttempts; attempt++) {
      if (written == null) {
        try {
          written = worker.compact(event.location(), base.version(), plan, fileVersion(base));
        } catch (RuntimeException e) {
          record(event, base.version(), MaintenanceAction.Kind.COMPACTION, MaintenanceAction.Status.FAILED, -1,
              plan.fragmentIds(), plan.liveRows(), "Lance could not rewrite the fragments: " + e.getMessage());
          return base.version();
        }
      }
      Transaction txn = Transactions.rewrite(base.version(), plan.fragments(), written);
      CommitOutcome outcome = submit(event.tableId(), txn);
      if (outcome instanceof CommitOutcome.Committed committed) {
        record(event, base.version(), MaintenanceAction.Kind.COMPACTION, MaintenanceAction.Status.COMMITTED,
            committed.version(), plan.fragmentIds(), plan.liveRows(),
            plan.fragments().size() + " fragments rewritten as " + written.size());
        return committed.version();
      }
      if (!(outcome instanceof CommitOutcome.RetryableConflict conflict)) {
        return ended(event, base.version(), MaintenanceAction.Kind.COMPACTION, plan.fragmentIds(), plan.liveRows(),
            outcome);
      }
      LOG.info("table {}: compaction on v{} conflicts ({}); rebuilding on the latest version (attempt {}/{})",
          event.tableKey(), base.version(), conflict.detail(), attempt, maxAttempts);
      base = table.latestManifest();
      Optional<CompactionPlan> again = MaintenancePlanner.plan(base, policy).compaction();
      if (again.isEmpty()) {
        record(event, base.version(), MaintenanceAction.Kind.COMPACTION, MaintenanceAction.Status.ABANDONED, -1,
            plan.fragmentIds(), plan.liveRows(), "no longer due on v" + base.version());
        return base.version();
      }
      if (!unchanged(plan.fragments(), base)) {
        plan = again.get();
        written = null; // the fragments changed under us: read and write again
      }
    }
    record(event, base.version(), MaintenanceAction.Kind.COMPACTION, MaintenanceAction.Status.FAILED, -1,
        plan.fragmentIds(), plan.liveRows(), "still conflicting after " + maxAttempts + " attempts");
    return base.version();
  }

  private long refreshIndex(CommitEvent event, TableFiles table, ManifestFile base, IndexRefreshPlan plan) {
    if (worker == null || !plan.rebuildable()) {
      record(event, base.version(), MaintenanceAction.Kind.INDEX_REFRESH, MaintenanceAction.Status.DUE, -1,
          plan.unindexedFragmentIds(), plan.unindexedRows(), "index '" + plan.name() + "' ("
              + (plan.detailsType().isEmpty() ? "unknown type" : plan.detailsType()) + ") misses "
              + plan.unindexedRows() + " rows" + (worker == null ? " (detection only)"
              : "; only single-column B-tree indexes are rebuilt here"));
      return base.version();
    }
    for (int attempt = 1; attempt <= maxAttempts; attempt++) {
      List<Long> all = base.manifest().getFragmentsList().stream().map(DataFragment::getId).toList();
      IndexMetadata rebuilt;
      try {
        rebuilt = worker.rebuildIndex(event.location(), base.version(), base.manifest(), plan, all);
      } catch (RuntimeException e) {
        record(event, base.version(), MaintenanceAction.Kind.INDEX_REFRESH, MaintenanceAction.Status.FAILED, -1,
            plan.unindexedFragmentIds(), plan.unindexedRows(), "Lance could not build index '" + plan.name() + "': "
                + e.getMessage());
        return base.version();
      }
      Transaction txn = Transactions.createIndex(base.version(), List.of(rebuilt), plan.segments());
      CommitOutcome outcome = submit(event.tableId(), txn);
      if (outcome instanceof CommitOutcome.Committed committed) {
        record(event, base.version(), MaintenanceAction.Kind.INDEX_REFRESH, MaintenanceAction.Status.COMMITTED,
            committed.version(), plan.unindexedFragmentIds(), plan.unindexedRows(),
            "index '" + plan.name() + "' rebuilt over " + all.size() + " fragments");
        return committed.version();
      }
      if (!(outcome instanceof CommitOutcome.RetryableConflict)) {
        return ended(event, base.version(), MaintenanceAction.Kind.INDEX_REFRESH, plan.unindexedFragmentIds(),
            plan.unindexedRows(), outcome);
      }
      base = table.latestManifest();
      String name = plan.name();
      Optional<IndexRefreshPlan> again = MaintenancePlanner.plan(base, policy).indexRefreshes().stream()
          .filter(p -> p.name().equals(name)).findFirst();
      if (again.isEmpty()) {
        record(event, base.version(), MaintenanceAction.Kind.INDEX_REFRESH, MaintenanceAction.Status.ABANDONED, -1,
            plan.unindexedFragmentIds(), plan.unindexedRows(), "no longer due on v" + base.version());
        return base.version();
      }
      plan = again.get();
    }
    record(event, base.version(), MaintenanceAction.Kind.INDEX_REFRESH, MaintenanceAction.Status.FAILED, -1,
        plan.unindexedFragmentIds(), plan.unindexedRows(), "still conflicting after " + maxAttempts + " attempts");
    return base.version();
  }

  private long ended(CommitEvent event, long version, MaintenanceAction.Kind kind, List<Long> fragments, long rows,
      CommitOutcome outcome) {
    if (outcome instanceof CommitOutcome.Rejected rejected) {
      record(event, version, kind, MaintenanceAction.Status.FAILED, -1, fragments, rows,
          "refused by the coordinator: HTTP " + rejected.status() + " code " + rejected.code() + ": "
              + rejected.detail());
    } else if (outcome instanceof CommitOutcome.Unavailable unavailable) {
      record(event, version, kind, MaintenanceAction.Status.UNKNOWN, -1, fragments, rows, unavailable.detail());
    }
    return version;
  }

  /** CommitTable, resubmitting the very same bytes while the coordinator does not answer. */
  private CommitOutcome submit(List<String> tableId, Transaction txn) {
    CommitOutcome outcome = coordinator.commit(tableId, txn);
    long backoff = resubmitBackoff.toMillis();
    for (int i = 0; i < RESUBMITS && outcome instanceof CommitOutcome.Unavailable unavailable; i++) {
      LOG.warn("table {}: commit of transaction {} got no clear answer ({}); resubmitting", String.join("$", tableId),
          txn.getUuid(), unavailable.detail());
      sleep(backoff);
      backoff *= 2;
      outcome = coordinator.commit(tableId, txn);
    }
    return outcome;
  }

  /** True when every fragment of {@code planned} is still in {@code latest}, exactly as it was. */
  static boolean unchanged(List<DataFragment> planned, ManifestFile latest) {
    Map<Long, DataFragment> current = new HashMap<>();
    latest.manifest().getFragmentsList().forEach(f -> current.put(f.getId(), f));
    return planned.stream().allMatch(f -> f.equals(current.get(f.getId())));
  }

  private static Optional<String> fileVersion(ManifestFile manifest) {
    String version = manifest.manifest().getDataFormat().getVersion();
    return version.isBlank() ? Optional.empty() : Optional.of(version);
  }

  private void record(CommitEvent event, long planVersion, MaintenanceAction.Kind kind,
      MaintenanceAction.Status status, long committedVersion, List<Long> fragments, long rows, String detail) {
    MaintenanceAction action = new MaintenanceAction(clock.instant(), event.tableKey(), event.tableUuid(),
        planVersion, kind, status, committedVersion, fragments, rows, detail);
    if (status == MaintenanceAction.Status.FAILED || status == MaintenanceAction.Status.UNKNOWN) {
      LOG.warn("table {} v{}: {} {}: {}", event.tableKey(), planVersion, kind, status, detail);
    } else {
      LOG.info("table {} v{}: {} {}{}: {}", event.tableKey(), planVersion, kind, status,
          committedVersion >= 0 ? " as v" + committedVersion : "", detail);
    }
    try {
      recorder.record(action);
    } catch (RuntimeException e) {
      LOG.warn("could not record {}: {}", action, e.toString());
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
