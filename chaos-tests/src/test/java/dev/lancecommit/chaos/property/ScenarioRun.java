package dev.lancecommit.chaos.property;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.chaos.differential.Outcome;
import dev.lancecommit.chaos.differential.RunningCoordinator;
import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.e2e.CommitApi;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.lance.LanceTables;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One generated scenario against one fresh table: created through CommitTable with 12 rows in 3 fragments, then
 * every step is planned by a writer on its (possibly stale) read version, sent to CommitTable, checked against the
 * answers SPEC.md allows, applied to the model when committed, and followed by the table invariants.
 */
final class ScenarioRun implements AutoCloseable {
  private final RunningCoordinator coordinator;
  private final List<String> id;
  private final LanceTables table;
  private final Writer writer;
  private final TableModel model = new TableModel();
  private final StringBuilder log = new StringBuilder();

  private ScenarioRun(RunningCoordinator coordinator, RunningCoordinator.DeclaredTable declared, Path scratchDir) {
    this.coordinator = coordinator;
    this.id = declared.id();
    this.table = LanceTables.at(declared.location(), Map.of());
    Path root = declared.location().startsWith("file:")
        ? Path.of(java.net.URI.create(declared.location())) : Path.of(declared.location());
    this.writer = new Writer(table, root, scratchDir, 100);
  }

  static ScenarioRun start(RunningCoordinator coordinator, Path scratchDir) {
    ScenarioRun run = new ScenarioRun(coordinator, coordinator.declare("prop"), scratchDir);
    run.create();
    return run;
  }

  private void create() {
    Transaction create = TransactionFactory.create(LanceProtos.schema(LanceTables.ROW_SCHEMA),
        LanceProtos.fragments(table.writeRows(0, 12, 4)));
    CommitApi.Response r = coordinator.commit(id, create.toByteArray(), Optional.empty());
    assertThat(r.status()).as("create %s: %s", id, r).isEqualTo(200);
    Map<Long, String> rows = new LinkedHashMap<>();
    for (long i = 0; i < 12; i++) {
      rows.put(i, LanceTables.valueOf(i));
    }
    model.replaceAll(rows);
    model.committed(r.version(), Step.Kind.OVERWRITE, Set.of(), Set.of());
    log.append("v1: create ids 0..11 in 3 fragments\n");
    TableInvariants.check(table, model, "after creating " + id);
  }

  void apply(Step step) {
    long readVersion = Math.max(1, model.version() - step.staleness());
    Optional<PlannedCommit> planned = writer.plan(step, readVersion);
    if (planned.isEmpty()) {
      log.append(step).append(" on v").append(readVersion).append(": nothing to do\n");
      net.jqwik.api.statistics.Statistics.label("outcomes").collect(step.kind(), "nothing to do");
      return;
    }
    PlannedCommit plan = planned.get();
    CommitApi.Response response = coordinator.commit(id, plan.transaction().toByteArray(), plan.affectedRows());
    Outcome outcome = Outcome.ofCoordinator(response);
    log.append(plan).append(" -> ").append(response.status()).append(response.status() == 200
        ? " v" + response.version() : " code " + response.code()).append('\n');
    net.jqwik.api.statistics.Statistics.label("outcomes").collect(step.kind(),
        outcome.kind() + (readVersion < model.version() ? " (stale)" : ""));
    Set<Outcome.Kind> allowed = OutcomeOracle.allowed(plan, model.committedSince(readVersion));
    assertThat(allowed).as("answer %s to %s, committed since: %s%nscenario so far:%n%s", outcome, plan,
        model.committedSince(readVersion), log).contains(outcome.kind());
    if (outcome.committed()) {
      plan.effect().accept(model);
      model.committed(response.version(), step.kind(), plan.configUpserts(), plan.configDeletes());
    }
    TableInvariants.check(table, model, "after " + plan + "\nscenario so far:\n" + log);
  }

  String log() {
    return log.toString();
  }

  @Override
  public void close() {
    table.close();
  }
}
