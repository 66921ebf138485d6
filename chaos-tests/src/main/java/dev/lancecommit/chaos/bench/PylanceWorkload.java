package dev.lancecommit.chaos.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lancecommit.e2e.CommitApi;
import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.testing.lance.LanceTables;
import dev.lancecommit.client.lance.TransactionFactory;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Stock pylance writers (threads of one Python process, {@code bench/pylance_bench.py}) append to one table:
 * through the coordinator's namespace (managed versioning: pylance stages the manifest and calls CreateTableVersion),
 * once on a table with {@code managed_versioning.appends_on_latest=true} (a taken Append lands on the latest
 * version) and once without (a taken version is refused and pylance retries), against the same writers committing
 * on the path with Lance's own loop. The data file is written before each clock starts, by default inside the window;
 * with {@code --data-files-ahead} each writer writes its share of the files before the window opens, as for appends.
 * Afterwards the table must be at version 1 + acknowledged commits with exactly their rows.
 */
final class PylanceWorkload implements Workload {
  static final String ON_LATEST = "namespace, appends_on_latest";
  static final String STRICT = "namespace";
  static final String PATH = "path (pylance)";
  private static final ObjectMapper JSON = new ObjectMapper();
  /** What pylance_bench.py prints when its window opens and closes, so the CPU of the window alone is read. */
  private static final String WINDOW_OPEN = "WINDOW OPEN";
  private static final String WINDOW_CLOSED = "WINDOW CLOSED";

  private final Path python;

  PylanceWorkload(Path python) {
    this.python = python;
  }

  /** The python of the pylance venv: the option, else $LCC_PYTHON_VENV, else the coordinator tests' venv. */
  static Optional<Path> locatePython(Optional<Path> option) {
    List<Path> candidates = new ArrayList<>();
    option.ifPresent(candidates::add);
    String venv = System.getenv("LCC_PYTHON_VENV");
    if (venv != null && !venv.isBlank()) {
      candidates.add(Path.of(venv, "bin", "python"));
    }
    candidates.add(Path.of("coordinator", "target", "python-venv", "bin", "python"));
    candidates.add(Path.of("..", "coordinator", "target", "python-venv", "bin", "python"));
    return candidates.stream().filter(Files::isExecutable).findFirst().map(Path::toAbsolutePath);
  }

  @Override
  public List<String> systems() {
    return List.of(ON_LATEST, STRICT, PATH);
  }

  @Override
  public RunResult run(String system, Cell cell) throws Exception {
    int rows = cell.options().rowsPerCommit();
    Map<String, String> options = cell.store().lanceOptions();
    if (system.equals(PATH)) {
      try (LanceTables lance = LanceTables.at(cell.store().uri(cell.name() + "/pylance-path/t.lance"), options)) {
        lance.createWithLance(0, rows);
        ObjectNode config = config(cell, "path", options).put("uri", lance.uri());
        RunResult result = runPython(system, config);
        verify(result, lance, lance.latestVersion(), rows);
        return result;
      }
    }
    try (BenchCoordinator coordinator = BenchCoordinator.start(cell)) {
      Map<String, String> properties = new LinkedHashMap<>();
      properties.put("managed_versioning", "true");
      if (system.equals(ON_LATEST)) {
        properties.put("managed_versioning.appends_on_latest", "true");
      }
      coordinator.createNamespace(JSON.writeValueAsString(properties));
      List<String> id = List.of(coordinator.namespace(), "pylance");
      try (LanceTables lance = LanceTables.at(coordinator.declare(id), options)) {
        CommitApi.Response created = coordinator.api().commit(id, TransactionFactory.create(
            LanceProtos.schema(LanceTables.ROW_SCHEMA), LanceProtos.fragments(lance.writeRows(0, rows))));
        if (created.status() != 200) {
          throw new IllegalStateException("could not create " + id + ": " + created);
        }
        ObjectNode config = config(cell, "namespace", options).put("url", coordinator.restUrl());
        config.putArray("table_id").add(id.get(0)).add(id.get(1));
        RunResult result = runPython(system, config);
        verify(result, lance, coordinator.api().latestVersion(id), rows);
        return result;
      }
    }
  }

  private static ObjectNode config(Cell cell, String mode, Map<String, String> storageOptions) {
    ObjectNode config = JSON.createObjectNode()
        .put("mode", mode)
        .put("writers", cell.writers())
        .put("seconds", cell.options().seconds())
        .put("rows", cell.options().rowsPerCommit())
        .put("first_id", cell.options().rowsPerCommit())
        .put("files_ahead", filesAheadPerWriter(cell));
    ObjectNode optionsNode = config.putObject("storage_options");
    storageOptions.forEach(optionsNode::put);
    return config;
  }

  /** Each writer's share of the files written ahead of the window. */
  private static int filesAheadPerWriter(Cell cell) {
    return (int) Math.ceil((double) cell.options().dataFilesAheadOfWindow() / cell.writers());
  }

  private RunResult runPython(String system, ObjectNode config) throws Exception {
    Path script = Files.createTempFile("lcc-pylance-bench-", ".py");
    Path configFile = Files.createTempFile("lcc-pylance-bench-", ".json");
    try (InputStream in = PylanceWorkload.class.getResourceAsStream("/bench/pylance_bench.py")) {
      Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
      Files.writeString(configFile, config.toString());
      int ahead = config.get("files_ahead").asInt();
      CommitBenchmark.log("running " + system + ": " + config.get("writers").asInt() + " pylance writers for "
          + config.get("seconds").asInt() + " s" + (ahead > 0 ? ", each writing " + ahead
          + " data files before the window" : ""));
      ProcessBuilder builder = new ProcessBuilder(python.toString(), script.toString(), configFile.toString())
          .redirectErrorStream(true);
      builder.environment().keySet().removeIf(name -> name.startsWith("AWS_"));
      builder.environment().put("PYTHONUNBUFFERED", "1");
      Process process = builder.start();
      ThreadCpu.watchAs(process.pid(), "pylance");
      StringBuilder output = new StringBuilder();
      Optional<ThreadCpu> cpuAtOpen = Optional.empty();
      Optional<Map<String, Long>> cpuInWindow = Optional.empty();
      long opened = 0;
      double windowSeconds = 0;
      try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
          StandardCharsets.UTF_8))) {
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
          output.append(line).append('\n');
          if (line.equals(WINDOW_OPEN)) {
            opened = System.nanoTime();
            cpuAtOpen = ThreadCpu.now();
          } else if (line.equals(WINDOW_CLOSED)) {
            windowSeconds = (System.nanoTime() - opened) / 1e9;
            cpuInWindow = cpuAtOpen.flatMap(before -> ThreadCpu.now().map(after -> after.since(before)));
          }
        }
      } finally {
        ThreadCpu.unwatch(process.pid());
      }
      if (!process.waitFor(10, TimeUnit.MINUTES) || process.exitValue() != 0) {
        process.destroyForcibly();
        throw new IllegalStateException("pylance_bench.py failed:\n" + output);
      }
      String line = output.toString().lines().filter(l -> l.startsWith("RESULT ")).reduce((a, b) -> b).orElseThrow(() ->
          new IllegalStateException("pylance_bench.py printed no RESULT:\n" + output));
      JsonNode json = JSON.readTree(line.substring("RESULT ".length()));
      RunResult result = new RunResult(system);
      List<Long> latencies = new ArrayList<>();
      json.get("latencies_ns").forEach(n -> latencies.add(n.asLong()));
      result.addLatencies(latencies, json.get("in_window").asInt(), json.get("rows").asLong());
      Map<String, Integer> failures = new LinkedHashMap<>();
      json.get("failures").fields().forEachRemaining(e -> failures.put(e.getKey(), e.getValue().asInt()));
      result.failures(failures);
      result.elapsed(json.get("window_ns").asLong(), json.get("elapsed_ns").asLong());
      double seconds = windowSeconds;
      cpuInWindow.ifPresent(spent -> {
        CommitBenchmark.log(ThreadCpu.describe(spent, seconds, Runtime.getRuntime().availableProcessors()));
        CommitBenchmark.log(ThreadCpu.perCommit(spent, result.commitsInWindow()));
      });
      if (ahead > 0 && json.get("written_in_window").asInt() > 0) {
        CommitBenchmark.log(system + ": the files written ahead ran out; " + json.get("written_in_window").asInt()
            + " more were written in the window");
      }
      return result;
    } catch (IOException e) {
      throw new IllegalStateException("could not run " + python, e);
    } finally {
      Files.deleteIfExists(script);
      Files.deleteIfExists(configFile);
    }
  }

  private static void verify(RunResult result, LanceTables lance, long latest, int rows) {
    long expectedRows = (long) rows * (1 + result.commits());
    long actualRows = lance.countRows(latest);
    result.verification(latest == 1 + result.commits() && actualRows == expectedRows,
        "v" + latest + ", " + actualRows + " rows (expected v" + (1 + result.commits()) + ", " + expectedRows + ")");
  }
}
