package dev.lancecommit.chaos.differential;

import static dev.lancecommit.chaos.differential.BaseTable.READ_VERSION;

import dev.lancecommit.testing.lance.LanceTables;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.lance.CommitBuilder;
import org.lance.Dataset;

/**
 * Commits {@code first} then {@code second}, both built on version V, to two copies of the staged table: one with
 * stock Lance's own commit ({@code CommitBuilder} from a dataset opened at V), one through the coordinator's
 * CommitTable with the raw transaction bytes. Lance reads both tables back.
 */
public final class PairRunner {
  private final OperationStage stage;
  private final RunningCoordinator coordinator;
  private final Path lanceDir;

  public PairRunner(OperationStage stage, RunningCoordinator coordinator, Path lanceDir) {
    this.stage = stage;
    this.coordinator = coordinator;
    this.lanceDir = lanceDir;
  }

  /** Runs {@code first} alone ({@code second} empty) or the pair. */
  public PairResult run(LanceOperation first, Optional<LanceOperation> second) {
    StagedOperation one = stage.get(first, Slot.FIRST);
    Optional<StagedOperation> two = second.map(op -> stage.get(op, Slot.SECOND));
    String name = first.name() + "-" + second.map(Enum::name).orElse("ALONE");

    Path lancePath = lanceDir.resolve(name + ".lance");
    TableFiles.copyTree(stage.pool(), lancePath);
    Outcome lanceFirst;
    Optional<Outcome> lanceSecond = Optional.empty();
    Optional<TableSnapshot> lanceSnapshot = Optional.empty();
    try (LanceTables lance = LanceTables.local(lancePath)) {
      lanceFirst = commitWithLance(lance, one);
      if (lanceFirst.committed() && two.isPresent()) {
        lanceSecond = Optional.of(commitWithLance(lance, two.get()));
      }
      if (lanceFirst.committed() && lanceSecond.map(Outcome::committed).orElse(true)) {
        lanceSnapshot = Optional.of(TableSnapshot.read(lance));
      }
    }

    Path coordinatorPath = coordinator.newTableDir(name.toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
    TableFiles.copyTree(stage.pool(), coordinatorPath);
    List<String> id = coordinator.register(coordinatorPath);
    Outcome coordinatorFirst = Outcome.ofCoordinator(coordinator.commit(id, one.transactionBytes()));
    Optional<Outcome> coordinatorSecond = Optional.empty();
    if (coordinatorFirst.committed() && two.isPresent()) {
      coordinatorSecond = Optional.of(Outcome.ofCoordinator(coordinator.commit(id, two.get().transactionBytes())));
    }
    Optional<TableSnapshot> coordinatorSnapshot = Optional.empty();
    long coordinatorLatest;
    try (LanceTables written = LanceTables.local(coordinatorPath)) {
      coordinatorLatest = written.latestVersion();
      if (coordinatorFirst.committed() && coordinatorSecond.map(Outcome::committed).orElse(true)) {
        coordinatorSnapshot = Optional.of(TableSnapshot.read(written));
      }
    }
    Optional<Outcome.Kind> specVerdict = two.map(t -> SpecOracle.verdict(one.parsed(), t.parsed()));
    Optional<String> specRule = two.map(t -> SpecOracle.rule(one.parsed(), t.parsed()));
    return new PairResult(first, second, lanceFirst, lanceSecond, coordinatorFirst, coordinatorSecond,
        lanceSnapshot, coordinatorSnapshot, coordinatorLatest, specVerdict, specRule);
  }

  private static Outcome commitWithLance(LanceTables table, StagedOperation op) {
    try (Dataset base = table.open(READ_VERSION);
        org.lance.Transaction txn = op.readLanceTransaction();
        Dataset committed = new CommitBuilder(base).execute(txn)) {
      return Outcome.committed(committed.version());
    } catch (RuntimeException e) {
      return Outcome.ofLance(e);
    }
  }
}
