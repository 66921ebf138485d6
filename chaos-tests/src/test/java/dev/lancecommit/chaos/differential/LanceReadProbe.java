package dev.lancecommit.chaos.differential;

import dev.lancecommit.chaos.harness.JvmClasspath;
import dev.lancecommit.testing.lance.LanceTables;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * Stock Lance reading table versions in a child JVM, because on some damage lance-core does not throw but aborts the
 * process (a Rust panic across the JNI boundary). For each {@code path version} line on stdin the child opens the
 * version as a Lance Java user would and prints one verdict line: it lists the fragments (their metadata converted to
 * Java objects) and the indices, counts the rows, scans every row of every column, and scans again with a filter an
 * index may serve. When the child dies, the case it was reading is unreadable and a new child takes the rest.
 */
public final class LanceReadProbe {
  private static final String READABLE = "READABLE";
  private static final String UNREADABLE = "UNREADABLE ";

  private LanceReadProbe() {}

  /** Stock Lance's verdict on each {@code table -> version}, keyed by table. */
  static Map<Path, String> verdicts(Map<Path, Long> versions) throws IOException, InterruptedException {
    List<Map.Entry<Path, Long>> cases = new ArrayList<>(versions.entrySet());
    List<String> verdicts = verdicts(cases);
    Map<Path, String> byTable = new HashMap<>();
    for (int i = 0; i < cases.size(); i++) {
      byTable.put(cases.get(i).getKey(), verdicts.get(i));
    }
    return byTable;
  }

  /** Stock Lance's verdict on each case (a table root and one of its versions), in order. */
  public static List<String> verdicts(List<Map.Entry<Path, Long>> cases) throws IOException, InterruptedException {
    List<String> verdicts = new ArrayList<>();
    while (verdicts.size() < cases.size()) {
      List<Map.Entry<Path, Long>> pending = cases.subList(verdicts.size(), cases.size());
      Path stderr = Files.createTempFile("lance-probe", ".err");
      Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
          "-Xmx768m", "--add-opens=java.base/java.nio=ALL-UNNAMED", "-cp", JvmClasspath.current(),
          LanceReadProbe.class.getName())
          .redirectError(stderr.toFile())
          .start();
      // a Rust panic may also hang a scan instead of aborting: the child gets a few minutes for all its cases
      Thread watchdog = new Thread(() -> {
        try {
          if (!child.waitFor(4, TimeUnit.MINUTES)) {
            child.destroyForcibly();
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "lance-probe-watchdog");
      watchdog.setDaemon(true);
      watchdog.start();
      try (BufferedWriter in = new BufferedWriter(new OutputStreamWriter(child.getOutputStream(),
          StandardCharsets.UTF_8))) {
        for (Map.Entry<Path, Long> c : pending) {
          in.write(c.getKey() + "\t" + c.getValue() + "\n");
        }
      }
      int answered = 0;
      try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
          StandardCharsets.UTF_8))) {
        String line;
        while (answered < pending.size() && (line = out.readLine()) != null) {
          if (line.startsWith(READABLE) || line.startsWith(UNREADABLE)) {
            verdicts.add(line);
            answered++;
          }
        }
      }
      child.waitFor();
      watchdog.interrupt();
      if (verdicts.size() < cases.size()) {
        List<String> err = Files.readAllLines(stderr);
        String last = err.stream().filter(l -> l.contains("panicked") || l.contains("rror")).reduce((a, b) -> b)
            .orElse(err.isEmpty() ? "" : err.get(err.size() - 1));
        verdicts.add(UNREADABLE + "stock Lance aborted or hung the JVM (exit " + child.exitValue() + "): " + last);
      }
      Files.deleteIfExists(stderr);
    }
    return verdicts;
  }

  public static boolean readable(String verdict) {
    return verdict.startsWith(READABLE);
  }

  public static void main(String[] args) throws IOException {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      String[] parts = line.split("\t");
      System.out.println(read(Path.of(parts[0]), Long.parseLong(parts[1])));
      System.out.flush();
    }
    System.exit(0);
  }

  private static String read(Path table, long version) {
    try (LanceTables lance = LanceTables.local(table); Dataset ds = lance.open(version)) {
      for (Fragment fragment : ds.getFragments()) {
        fragment.metadata().getFiles().forEach(file -> file.getPath());
      }
      ds.getIndexes().forEach(index -> index.fragments());
      long counted = ds.countRows();
      List<String> rows = TableSnapshot.rows(ds);
      if (rows.size() != counted) {
        return UNREADABLE + "countRows says " + counted + " but a scan returns " + rows.size();
      }
      try (LanceScanner filtered = ds.newScan(new ScanOptions.Builder().filter("id >= 0").build());
          ArrowReader reader = filtered.scanBatches()) {
        while (reader.loadNextBatch()) {
          reader.getVectorSchemaRoot().getRowCount();
        }
      }
      return READABLE + " " + counted + " rows";
    } catch (Throwable e) {
      return UNREADABLE + e.getClass().getSimpleName() + ": " + String.valueOf(e.getMessage()).replace('\n', ' ');
    }
  }
}
