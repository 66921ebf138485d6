package dev.lancecommit.chaos.bench;

import java.util.List;

/** One kind of write the matrix measures, run by each system it compares. */
interface Workload {
  enum Kind {
    APPENDS("appends"),
    UPSERTS("upserts"),
    PYLANCE("pylance"),
    TABLES("tables");

    private final String cliName;

    Kind(String cliName) {
      this.cliName = cliName;
    }

    String cliName() {
      return cliName;
    }

    static Kind parse(String value) {
      for (Kind kind : values()) {
        if (kind.cliName.equals(BenchOptions.lower(value))) {
          return kind;
        }
      }
      throw new IllegalArgumentException("unknown workload '" + value + "' (appends, upserts, pylance, tables)");
    }
  }

  /** The systems compared, coordinator first, each a run of its own in the cell. */
  List<String> systems();

  /** Runs {@code system} in {@code cell}: writers for the window, then the check of what the table holds. */
  RunResult run(String system, Cell cell) throws Exception;
}
