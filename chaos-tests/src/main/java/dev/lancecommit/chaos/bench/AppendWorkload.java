package dev.lancecommit.chaos.bench;

import dev.lancecommit.e2e.CommitApi;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.testing.lance.LanceTables;
import dev.lancecommit.client.lance.TransactionFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.FragmentMetadata;
import org.lance.operation.Append;

/**
 * Writers append to their table ({@code writersPerTable} per table): through the coordinator, the Append
 * transaction sent to CommitTable (raw protobuf) from the version the writer last saw, again on a new read version
 * after 409/14 or 429; directly, Lance's own commit loop ({@code CommitBuilder}: listing, conflict check, rebase,
 * backoff, retries). Each writer writes its data file with Lance before its clock starts; only the commit is timed.
 * Afterwards every table must be at version 1 + its acknowledged commits, with exactly the acknowledged rows.
 */
final class AppendWorkload implements Workload {
  static final String COORDINATOR = "coordinator";
  static final String LANCE = "lance";
  private static final int MAX_ATTEMPTS_PER_COMMIT = 200;

  @Override
  public List<String> systems() {
    return List.of(COORDINATOR, LANCE);
  }

  @Override
  public RunResult run(String system, Cell cell) throws Exception {
    return system.equals(COORDINATOR) ? throughCoordinator(cell) : throughLance(cell);
  }

  private RunResult throughCoordinator(Cell cell) throws Exception {
    int rows = cell.options().rowsPerCommit();
    try (BenchCoordinator coordinator = BenchCoordinator.start(cell)) {
      CommitApi api = coordinator.api();
      String namespace = coordinator.namespace();
      coordinator.createNamespace("{}");
      List<List<String>> ids = new ArrayList<>();
      List<LanceTables> tables = new ArrayList<>();
      try {
        for (int t = 0; t < cell.tables(); t++) {
          List<String> id = List.of(namespace, "t" + t);
          ids.add(id);
          LanceTables lance = LanceTables.at(coordinator.declare(id), cell.store().lanceOptions());
          tables.add(lance);
          CommitApi.Response created = api.commit(id, TransactionFactory.create(
              LanceProtos.schema(LanceTables.ROW_SCHEMA), LanceProtos.fragments(lance.writeRows(0, rows))));
          if (created.status() != 200) {
            throw new IllegalStateException("could not create " + id + ": " + created);
          }
        }
        RunResult result = new RunResult(COORDINATOR);
        result.countsRetries();
        List<DataFiles> files = dataFiles(cell, tables);
        AtomicLongArray committedPerTable = new AtomicLongArray(cell.tables());
        // a group commit gives several writers one version: the versions made are counted apart from the commits
        List<Set<Long>> versionsPerTable = new ArrayList<>();
        for (int t = 0; t < cell.tables(); t++) {
          versionsPerTable.add(ConcurrentHashMap.newKeySet());
        }
        WriterPool.run(result, cell.writers(), cell.options().seconds(), (writer, deadline) -> {
          int table = writer / cell.writersPerTable();
          List<String> id = ids.get(table);
          DataFiles tableFiles = files.get(table);
          long seen = 1;
          while (System.nanoTime() < deadline) {
            Transaction txn = TransactionFactory.append(seen, LanceProtos.fragments(tableFiles.next()));
            if (System.nanoTime() >= deadline) {
              break;
            }
            long start = System.nanoTime();
            try {
              seen = commit(api, id, txn, result, start, deadline, rows);
              committedPerTable.incrementAndGet(table);
              versionsPerTable.get(table).add(seen);
            } catch (RuntimeException e) {
              result.failed(e);
              seen = api.latestVersion(id);
            }
          }
        });
        logWrittenInWindow(files);
        verify(result, tables, committedPerTable, t -> versionsPerTable.get(t).size(), rows,
            t -> api.latestVersion(ids.get(t)));
        return result;
      } finally {
        tables.forEach(LanceTables::close);
      }
    }
  }

  /** Commits {@code txn}, rebased on the latest version after each 409/14 or 429; returns the committed version. */
  static long commit(CommitApi api, List<String> id, Transaction txn, RunResult result, long start, long deadline,
      int rows) {
    Transaction attempt = txn;
    for (int i = 1; i <= MAX_ATTEMPTS_PER_COMMIT; i++) {
      CommitApi.Response r = api.commit(id, attempt);
      if (r.status() == 200) {
        long end = System.nanoTime();
        result.committed(end - start, rows, end <= deadline);
        if (r.body().has("group_size")) {
          result.groupSize(r.body().get("group_size").asInt());
        }
        return r.version();
      }
      if (!(r.status() == 409 && r.code() == 14) && r.status() != 429) {
        throw new IllegalStateException("commit refused: " + r);
      }
      result.retried();
      attempt = TransactionFactory.rebased(txn, api.latestVersion(id));
    }
    throw new IllegalStateException("no commit after " + MAX_ATTEMPTS_PER_COMMIT + " attempts");
  }

  private RunResult throughLance(Cell cell) throws Exception {
    int rows = cell.options().rowsPerCommit();
    List<LanceTables> tables = new ArrayList<>();
    try {
      for (int t = 0; t < cell.tables(); t++) {
        LanceTables lance = cell.options().lanceTable(cell.store().uri(cell.name() + "/lance/t" + t + ".lance"),
            cell.store().lanceOptions());
        tables.add(lance);
        lance.createWithLance(0, rows);
      }
      RunResult result = new RunResult(LANCE);
      List<DataFiles> files = dataFiles(cell, tables);
      AtomicLongArray committedPerTable = new AtomicLongArray(cell.tables());
      WriterPool.run(result, cell.writers(), cell.options().seconds(), (writer, deadline) -> {
        int table = writer / cell.writersPerTable();
        LanceTables lance = tables.get(table);
        DataFiles tableFiles = files.get(table);
        Dataset ds = lance.open();
        try {
          while (System.nanoTime() < deadline) {
            List<FragmentMetadata> fragments = tableFiles.next();
            if (System.nanoTime() >= deadline) {
              break;
            }
            long start = System.nanoTime();
            try (org.lance.Transaction txn =
                     new org.lance.Transaction(ds.version(), Append.builder().fragments(fragments).build())) {
              Dataset next = new CommitBuilder(ds).execute(txn);
              long end = System.nanoTime();
              result.committed(end - start, rows, end <= deadline);
              committedPerTable.incrementAndGet(table);
              ds.close();
              ds = next;
            } catch (RuntimeException e) {
              result.failed(e);
              ds.close();
              ds = lance.open();
            }
          }
        } finally {
          ds.close();
        }
      });
      logWrittenInWindow(files);
      verify(result, tables, committedPerTable, committedPerTable::get, rows, t -> tables.get(t).latestVersion());
      return result;
    } finally {
      tables.forEach(LanceTables::close);
    }
  }

  /** Each table's data files: written ahead when the options ask for it, else per commit by its writers. */
  private static List<DataFiles> dataFiles(Cell cell, List<LanceTables> tables) throws Exception {
    int rows = cell.options().rowsPerCommit();
    long ahead = cell.options().dataFilesAheadOfWindow();
    List<DataFiles> files = new ArrayList<>();
    if (ahead > 0) {
      CommitBenchmark.log("writing " + ahead + " data files before the window");
    }
    for (LanceTables lance : tables) {
      AtomicLong nextId = new AtomicLong(rows);
      files.add(ahead == 0 ? DataFiles.perCommit(lance, rows, nextId)
          : DataFiles.ahead(lance, rows, nextId, (int) Math.ceil((double) ahead / tables.size()),
              Math.max(2, cell.writersPerTable())));
    }
    if (ahead > 0) {
      CommitBenchmark.flushWrittenAhead(cell);
    }
    return files;
  }

  private static void logWrittenInWindow(List<DataFiles> files) {
    CommitBenchmark.log("data files the writers wrote inside the window: "
        + files.stream().mapToInt(DataFiles::writtenInWindow).sum());
  }

  private interface Latest {
    long of(int table);
  }

  /**
   * Every table: latest version = 1 + the versions its acknowledged commits made (one per commit, fewer when commits
   * were grouped), rows = its first rows + the acknowledged ones.
   */
  private static void verify(RunResult result, List<LanceTables> tables, AtomicLongArray committed, Latest made,
      int rows, Latest latest) {
    List<String> mismatches = new ArrayList<>();
    long versions = 0;
    long totalRows = 0;
    for (int t = 0; t < tables.size(); t++) {
      long version = latest.of(t);
      long expectedRows = rows * (1 + committed.get(t));
      long actualRows = tables.get(t).countRows(version);
      versions += version;
      totalRows += actualRows;
      if (version != 1 + made.of(t) || actualRows != expectedRows) {
        mismatches.add("t" + t + " at v" + version + " with " + actualRows + " rows (expected v"
            + (1 + made.of(t)) + ", " + expectedRows + " rows)");
      }
    }
    String summary = tables.size() == 1 ? "v" + versions + ", " + totalRows + " rows"
        : tables.size() + " tables, " + versions + " versions, " + totalRows + " rows";
    result.verification(mismatches.isEmpty(), mismatches.isEmpty() ? summary
        : String.join("; ", mismatches.subList(0, Math.min(3, mismatches.size()))));
  }
}
