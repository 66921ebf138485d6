package dev.lancecommit.chaos.harness;

import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/** Settings of one chaos run. Build with {@link #builder()} or parse the command line with {@link #parse}. */
public final class ChaosOptions {

  /** Where the coordinator keeps its warehouse (and the writers their data). */
  public enum Store { S3, LOCAL }

  static final String USAGE = """
      ChaosHarness: concurrent Lance writers commit appends, deletes, updates, compactions and index builds through
      a coordinator running as a separate process, while the coordinator is killed with kill -9 and restarted,
      S3 misbehaves behind a fault proxy and the Kafka broker stops and starts. Afterwards the table histories, the
      rows, stock Lance readability and the commit events are checked against the harness's own record.

      Options:
        --writers N            concurrent writer threads (default 6)
        --tables N             tables written (default 2)
        --seconds S            how long writers start new commits (default 60)
        --seed N               seed of every random choice (default: time based, printed)
        --faults LIST          comma list of kill,s3,kafka, or all, or none (default all)
        --store s3|local       s3 = s3proxy in-process behind the fault proxy (default); local = a temp dir
                               (no S3 faults possible)
        --settle-seconds S     after the run, how long a writer may keep resubmitting an unknown outcome (default 180)
        --event-wait-seconds S how long to wait for every version's event after the run (default 120)
        --coordinator-jar PATH run the coordinator with java -jar PATH instead of this JVM's class path
        --work-dir DIR         where logs, the Kafka data and a local warehouse go (default: a new temp dir)
        --keep                 keep the work dir (it is kept anyway when a check fails)
      """;

  private final int writers;
  private final int tables;
  private final int seconds;
  private final long seed;
  private final Set<FaultKind> faults;
  private final Store store;
  private final int settleSeconds;
  private final int eventWaitSeconds;
  private final Path coordinatorJar;
  private final Path workDir;
  private final boolean keepWorkDir;

  private ChaosOptions(Builder b) {
    this.writers = b.writers;
    this.tables = b.tables;
    this.seconds = b.seconds;
    this.seed = b.seed;
    this.faults = Set.copyOf(b.faults);
    this.store = b.store;
    this.settleSeconds = b.settleSeconds;
    this.eventWaitSeconds = b.eventWaitSeconds;
    this.coordinatorJar = b.coordinatorJar;
    this.workDir = b.workDir;
    this.keepWorkDir = b.keepWorkDir;
    if (store == Store.LOCAL && faults.contains(FaultKind.S3)) {
      throw new IllegalArgumentException("--faults s3 needs --store s3 (the fault proxy sits in front of s3proxy)");
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Parses command-line options. With {@code --faults} left out, {@code all} is used for the S3 store and
   * {@code kill,kafka} for the local one.
   *
   * @throws IllegalArgumentException naming the bad option; empty message for {@code --help}
   */
  public static ChaosOptions parse(String[] args) {
    Builder b = builder();
    boolean faultsGiven = false;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (arg.equals("--help") || arg.equals("-h")) {
        throw new IllegalArgumentException("");
      }
      if (arg.equals("--keep")) {
        b.keepWorkDir(true);
        continue;
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException("option " + arg + " needs a value");
      }
      String value = args[++i];
      switch (arg) {
        case "--writers" -> b.writers(positive(arg, value));
        case "--tables" -> b.tables(positive(arg, value));
        case "--seconds" -> b.seconds(positive(arg, value));
        case "--seed" -> b.seed(parseLong(arg, value));
        case "--faults" -> {
          b.faults(FaultKind.parseList(value));
          faultsGiven = true;
        }
        case "--store" -> b.store(parseStore(value));
        case "--settle-seconds" -> b.settleSeconds(positive(arg, value));
        case "--event-wait-seconds" -> b.eventWaitSeconds(positive(arg, value));
        case "--coordinator-jar" -> b.coordinatorJar(Path.of(value));
        case "--work-dir" -> b.workDir(Path.of(value));
        default -> throw new IllegalArgumentException("unknown option " + arg);
      }
    }
    if (!faultsGiven && b.store == Store.LOCAL) {
      b.faults(EnumSet.of(FaultKind.KILL, FaultKind.KAFKA));
    }
    return b.build();
  }

  public int writers() {
    return writers;
  }

  public int tables() {
    return tables;
  }

  public int seconds() {
    return seconds;
  }

  public long seed() {
    return seed;
  }

  public Set<FaultKind> faults() {
    return faults;
  }

  public Store store() {
    return store;
  }

  public int settleSeconds() {
    return settleSeconds;
  }

  public int eventWaitSeconds() {
    return eventWaitSeconds;
  }

  /** The coordinator jar to run, or null to run {@code dev.lancecommit.coordinator.Main} from this class path. */
  public Path coordinatorJar() {
    return coordinatorJar;
  }

  /** The work dir, or null for a new temporary one. */
  public Path workDir() {
    return workDir;
  }

  public boolean keepWorkDir() {
    return keepWorkDir;
  }

  /** The options as a command line that repeats this run's choices. */
  public String commandLine() {
    StringBuilder out = new StringBuilder()
        .append("--writers ").append(writers)
        .append(" --tables ").append(tables)
        .append(" --seconds ").append(seconds)
        .append(" --seed ").append(seed)
        .append(" --faults ").append(faults.isEmpty() ? "none" : String.join(",",
            EnumSet.copyOf(faults).stream().map(FaultKind::option).toList()))
        .append(" --store ").append(store.name().toLowerCase(Locale.ROOT));
    return out.toString();
  }

  private static Store parseStore(String value) {
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "s3", "s3proxy" -> Store.S3;
      case "local" -> Store.LOCAL;
      default -> throw new IllegalArgumentException("--store must be s3 or local, got '" + value + "'");
    };
  }

  private static int positive(String option, String value) {
    try {
      int n = Integer.parseInt(value.trim());
      if (n > 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(option + " needs a positive whole number, got '" + value + "'");
  }

  private static long parseLong(String option, String value) {
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " needs a whole number, got '" + value + "'");
    }
  }

  /** Defaults: 6 writers, 2 tables, 60 s, a time-based seed, every fault, the S3 store. */
  public static final class Builder {
    private int writers = 6;
    private int tables = 2;
    private int seconds = 60;
    private long seed = System.currentTimeMillis();
    private Set<FaultKind> faults = EnumSet.allOf(FaultKind.class);
    private Store store = Store.S3;
    private int settleSeconds = 180;
    private int eventWaitSeconds = 120;
    private Path coordinatorJar;
    private Path workDir;
    private boolean keepWorkDir;

    private Builder() {}

    public Builder writers(int value) {
      writers = requirePositive(value, "writers");
      return this;
    }

    public Builder tables(int value) {
      tables = requirePositive(value, "tables");
      return this;
    }

    public Builder seconds(int value) {
      seconds = requirePositive(value, "seconds");
      return this;
    }

    public Builder seed(long value) {
      seed = value;
      return this;
    }

    public Builder faults(Set<FaultKind> value) {
      faults = value.isEmpty() ? EnumSet.noneOf(FaultKind.class) : EnumSet.copyOf(value);
      return this;
    }

    public Builder store(Store value) {
      store = Objects.requireNonNull(value, "store");
      return this;
    }

    public Builder settleSeconds(int value) {
      settleSeconds = requirePositive(value, "settle seconds");
      return this;
    }

    public Builder eventWaitSeconds(int value) {
      eventWaitSeconds = requirePositive(value, "event wait seconds");
      return this;
    }

    public Builder coordinatorJar(Path value) {
      coordinatorJar = value;
      return this;
    }

    public Builder workDir(Path value) {
      workDir = value;
      return this;
    }

    public Builder keepWorkDir(boolean value) {
      keepWorkDir = value;
      return this;
    }

    public ChaosOptions build() {
      return new ChaosOptions(this);
    }

    private static int requirePositive(int value, String name) {
      if (value <= 0) {
        throw new IllegalArgumentException(name + " must be positive, got " + value);
      }
      return value;
    }
  }
}
