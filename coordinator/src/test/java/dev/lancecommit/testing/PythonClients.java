package dev.lancecommit.e2e.managed;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The stock Python clients in a virtual environment: {@code pylance} and {@code lance-namespace} at the pinned
 * versions. The environment is {@code $LCC_PYTHON_VENV} when set (deploy/local/test.sh can prepare it), else
 * {@code target/python-venv}; it is created and installed on first use and reused afterwards. Tests are skipped
 * only when this machine has no {@code python3} with the venv module; a failed install fails the test.
 */
final class PythonClients {
  static final String PYLANCE = "pylance==14.0.2";
  static final String LANCE_NAMESPACE = "lance-namespace==0.13.0";
  private static final long INSTALL_TIMEOUT_MINUTES = 15;

  private final Path python;

  private PythonClients(Path python) {
    this.python = python;
  }

  /** The environment, installing the clients if needed; skips the calling test when python3/venv is missing. */
  static synchronized PythonClients require() {
    assumeTrue(run(List.of("python3", "-m", "venv", "--help"), Map.of(), 1).exitCode() == 0,
        "python3 with the venv module is not available on this machine");
    String configured = System.getenv("LCC_PYTHON_VENV");
    Path venv = (configured == null || configured.isBlank() ? Path.of("target", "python-venv") : Path.of(configured))
        .toAbsolutePath();
    Path python = venv.resolve("bin").resolve("python");
    if (!installed(python)) {
      check(run(List.of("python3", "-m", "venv", venv.toString()), Map.of(), 5), "creating " + venv);
      check(run(List.of(python.toString(), "-m", "pip", "install", "--quiet", PYLANCE, LANCE_NAMESPACE), Map.of(),
          INSTALL_TIMEOUT_MINUTES), "pip install " + PYLANCE + " " + LANCE_NAMESPACE);
      if (!installed(python)) {
        throw new IllegalStateException("pip installed " + PYLANCE + " and " + LANCE_NAMESPACE + " into " + venv
            + " but they do not import at those versions");
      }
    }
    return new PythonClients(python);
  }

  /**
   * Runs a script shipped under {@code src/test/resources/python/}. The environment carries no AWS settings, so the
   * script can only reach storage with what the namespace vends.
   */
  Result runScript(String resource, List<String> args, long timeoutMinutes) {
    Path script;
    try (InputStream in = PythonClients.class.getResourceAsStream("/python/" + resource)) {
      if (in == null) {
        throw new IllegalArgumentException("no test resource python/" + resource);
      }
      script = Files.createTempFile("lcc-", "-" + resource);
      Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<String> command = new ArrayList<>(List.of(python.toString(), script.toString()));
    command.addAll(args);
    try {
      return run(command, Map.of("PYTHONUNBUFFERED", "1"), timeoutMinutes);
    } finally {
      script.toFile().delete();
    }
  }

  /** What a process printed (stdout and stderr together) and how it ended; -1 when it timed out. */
  record Result(int exitCode, String output) {
    /** The JSON after the last {@code RESULT } line, or null. */
    String resultJson() {
      String found = null;
      for (String line : output.split("\n")) {
        if (line.startsWith("RESULT ")) {
          found = line.substring("RESULT ".length());
        }
      }
      return found;
    }
  }

  private static boolean installed(Path python) {
    if (!Files.isExecutable(python)) {
      return false;
    }
    String probe = "import lance, lance_namespace, importlib.metadata as m; "
        + "assert m.version('pylance') == '" + version(PYLANCE) + "'; "
        + "assert m.version('lance-namespace') == '" + version(LANCE_NAMESPACE) + "'";
    return run(List.of(python.toString(), "-c", probe), Map.of(), 2).exitCode() == 0;
  }

  private static String version(String requirement) {
    return requirement.substring(requirement.indexOf("==") + 2);
  }

  private static void check(Result result, String what) {
    if (result.exitCode() != 0) {
      throw new IllegalStateException(what + " failed (exit " + result.exitCode() + "):\n" + result.output());
    }
  }

  private static Result run(List<String> command, Map<String, String> extraEnv, long timeoutMinutes) {
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().keySet().removeIf(name -> name.startsWith("AWS_"));
    builder.environment().putAll(extraEnv);
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      return new Result(127, e.toString());
    }
    try {
      // Read on the side so a chatty process never blocks on a full pipe.
      StringBuilder output = new StringBuilder();
      Thread reader = new Thread(() -> {
        try (InputStream in = process.getInputStream()) {
          output.append(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
          output.append("\n(output unreadable: ").append(e).append(')');
        }
      });
      reader.start();
      boolean done = process.waitFor(timeoutMinutes, TimeUnit.MINUTES);
      if (!done) {
        process.destroyForcibly();
      }
      reader.join(TimeUnit.SECONDS.toMillis(30));
      return new Result(done ? process.exitValue() : -1, output.toString());
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + command, e);
    }
  }
}
