package dev.lancecommit.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The project's Python test environment: a virtual environment with the requirements pinned in
 * {@code clients/python/requirements-test.txt} (stock {@code pylance} and {@code lance-namespace}, {@code pytest}).
 * It is {@code $LCC_PYTHON_VENV} when set (deploy/local/test.sh creates it there), else {@code target/python-venv} at
 * the repository root; created and installed on first use, reused afterwards.
 *
 * <p>Without {@code python3} and its venv module, tests are skipped only on a developer's {@code mvn} run: under
 * deploy/local/test.sh ({@code LCC_PYTHON_VENV} set) or CI ({@code CI} set) they fail. A failed install fails.
 */
public final class PythonClients {
  /** Relative to the repository root. */
  public static final String REQUIREMENTS = "clients/python/requirements-test.txt";
  private static final long INSTALL_TIMEOUT_MINUTES = 15;

  private final Path root;
  private final Path python;

  private PythonClients(Path root, Path python) {
    this.root = root;
    this.python = python;
  }

  /** The environment, installing the requirements if needed; see the class comment for when it skips. */
  public static synchronized PythonClients require() {
    Path root = repositoryRoot();
    boolean available = run(List.of("python3", "-m", "venv", "--help"), Map.of(), null, 1).exitCode() == 0;
    if (!available) {
      String why = "python3 with the venv module is not available on this machine (Debian/Ubuntu: apt-get install"
          + " python3 python3-venv)";
      if (strict()) {
        throw new IllegalStateException(why + "; the Python tests are part of the test command and cannot be skipped"
            + " here (LCC_PYTHON_VENV or CI is set)");
      }
      assumeTrue(false, why);
    }
    String configured = System.getenv("LCC_PYTHON_VENV");
    Path venv = configured == null || configured.isBlank() ? root.resolve("target").resolve("python-venv")
        : Path.of(configured).toAbsolutePath();
    Path python = venv.resolve("bin").resolve("python");
    Map<String, String> pins = pins(root.resolve(REQUIREMENTS));
    if (!installed(python, pins)) {
      check(run(List.of("python3", "-m", "venv", venv.toString()), Map.of(), null, 5), "creating " + venv);
      check(run(List.of(python.toString(), "-m", "pip", "install", "--quiet", "-r",
          root.resolve(REQUIREMENTS).toString()), Map.of(), null, INSTALL_TIMEOUT_MINUTES),
          "pip install -r " + REQUIREMENTS);
      if (!installed(python, pins)) {
        throw new IllegalStateException("pip installed " + pins + " into " + venv
            + " but they do not import at those versions");
      }
    }
    return new PythonClients(root, python);
  }

  /** The repository root: the first directory upwards from the working directory that has deploy/local/test.sh. */
  public static Path repositoryRoot() {
    Path dir = Path.of("").toAbsolutePath();
    for (Path d = dir; d != null; d = d.getParent()) {
      if (Files.isRegularFile(d.resolve("deploy").resolve("local").resolve("test.sh"))) {
        return d;
      }
    }
    throw new IllegalStateException("no repository root (with deploy/local/test.sh) above " + dir);
  }

  public Path python() {
    return python;
  }

  /**
   * {@code pip install} of a project directory of this repository (e.g. {@code clients/python}) as it is now, without
   * its dependencies: the requirements file pins those.
   */
  public void installProject(String relativeDir) {
    check(run(List.of(python.toString(), "-m", "pip", "install", "--quiet", "--force-reinstall", "--no-deps",
        root.resolve(relativeDir).toString()), Map.of(), null, INSTALL_TIMEOUT_MINUTES),
        "pip install " + relativeDir);
  }

  /**
   * Runs a script shipped under {@code src/test/resources/python/}. The environment carries no AWS settings, so the
   * script can only reach storage with what the namespace vends.
   */
  public Result runScript(String resource, List<String> args, long timeoutMinutes) {
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
      return run(command, Map.of("PYTHONUNBUFFERED", "1"), null, timeoutMinutes);
    } finally {
      script.toFile().delete();
    }
  }

  /** Runs {@code python ARGS...} in {@code workDir} with {@code env} added (no AWS settings inherited). */
  public Result runPython(List<String> args, Map<String, String> env, Path workDir, long timeoutMinutes) {
    List<String> command = new ArrayList<>(List.of(python.toString()));
    command.addAll(args);
    Map<String, String> withDefaults = new LinkedHashMap<>(Map.of("PYTHONUNBUFFERED", "1"));
    withDefaults.putAll(env);
    return run(command, withDefaults, workDir, timeoutMinutes);
  }

  /** What a process printed (stdout and stderr together) and how it ended; -1 when it timed out. */
  public record Result(int exitCode, String output) {
    /** The JSON after the last {@code RESULT } line, or null. */
    public String resultJson() {
      String found = null;
      for (String line : output.split("\n")) {
        if (line.startsWith("RESULT ")) {
          found = line.substring("RESULT ".length());
        }
      }
      return found;
    }
  }

  private static boolean strict() {
    String venv = System.getenv("LCC_PYTHON_VENV");
    String ci = System.getenv("CI");
    return venv != null && !venv.isBlank() || ci != null && !ci.isBlank() && !ci.equalsIgnoreCase("false");
  }

  /** {@code name==version} lines of a requirements file. */
  private static Map<String, String> pins(Path requirements) {
    Map<String, String> pins = new LinkedHashMap<>();
    try {
      for (String line : Files.readAllLines(requirements, StandardCharsets.UTF_8)) {
        String l = line.strip();
        if (l.isEmpty() || l.startsWith("#")) {
          continue;
        }
        int eq = l.indexOf("==");
        if (eq < 0) {
          throw new IllegalStateException(requirements + ": pin every requirement with ==, got '" + l + "'");
        }
        pins.put(l.substring(0, eq).strip(), l.substring(eq + 2).strip());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return pins;
  }

  private static boolean installed(Path python, Map<String, String> pins) {
    if (!Files.isExecutable(python)) {
      return false;
    }
    StringBuilder probe = new StringBuilder("import importlib.metadata as m\n");
    pins.forEach((name, version) -> probe.append("assert m.version('").append(name).append("') == '")
        .append(version).append("'\n"));
    return run(List.of(python.toString(), "-c", probe.toString()), Map.of(), null, 2).exitCode() == 0;
  }

  private static void check(Result result, String what) {
    if (result.exitCode() != 0) {
      throw new IllegalStateException(what + " failed (exit " + result.exitCode() + "):\n" + result.output());
    }
  }

  private static Result run(List<String> command, Map<String, String> extraEnv, Path workDir, long timeoutMinutes) {
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    if (workDir != null) {
      builder.directory(workDir.toFile());
    }
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
