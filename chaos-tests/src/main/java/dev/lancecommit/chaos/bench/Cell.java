package dev.lancecommit.chaos.bench;

import java.nio.file.Path;

/**
 * One cell of the matrix as a run sees it.
 *
 * @param tables tables written (1, or --tables for the 'tables' workload)
 * @param writersPerTable writer threads per table
 * @param workDir a fresh directory of this run (local tables, the embedded broker's coordinator files)
 * @param name unique among the runs of the matrix; prefixes the run's tables and warehouse on a shared store
 * @param kafka what the coordinator publishes to: none, or a bootstrap address
 * @param warmup a warm-up run, not reported (its coordinator also gets {@link ServiceTraffic})
 */
record Cell(Workload.Kind workload, BenchStore store, int tables, int writersPerTable, BenchOptions options,
    Path workDir, String name, String kafka, boolean warmup) {

  int writers() {
    return tables * writersPerTable;
  }
}
