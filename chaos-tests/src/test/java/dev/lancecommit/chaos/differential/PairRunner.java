package dev.lancecommit.chaos.differential;

import static dev.lancecommit.chaos.differential.BaseTable.READ_VERSION;

import dev.lancecommit.testing.lance.LanceTables;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
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
    String name = (first.name() + "-" + second.map(Enum::name).orElse("alone")).toLowerCase(Locale.ROOT)
        .replace('_', '-');
    SideResult lance = withLance(name, one, two);
    SideResult coordinated = withCoordinator(name, one, two);
    Optional<Outcome.Kind> specVerdict = two.map(t -> SpecOracle.verdict(one.parsed(), t.parsed()));
    Optional<String> specRule = two.map(t -> SpecOracle.rule(one.parsed(), t.parsed()));
    return new PairResult(first, second, lance, coordinated, specVerdict, specRule);
  }

  private SideResult withLance(String name, StagedOperation one, Optional<StagedOperation> two) {
    Path path = lanceDir.resolve(name + ".lance");
    TableFiles.copyTree(stage.pool(), path);
    try (LanceTables table = LanceTables.local(path)) {
      Outcome first = commitWithLance(table, one);
      Optional<Outcome> second = first.committed() ? two.map(t -> commitWithLance(table, t)) : Optional.empty();
      return readBack(table, first, second);
    } finally {
      TableFiles.deleteTree(path);
    }
  }

  private SideResult withCoordinator(String name, StagedOperation one, Optional<StagedOperation> two) {
    Path path = coordinator.newTableDir(name);
    TableFiles.copyTree(stage.pool(), path);
    try (LanceTables table = LanceTables.local(path)) {
      List<String> id = coordinator.register(path);
      Outcome first = Outcome.ofCoordinator(coordinator.commit(id, one.transactionBytes()));
      Optional<Outcome> second = first.committed()
          ? two.map(t -> Outcome.ofCoordinator(coordinator.commit(id, t.transactionBytes())))
          : Optional.empty();
      return readBack(table, first, second);
    } finally {
      TableFiles.deleteTree(path);
    }
  }

  private static SideResult readBack(LanceTables table, Outcome first, Optional<Outcome> second) {
    boolean allCommitted = first.committed() && second.map(Outcome::committed).orElse(true);
    return new SideResult(first, second,
        allCommitted ? Optional.of(TableSnapshot.read(table)) : Optional.empty(), table.latestVersion());
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
