package dev.lancecommit.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.testing.PythonClients;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Python client's pytest suite ({@code clients/python/tests}) in the project's Python test environment, against
 * a coordinator started here: the client installed from {@code clients/python} as it is now, with pylance 14.0.2.
 */
class PythonClientTest {
  /** The suite's size when this was written; a run that collects fewer tests than this fails. */
  private static final int AT_LEAST = 20;

  @TempDir Path dir;

  @Test
  void thePytestSuitePassesAgainstARealCoordinator() {
    PythonClients python = PythonClients.require();
    python.installProject("clients/python");
    Path project = PythonClients.repositoryRoot().resolve("clients/python");
    try (LocalCoordinator coordinator = LocalCoordinator.start(dir.resolve("warehouse"))) {
      PythonClients.Result run = python.runPython(List.of("-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"),
          Map.of("LCC_URL", coordinator.url()), project, 20);
      assertThat(run.exitCode()).as("pytest output:\n%s", run.output()).isZero();
      Matcher passed = Pattern.compile("(\\d+) passed").matcher(run.output());
      assertThat(passed.find()).as("pytest output:\n%s", run.output()).isTrue();
      assertThat(Integer.parseInt(passed.group(1))).as("pytest output:\n%s", run.output())
          .isGreaterThanOrEqualTo(AT_LEAST);
      assertThat(run.output()).doesNotContain(" skipped");
    }
  }
}
