package dev.lancecommit.chaos.property;

import dev.lancecommit.chaos.differential.RunningCoordinator;
import dev.lancecommit.chaos.differential.TableFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tuple;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Random sequences of appends, deletes by predicate, overwrites, compactions (Rewrite), config updates and index
 * builds from three writers on random, possibly stale read versions, all through CommitTable. After every step stock
 * Lance reads the table back: version, unique fragment ids, rows equal to the model (which applies exactly the
 * acknowledged operations in version order), deleted rows gone for good, config, and indices that claim only what
 * they cover. Small on purpose (10 tries x 8 steps).
 */
class CommitSequenceProperties {
  private static Path work;
  private static RunningCoordinator coordinator;

  @BeforeContainer
  static void startCoordinator() throws IOException {
    work = Files.createTempDirectory("lcc-properties-");
    coordinator = RunningCoordinator.start(work.resolve("warehouse"));
    Files.createDirectories(work.resolve("scratch"));
  }

  @AfterContainer
  static void stopCoordinator() {
    if (coordinator != null) {
      coordinator.close();
    }
    if (work != null) {
      TableFiles.deleteTree(work);
    }
  }

  @Property(tries = 10, shrinking = ShrinkingMode.BOUNDED)
  void everyAcknowledgedStepIsWhatLanceReadsBack(@ForAll("scenarios") List<Step> steps) {
    try (ScenarioRun run = ScenarioRun.start(coordinator, work.resolve("scratch"))) {
      for (Step step : steps) {
        run.apply(step);
      }
    }
  }

  @Provide
  Arbitrary<List<Step>> scenarios() {
    Arbitrary<Step.Kind> kinds = Arbitraries.frequency(
        Tuple.of(4, Step.Kind.APPEND),
        Tuple.of(4, Step.Kind.DELETE),
        Tuple.of(1, Step.Kind.OVERWRITE),
        Tuple.of(3, Step.Kind.REWRITE),
        Tuple.of(2, Step.Kind.UPDATE_CONFIG),
        Tuple.of(1, Step.Kind.CREATE_INDEX));
    Arbitrary<Step> step = Combinators.combine(
            Arbitraries.integers().between(0, 2),
            kinds,
            Arbitraries.frequency(Tuple.of(3, 0), Tuple.of(2, 1), Tuple.of(1, 2), Tuple.of(1, 3)),
            Arbitraries.integers().between(0, 999))
        .as(Step::new);
    return step.list().ofSize(8);
  }
}
