package dev.lancecommit.chaos.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A long warm-up runs as runs of the measured window's length, each on tables removed after it. */
class WarmupRunsTest {
  @TempDir
  Path workDir;

  @Test
  void theWarmUpIsCutIntoRunsNoLongerThanTheWindow() {
    assertThat(CommitBenchmark.warmupRuns(options(30, 300))).hasSize(10).containsOnly(30);
    assertThat(CommitBenchmark.warmupRuns(options(30, 70))).containsExactly(30, 30, 10);
    assertThat(CommitBenchmark.warmupRuns(options(30, 20))).containsExactly(20);
    assertThat(CommitBenchmark.warmupRuns(options(30, 0))).isEmpty();
  }

  @Test
  void aWarmUpRunsTablesAreRemovedFromALocalDiskAndOtherRunsKeepTheirs() throws Exception {
    Path lance = Files.createDirectories(workDir.resolve("warmup1/lance/t0.lance/_versions"));
    Files.writeString(lance.resolve("1.manifest"), "m");
    Path coordinators = Files.createDirectories(workDir.resolve("coordinator-local/warmup1/appends.lance/data"));
    Files.writeString(coordinators.resolve("f.lance"), "d");
    Path measured = Files.createDirectories(workDir.resolve("coordinator-local/run2/appends.lance"));
    Path catalog = Files.createDirectories(workDir.resolve("coordinator-local/_catalog"));

    try (BenchStore store = BenchStore.open(BenchStore.Kind.LOCAL, workDir, null)) {
      store.removeTablesOf("warmup1");
    }

    assertThat(workDir.resolve("warmup1")).doesNotExist();
    assertThat(workDir.resolve("coordinator-local/warmup1")).doesNotExist();
    assertThat(measured).exists();
    assertThat(catalog).exists();
  }

  private static BenchOptions options(int seconds, int warmupSeconds) {
    return BenchOptions.parse(new String[] {"--seconds", Integer.toString(seconds), "--warmup-seconds",
        Integer.toString(warmupSeconds)}, new PrintStream(new ByteArrayOutputStream()));
  }
}
