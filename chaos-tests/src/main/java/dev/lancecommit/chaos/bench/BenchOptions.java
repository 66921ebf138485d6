package dev.lancecommit.chaos.bench;

import java.util.Locale;

/** Command-line options of {@link CommitBenchmark}. */
record BenchOptions(int writers, int seconds, int rowsPerCommit, String store, String warehouse, String kafka,
    String mode) {

  static final String USAGE = """
      CommitBenchmark: N concurrent writers append to one table for a fixed time, through the coordinator (HTTP
      CommitTable) and directly through Lance's own commit loop (CommitBuilder), on the same kind of store.

      Options:
        --writers N           concurrent writer threads (default 16)
        --seconds S           duration of each run (default 30)
        --rows-per-commit R   rows in the data file of each commit (default 100)
        --store local|s3proxy where both tables live (default local; s3proxy starts one in-process)
        --warehouse URI       coordinator warehouse (default: a temp dir, or s3://<bucket>/bench-coordinator)
        --kafka K             coordinator events: embedded (default), none, or host:port
        --mode both|coordinator|lance   which runs (default both)
      """;

  static BenchOptions parse(String[] args) {
    int writers = 16;
    int seconds = 30;
    int rows = 100;
    String store = "local";
    String warehouse = null;
    String kafka = "embedded";
    String mode = "both";
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (arg.equals("--help") || arg.equals("-h")) {
        throw new IllegalArgumentException("");
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("option " + arg + " needs a value");
      }
      String value = args[++i];
      switch (arg) {
        case "--writers" -> writers = positive(arg, value);
        case "--seconds" -> seconds = positive(arg, value);
        case "--rows-per-commit" -> rows = positive(arg, value);
        case "--store" -> store = oneOf(arg, value, "local", "s3proxy");
        case "--warehouse" -> warehouse = value;
        case "--kafka" -> kafka = value;
        case "--mode" -> mode = oneOf(arg, value, "both", "coordinator", "lance");
        default -> throw new IllegalArgumentException("unknown option " + arg);
      }
    }
    return new BenchOptions(writers, seconds, rows, store, warehouse, kafka, mode);
  }

  boolean runCoordinator() {
    return !mode.equals("lance");
  }

  boolean runLance() {
    return !mode.equals("coordinator");
  }

  private static int positive(String option, String value) {
    try {
      int n = Integer.parseInt(value);
      if (n > 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(option + " needs a positive whole number, got '" + value + "'");
  }

  private static String oneOf(String option, String value, String... allowed) {
    String v = value.toLowerCase(Locale.ROOT);
    for (String a : allowed) {
      if (a.equals(v)) {
        return v;
      }
    }
    throw new IllegalArgumentException(option + " must be one of " + String.join("|", allowed) + ", got '" + value
        + "'");
  }
}
