package dev.lancecommit.chaos.harness;

import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;

import dev.lancecommit.config.Config;
import dev.lancecommit.config.ConfigCommandLine;
import dev.lancecommit.config.ConfigKey;
import dev.lancecommit.config.ConfigKeys;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * Settings of one chaos run, each a configuration key ({@link #keys()}) given on the command line as
 * {@code --<key> VALUE}. Build with {@link #builder()} or parse the command line with {@link #parse}.
 */
public final class ChaosOptions {

  /** Where the coordinator keeps its warehouse (and the writers their data). */
  public enum Store { S3, LOCAL }

  private static final ConfigKeys KEYS = new ConfigKeys();
  public static final ConfigKey<Integer> WRITERS = KEYS.integer("writers", 6, atLeast(1),
      "Concurrent writer threads.");
  public static final ConfigKey<Integer> TABLES = KEYS.integer("tables", 2, atLeast(1), "Tables written.");
  public static final ConfigKey<Integer> SECONDS = KEYS.integer("seconds", 60, atLeast(1),
      "How long writers start new commits.");
  public static final ConfigKey<Long> SEED = KEYS.longInteger("seed", null, null,
      "Seed of every random choice; not set: time based (printed, so a run can be repeated).");
  public static final ConfigKey<String> FAULTS = KEYS.string("faults", "", ConfigDef.LambdaValidator.with(
      (name, value) -> {
        try {
          FaultKind.parseList((String) value);
        } catch (IllegalArgumentException e) {
          throw new ConfigException(name, value, e.getMessage());
        }
      }, () -> "a comma list of kill, s3, kafka, instance-kill, instance-pause, or all, or none"),
      "Faults injected; empty: all (kill, s3, kafka) with --store s3, kill,kafka with --store local; with "
          + "--instances above 1, instance-kill and instance-pause take kill's place.");
  public static final ConfigKey<Integer> INSTANCES = KEYS.integer("instances", 1, atLeast(1),
      "Coordinator processes. 1: a single coordinator; above 1: a cluster (cluster mode, one Kafka group) whose "
          + "instances the writers pick at random for every request.");
  public static final ConfigKey<String> STORE = KEYS.string("store", "s3", ConfigKeys.oneOf("s3", "s3proxy", "local"),
      "s3 = s3proxy in-process behind the fault proxy; local = a temp dir (no S3 faults possible).");
  public static final ConfigKey<Integer> SETTLE_SECONDS = KEYS.integer("settle-seconds", 180, atLeast(1),
      "After the run, how long a writer may keep resubmitting an unknown outcome.");
  public static final ConfigKey<Integer> EVENT_WAIT_SECONDS = KEYS.integer("event-wait-seconds", 120, atLeast(1),
      "How long to wait for every version's event after the run.");
  public static final ConfigKey<String> COORDINATOR_JAR = KEYS.string("coordinator-jar", "",
      "Run the coordinator with java -jar PATH instead of this JVM's class path.");
  public static final ConfigKey<String> WORK_DIR = KEYS.string("work-dir", "",
      "Where logs, the Kafka data and a local warehouse go; empty: a new temp dir.");
  public static final ConfigKey<Boolean> KEEP = KEYS.bool("keep", false,
      "Keep the work dir (it is kept anyway when a check fails).");

  static final String DESCRIPTION = "Concurrent Lance writers commit appends, deletes, updates, compactions and "
      + "index builds through a coordinator running as a separate process, while the coordinator is killed with "
      + "kill -9 and restarted, S3 misbehaves behind a fault proxy and the Kafka broker stops and starts. "
      + "Afterwards the table histories, the rows, stock Lance readability and the commit events are checked "
      + "against the harness's own record.";

  private final int writers;
  private final int instances;
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
    this.instances = b.instances;
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
    if (instances == 1 && faults.stream().anyMatch(FaultKind.CLUSTER_ONLY::contains)) {
      throw new IllegalArgumentException("--faults instance-kill and instance-pause need --instances 2 or more");
    }
    if (instances > 1 && faults.contains(FaultKind.KILL)) {
      throw new IllegalArgumentException("--faults kill is the single coordinator's; with --instances " + instances
          + " use instance-kill (and instance-pause)");
    }
  }

  /** The harness's keys. */
  public static ConfigKeys keys() {
    return KEYS;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The command line of the harness. */
  static ConfigCommandLine parser() {
    return new ConfigCommandLine("ChaosHarness", DESCRIPTION, null, KEYS);
  }

  /**
   * Parses command-line options; null when they ask for help, which is printed to {@code out}. With
   * {@code --faults} left out, {@code all} is used for the S3 store and {@code kill,kafka} for the local one.
   *
   * @throws IllegalArgumentException naming the bad option
   */
  public static ChaosOptions parse(String[] args, PrintStream out) {
    ConfigCommandLine commandLine = parser();
    if (!commandLine.parse(out, args)) {
      return null;
    }
    return from(KEYS.parse(commandLine.values()));
  }

  /** {@link #parse(String[], PrintStream)} printing help to standard output. */
  public static ChaosOptions parse(String[] args) {
    return parse(args, System.out);
  }

  /** The options the keys describe. */
  static ChaosOptions from(Config values) {
    Builder b = builder()
        .writers(values.get(WRITERS))
        .instances(values.get(INSTANCES))
        .tables(values.get(TABLES))
        .seconds(values.get(SECONDS))
        .store(parseStore(values.get(STORE)))
        .settleSeconds(values.get(SETTLE_SECONDS))
        .eventWaitSeconds(values.get(EVENT_WAIT_SECONDS))
        .keepWorkDir(values.get(KEEP));
    if (values.get(SEED) != null) {
      b.seed(values.get(SEED));
    }
    String faults = values.get(FAULTS);
    if (!faults.isBlank()) {
      b.faults(FaultKind.parseList(faults));
    } else if (b.store == Store.LOCAL) {
      b.faults(EnumSet.of(FaultKind.KILL, FaultKind.KAFKA));
    }
    if (faults.isBlank() && b.instances > 1) {
      EnumSet<FaultKind> clustered = EnumSet.copyOf(FaultKind.CLUSTER_ONLY);
      b.faults.stream().filter(kind -> kind != FaultKind.KILL).forEach(clustered::add);
      b.faults(clustered);
    }
    if (!values.get(COORDINATOR_JAR).isBlank()) {
      b.coordinatorJar(Path.of(values.get(COORDINATOR_JAR)));
    }
    if (!values.get(WORK_DIR).isBlank()) {
      b.workDir(Path.of(values.get(WORK_DIR)));
    }
    return b.build();
  }

  public int writers() {
    return writers;
  }

  /** Coordinator processes: 1, or a cluster of that many. */
  public int instances() {
    return instances;
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
    if (instances > 1) {
      out.append(" --instances ").append(instances);
    }
    return out.toString();
  }

  private static Store parseStore(String value) {
    return value.trim().equalsIgnoreCase("local") ? Store.LOCAL : Store.S3; // the key accepts s3, s3proxy, local
  }

  /** Defaults: the keys' (every fault, the S3 store), a time-based seed. */
  public static final class Builder {
    private static final Config DEFAULTS = KEYS.defaults();
    private int writers = DEFAULTS.get(WRITERS);
    private int tables = DEFAULTS.get(TABLES);
    private int seconds = DEFAULTS.get(SECONDS);
    private long seed = System.currentTimeMillis();
    private Set<FaultKind> faults = EnumSet.copyOf(FaultKind.ALL_SINGLE);
    private int instances = DEFAULTS.get(INSTANCES);
    private Store store = parseStore(DEFAULTS.get(STORE));
    private int settleSeconds = DEFAULTS.get(SETTLE_SECONDS);
    private int eventWaitSeconds = DEFAULTS.get(EVENT_WAIT_SECONDS);
    private Path coordinatorJar;
    private Path workDir;
    private boolean keepWorkDir = DEFAULTS.get(KEEP);

    private Builder() {}

    public Builder writers(int value) {
      writers = requirePositive(value, "writers");
      return this;
    }

    public Builder instances(int value) {
      instances = requirePositive(value, "instances");
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
