package dev.lancecommit.chaos.differential;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Differential test of the coordinator against Lance's own commit semantics. Every operation lance-core 7.0.0's Java
 * API can produce ({@link LanceOperation}) is made twice by stock Lance on version V of one table; then, for every
 * ordered pair (first, second) of them, stock Lance commits first then second on one copy of the table and the
 * coordinator gets the same two transactions' bytes on another copy. The outcome classes must agree and, where both
 * commit, the tables Lance reads back must be equal, unless {@link ExpectedDifferences} names the pair and says why.
 * The agreement matrix is printed and written to {@code target/differential-matrix.txt}.
 */
class LanceCommitSemanticsDifferentialTest {

  @TempDir
  static Path work;

  private static OperationStage stage;
  private static RunningCoordinator coordinator;
  private static PairRunner runner;
  private static final AgreementMatrix MATRIX = new AgreementMatrix();

  @BeforeAll
  static void stageOperations() throws IOException {
    stage = OperationStage.build(work.resolve("stage"));
    coordinator = RunningCoordinator.start(work.resolve("warehouse"));
    Path lanceDir = work.resolve("lance");
    Files.createDirectories(lanceDir);
    runner = new PairRunner(stage, coordinator, lanceDir);
  }

  @AfterAll
  static void printMatrix() throws IOException {
    String matrix = MATRIX.render();
    System.out.println(matrix);
    Path target = Path.of("target");
    if (Files.isDirectory(target)) {
      Files.writeString(target.resolve("differential-matrix.txt"), matrix, StandardCharsets.UTF_8);
    }
    if (coordinator != null) {
      coordinator.close();
    }
  }

  @TestFactory
  Stream<DynamicTest> eachOperationAloneBuildsWhatLanceBuilds() {
    return Arrays.stream(LanceOperation.values())
        .map(op -> DynamicTest.dynamicTest(op.name() + " alone", () -> {
          PairResult result = runner.run(op, Optional.empty());
          assertThat(result.lance().first().committed()).as("stock Lance re-commits %s: %s", op, result.describe())
              .isTrue();
          check(result);
        }));
  }

  @TestFactory
  Stream<DynamicTest> everyPairOnOneReadVersionEndsAsInLance() {
    return Arrays.stream(LanceOperation.values())
        .flatMap(first -> Arrays.stream(LanceOperation.values())
            .map(second -> DynamicTest.dynamicTest(first.name() + " then " + second.name(),
                () -> check(runner.run(first, Optional.of(second))))));
  }

  private static void check(PairResult result) {
    MATRIX.record(result);
    Optional<ExpectedDifferences.Entry> expected = ExpectedDifferences.forPair(result.first(), result.second());
    if (expected.isPresent()) {
      assertThat(result.lanceClass() + " / " + result.coordinatorClass())
          .as("expected difference %s does not match what happened: %s", expected.get(), result.describe())
          .isEqualTo(expected.get().lanceClass() + " / " + expected.get().coordinatorClass());
    } else {
      assertThat(result.coordinatorClass())
          .as("outcome classes differ: %s", result.describe())
          .isEqualTo(result.lanceClass());
    }
    assertThat(result.specInconsistency()).as("coordinator against its own SPEC.md: %s", result.describe())
        .isEmpty();
    assertThat(result.differingComponents())
        .as("both committed %s; Lance reads back: %s", result.pairName(), result.contentDifferences())
        .isEqualTo(expected.map(ExpectedDifferences.Entry::differingComponents).orElse(java.util.Set.of()));
    assertThat(result.coordinatorSideEffect()).as(result.describe()).isEmpty();
  }
}
