package dev.lancecommit.chaos.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keeps the benchmark from rotting: a few cells of the matrix for two seconds each (after a one-second warm-up that is
 * reported nowhere), every workload (pylance where its venv exists) on a local disk and appends behind the 20 ms
 * proxy (with the coordinator in a JVM of its own), both systems; the local cells with a few data files written ahead. Nothing is timed here; each run must pass its own check (the table holds exactly what was
 * acknowledged) with no failed commit through the coordinator, and the report (CSV, markdown, chart) must be written
 * and readable back.
 */
class CommitBenchmarkSmokeTest {
  /**
   * Stock Lance committing straight to the path is the baseline being measured, not the system under test: its own
   * commit loop can give up under contention (seen once in CI: one of 547 pylance path commits), and the report counts
   * that as a failed commit. Its table must still verify.
   */
  private static final Set<String> STOCK_BASELINES =
      Set.of(AppendWorkload.LANCE, UpsertWorkload.LANCE_UPDATE, UpsertWorkload.LANCE_MERGE_INSERT,
          PylanceWorkload.PATH);

  @TempDir Path out;

  @Test
  void aFewCellsOfTheMatrixRunAndVerify() throws Exception {
    String workloads = PylanceWorkload.locatePython(Optional.empty()).isPresent()
        ? "appends,upserts,tables,pylance" : "appends,upserts,tables";
    List<MatrixReport.Row> rows = new ArrayList<>();
    // a few data files written ahead: the writers take those first and then write their own (appends, pylance)
    rows.addAll(CommitBenchmark.run(options("--workloads", workloads, "--stores", "local", "--data-files-ahead", "2")));
    // the coordinator in a JVM of its own, shared by the store's runs (its S3 settings handed over in a file)
    rows.addAll(CommitBenchmark.run(options("--workloads", "appends", "--stores", "s3proxy-20ms",
        "--coordinator-own-jvm", "true")));
    assertThat(ProcessHandle.current().children().filter(ProcessHandle::isAlive).toList())
        .as("the coordinator's JVM is stopped with its store").isEmpty();

    assertThat(rows).allSatisfy(row -> {
      assertThat(row.verified()).as("%s", row).isTrue();
      if (!STOCK_BASELINES.contains(row.system())) {
        assertThat(row.failed()).as("%s", row).isZero();
      }
      assertThat(row.commits()).as("%s", row).isPositive();
    });
    assertThat(rows).extracting(MatrixReport.Row::workload).contains("appends", "upserts", "tables");
    assertThat(rows).extracting(MatrixReport.Row::system).contains(AppendWorkload.COORDINATOR, AppendWorkload.LANCE,
        UpsertWorkload.LANCE_UPDATE, UpsertWorkload.LANCE_MERGE_INSERT);
    assertThat(rows).extracting(MatrixReport.Row::store).contains("local", "s3proxy-20ms");
    assertThat(MatrixReport.readCsv(out.resolve(MatrixReport.CSV)).stream().map(MatrixReport.Row::csv))
        .containsExactlyElementsOf(rows.stream().map(MatrixReport.Row::csv).toList());

    Path redrawn = out.resolve("redrawn");
    String markdown = MatrixReport.write(redrawn, MatrixReport.readCsv(out.resolve(MatrixReport.CSV)), "smoke");
    assertThat(markdown).contains("| appends | local | 2 | coordinator |");
    assertThat(redrawn.resolve("chart-appends.png")).isNotEmptyFile();
    assertThat(redrawn.resolve(MatrixReport.MARKDOWN)).isNotEmptyFile();
  }

  @Test
  void systemsRunsOnlyTheNamedSideOfACell() throws Exception {
    List<MatrixReport.Row> rows = CommitBenchmark.run(options("--workloads", "tables", "--stores", "local",
        "--systems", " Coordinator "));

    assertThat(rows).isNotEmpty().allSatisfy(row -> {
      assertThat(row.system()).isEqualTo(AppendWorkload.COORDINATOR);
      assertThat(row.verified()).as("%s", row).isTrue();
    });
  }

  @Test
  void anUnknownSystemIsRefusedBeforeAnythingRuns() {
    assertThatThrownBy(() -> CommitBenchmark.run(options("--workloads", "appends", "--stores", "local",
        "--systems", "coordinator,lance updates")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no system 'lance updates'");
    assertThat(out.resolve(MatrixReport.CSV)).doesNotExist();
  }

  private BenchOptions options(String... selection) {
    List<String> args = new ArrayList<>(List.of(selection));
    args.addAll(List.of("--writers", "1,2", "--seconds", "2", "--warmup-seconds", "1", "--tables", "2", "--writers-per-table", "2",
        "--keys-per-writer", "5", "--rows-per-commit", "3", "--kafka", "none", "--out", out.toString()));
    return BenchOptions.parse(args.toArray(String[]::new), System.out);
  }
}
