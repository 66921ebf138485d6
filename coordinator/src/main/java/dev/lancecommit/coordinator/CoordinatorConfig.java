package dev.lancecommit.coordinator;

import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;
import static org.apache.kafka.common.config.ConfigDef.Range.between;

import dev.lancecommit.config.Config;
import dev.lancecommit.config.ConfigCommandLine;
import dev.lancecommit.config.ConfigKey;
import dev.lancecommit.config.ConfigKeys;
import dev.lancecommit.coordinator.auth.AuthConfig;
import dev.lancecommit.coordinator.cluster.ClusterConfig;
import dev.lancecommit.coordinator.commit.CommitSettings;
import dev.lancecommit.coordinator.credentials.CredentialsConfig;
import dev.lancecommit.coordinator.observe.ObservabilityConfig;
import dev.lancecommit.coordinator.publication.PublicationConfig;
import dev.lancecommit.coordinator.retention.RetentionConfig;
import dev.lancecommit.coordinator.storage.S3Config;
import dev.lancecommit.coordinator.http.RestServerOptions;
import dev.lancecommit.format.FormatFeatures;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.rules.CommitContext;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.NonEmptyString;
import org.apache.kafka.common.config.ConfigException;

/**
 * The coordinator's configuration: its own keys below, and with them publication's, retention's, credential vending's
 * and auth's
 * ({@link #keys()}), each declared once. A key can be given in a properties file ({@code --config FILE}), as
 * {@code --key value} on the command line (which wins), or through the builder. Unknown keys and invalid values are
 * refused naming the key, so a typo cannot silently change behaviour.
 */
public final class CoordinatorConfig {
  private static final ConfigKeys KEYS = new ConfigKeys();

  public static final ConfigKey<String> HOST = KEYS.string("host", "127.0.0.1", new NonEmptyString(),
      "Address the REST server binds to.");
  public static final ConfigKey<Integer> PORT = KEYS.integer("port", 9101, between(0, 65535),
      "REST port; 0 picks a free port (the chosen one is printed).");
  public static final ConfigKey<String> WAREHOUSE = KEYS.string("warehouse", "./warehouse", new NonEmptyString(),
      "Root URI of the warehouse: an absolute or relative local path, or s3://bucket/prefix. The catalog lives under "
          + "_catalog/ there and new tables under {warehouse}/{namespace...}/{table}.lance.");
  public static final ConfigKey<String> KAFKA = KEYS.string("kafka", "embedded", new NonEmptyString(),
      "Where commit events go: 'embedded' starts a single-node KRaft broker in a child JVM, a bootstrap list "
          + "(host:port,...) uses an existing cluster, 'none' disables events (commits then publish nothing).");
  public static final ConfigKey<String> KAFKA_EMBEDDED_DIR = KEYS.string("kafka.embedded.dir", "./.lcc/kafka",
      new NonEmptyString(), "Data directory of the embedded broker (kept across restarts).");
  public static final ConfigKey<String> S3_ENDPOINT = KEYS.string("s3.endpoint", "", ConfigDef.LambdaValidator.with(
      (name, value) -> {
        String url = ((String) value).trim();
        if (!url.isEmpty() && !url.startsWith("http://") && !url.startsWith("https://")) {
          throw new ConfigException(name, value, "not an http:// or https:// URL");
        }
      }, () -> "empty or an http(s):// URL"),
      "S3 endpoint URL (empty = AWS default for the region), e.g. http://127.0.0.1:9000 for a local server.");
  public static final ConfigKey<String> S3_REGION = KEYS.string("s3.region", "us-east-1", new NonEmptyString(),
      "S3 region.");
  public static final ConfigKey<Boolean> S3_PATH_STYLE = KEYS.bool("s3.path-style", false,
      "Use path-style addressing (http://endpoint/bucket/key), needed by most non-AWS servers.");
  public static final ConfigKey<String> S3_ACCESS_KEY_ID = KEYS.string("s3.access-key-id", "",
      "Static access key; empty = the AWS default credentials chain.");
  public static final ConfigKey<String> S3_SECRET_ACCESS_KEY = KEYS.secret("s3.secret-access-key",
      "Static secret key.");
  public static final ConfigKey<String> S3_SESSION_TOKEN = KEYS.secret("s3.session-token",
      "Session token for temporary keys.");
  public static final ConfigKey<Duration> S3_API_CALL_TIMEOUT_MS = KEYS.millis("s3.api-call-timeout.ms", 30_000,
      atLeast(1), "Overall timeout of one S3 call including SDK retries.");
  public static final ConfigKey<Duration> S3_ATTEMPT_TIMEOUT_MS = KEYS.millis("s3.attempt-timeout.ms", 10_000,
      atLeast(1),
      "Timeout of one S3 HTTP attempt. A create-only manifest write that times out is settled by reading it back.");
  public static final ConfigKey<Boolean> STORE_VERIFY_CONDITIONAL_PUT = KEYS.bool("store.verify-conditional-put",
      true, "At start, prove the warehouse store rejects a second create of one key (If-None-Match: *) and refuse to "
          + "serve if it does not. Turn off only for stores proven otherwise.");
  public static final ConfigKey<Boolean> STORE_LOCAL_FSYNC = KEYS.bool("store.local.fsync", true,
      "Local-disk warehouses and tables: flush each manifest (and each deletion file a rebase writes) to stable "
          + "storage before answering, so an acknowledged commit survives a power loss. false skips every flush: "
          + "the durability of Lance's own local commits, which never flush (a crash of the process loses nothing, a "
          + "power loss may lose the latest commits), at a fraction of the latency. S3 is durable either way.");
  public static final ConfigKey<Boolean> STORE_LOCAL_DIRECT_IO = KEYS.bool("store.local.direct-io", true,
      "Local-disk warehouses and tables, with store.local.fsync on: write each flushed file of 1 MiB or more (the "
          + "manifests of large tables) with O_DIRECT, straight from memory to the disk, instead of copying it into "
          + "new page-cache pages that the flush then writes out. Same bytes, same durability; on a VM whose host "
          + "reclaims free guest memory the copy costs more than the write. Falls back to buffered writes where the "
          + "filesystem refuses O_DIRECT; false always buffers.");
  public static final ConfigKey<Integer> COMMIT_THREADS = KEYS.integer("commit.threads", 32, atLeast(1),
      "Threads of the commit lanes, a pool of their own: each table's lane prepares the next version on one while "
          + "the manifest of the one before is written on another, and hands events over after answering.");
  public static final ConfigKey<Integer> COMMIT_GROUP_MAX_TRANSACTIONS = KEYS.integer(
      "commit.group.max-transactions", 128, atLeast(1),
      "Group commit: most writers' transactions one version may commit. Transactions waiting in a table's lane "
          + "that commute (appends; deletes and rewrite-rows updates of disjoint rows) are committed as one version "
          + "recording all of them; 1 turns grouping off.");
  public static final ConfigKey<Long> COMMIT_GROUP_MAX_BYTES = KEYS.longInteger("commit.group.max-bytes",
      8L << 20, atLeast(1),
      "Group commit: most bytes of transactions (as sent) one version may hold; a single larger one still commits "
          + "alone.");
  public static final ConfigKey<Integer> COMMIT_MAX_QUEUED_PER_TABLE = KEYS.integer("commit.max-queued-per-table",
      1000, atLeast(1), "Commits waiting in one table's lane before new ones are throttled with 429/21.");
  public static final ConfigKey<Integer> COMMIT_MAX_REBUILD_ATTEMPTS = KEYS.integer("commit.max-rebuild-attempts",
      100, atLeast(1),
      "Times one commit may find its version taken by a writer outside its lane (re-checking each time) before "
          + "it answers 409/14.");
  public static final ConfigKey<Integer> COMMIT_AMBIGUOUS_WRITE_ATTEMPTS = KEYS.integer(
      "commit.ambiguous-write-attempts", 5, atLeast(1),
      "Read-backs and create retries for a manifest write whose outcome is unknown before answering 503/17.");
  public static final ConfigKey<Integer> COMMIT_RECENT_TRANSACTIONS = KEYS.integer("commit.recent-transactions",
      1024, atLeast(0), "Transactions of recent versions each lane keeps in memory for conflict checks.");
  public static final ConfigKey<Integer> BATCH_APPLY_ATTEMPTS = KEYS.integer("batch.apply-attempts", 10, atLeast(1),
      "Attempts to write a member version of a recorded atomic batch (BatchCreateTableVersions, BatchCommitTables) "
          + "while the store fails, before the request is answered 503 and the batch is completed in the background.");
  public static final ConfigKey<Duration> BATCH_RECORD_RETENTION_MS = KEYS.millis("batch.record-retention.ms",
      86_400_000, atLeast(0), "How long the record of a finished atomic batch is kept under _catalog/batches/ in "
          + "the warehouse (removed at the next start after that).");
  public static final ConfigKey<Duration> BATCH_TEST_APPLY_PAUSE_MS = KEYS.millis("batch.test.apply-pause.ms", 0,
      atLeast(0), "Testing only: a pause between writing two member versions of an atomic batch, so a fault test "
          + "can kill the coordinator between the batch record and the last version. Leave at 0.");
  public static final ConfigKey<Duration> BATCH_TEST_RECORD_PAUSE_MS = KEYS.millis("batch.test.record-pause.ms", 0,
      atLeast(0), "Testing only: a pause between the checks of an atomic batch's members and its record, so a fault "
          + "test can stop the owner of a member's table in that window. Leave at 0.");
  public static final ConfigKey<Duration> COMMIT_LANE_IDLE_TIMEOUT_MS = KEYS.millis("commit.lane-idle-timeout.ms",
      600_000, atLeast(1), "A lane idle this long is dropped and rebuilt from storage on the next commit.");
  public static final ConfigKey<String> COMMIT_MANIFEST_NAMING = KEYS.string("commit.manifest-naming",
      ManifestNaming.DEFAULT_FOR_NEW_TABLES.name().toLowerCase(Locale.ROOT),
      ConfigKeys.oneOf("v1", "v2"),
      "Manifest naming scheme for tables the coordinator creates: v2 (inverted, Lance's default) or v1. Existing "
          + "tables keep the scheme they have.");
  public static final ConfigKey<String> COMMIT_STORAGE_VERSION = KEYS.string("commit.storage-version",
      CommitContext.DEFAULT_STORAGE_VERSION,
      new NonEmptyString(), "Data storage version recorded for tables created without data files that name one.");
  public static final ConfigKey<Boolean> COMMIT_VERIFY_FILES = KEYS.bool("commit.verify-files", true,
      "Before a version is written, check every file the commit adds (data, deletion and index files, external row "
          + "id sequences) against the store: present with the stated size; for data files the footer's row count, "
          + "columns and field ids; for deletion files the row count. Files carried over from the previous version "
          + "are not checked again. The trade: about one ranged read per new data file and one read per new deletion "
          + "file per commit (an append of one fragment: one request), against a version whose missing or wrong file "
          + "makes it, and every later version, unreadable for stock Lance. Deep clones are checked either way.");
  public static final ConfigKey<Integer> COMMIT_VERIFY_FILES_PARALLELISM = KEYS.integer(
      "commit.verify-files.parallelism", CommitSettings.DEFAULT_VERIFY_PARALLELISM, atLeast(1),
      "Store requests one version's file checks (and one POST .../verify) keep in flight at most; a group commit "
          + "checks every member's files in one version, so on an object store this bounds how many round trips a "
          + "group's checks take (16 writers in one group, parallelism 32: one); on a local disk the checks run one "
          + "after the other, as a read costs less than a thread hop. Helpers come from the commit.threads pool, and "
          + "the committing thread does the work itself when that pool is busy.");
  public static final ConfigKey<Integer> COMMIT_VERIFY_FILES_AHEAD_THREADS = KEYS.integer(
      "commit.verify-files.ahead-threads", CommitSettings.DEFAULT_VERIFY_AHEAD_THREADS, atLeast(0),
      "Threads (a pool of their own, idle ones exit) that check each commit's own files the moment it arrives, while "
          + "it waits for the version in flight, so the version that commits it re-checks only what they did not find "
          + "right; on an object store the check's round trips then overlap the write before instead of lengthening "
          + "the next version's preparation. A commit arriving while every one of them is busy is checked with its "
          + "version, as with 0, which checks every file when its version is prepared. No effect with "
          + "commit.verify-files=false.");
  public static final ConfigKey<Boolean> COMMIT_TRANSACTION_FILE_BESIDE_MANIFEST = KEYS.bool(
      "commit.transaction-file.beside-manifest", true,
      "On an object store, write the _transactions/*.txn file of a group commit (a version of several writers' "
          + "transactions, recorded under a uuid the coordinator draws) at the same time as its manifest's "
          + "put-if-absent instead of before it: one round trip less per version. The manifest always carries the "
          + "transaction inline, which every Lance reader since Nov 2025 (lance-core 7, pylance 14) reads first; a "
          + "reader that reads only the file (older Lance) may, for that round trip, find a version whose file is not "
          + "written yet; if the coordinator stops in between, the table's next load writes the file from the "
          + "inline copy. A transaction committed in a version of its own always has its file written first, since "
          + "only that write finds a uuid reused with other content. false: every .txn is written before its "
          + "manifest.");
  public static final ConfigKey<Long> FORMAT_SEMANTIC_TYPES_FLAG = KEYS.longInteger("format.semantic-types.flag",
      0L, ConfigDef.LambdaValidator.with((name, value) -> {
        try {
          FormatFeatures.withSemanticTypesFlag((Long) value);
        } catch (IllegalArgumentException e) {
          throw new ConfigException(name, value, e.getMessage());
        }
      }, () -> "0, or one bit from 2048 up"),
      "Feature-flag bit (a power of two, 2048 or above) that marks tables following Lance's semantic-type schema "
          + "contract. The specification names FLAG_SEMANTIC_TYPES but has not assigned its bit; set the bit your "
          + "Lance build uses. 0 (default): such tables carry an unknown bit and are refused. When set, they are "
          + "committed under the contract's rules, and a Project with transaction property "
          + "lance-coordinator.semantic-types=enable upgrades a legacy table.");
  public static final ConfigKey<Long> HTTP_MAX_BODY_BYTES = KEYS.longInteger("http.max-body-bytes",
      RestServerOptions.DEFAULT_MAX_BODY_BYTES,
      atLeast(1), "Largest request body accepted (a transaction with many fragments can be large).");
  public static final ConfigKey<Integer> HTTP_EVENT_LOOPS = KEYS.integer("http.event-loops", 0, atLeast(0),
      "HTTP server instances sharing the port, each on its own event loop; 0 = one per core.");
  public static final ConfigKey<Integer> HTTP_WORKER_THREADS = KEYS.integer("http.worker-threads", 32, atLeast(1),
      "Threads for the blocking work of HTTP routes (catalog reads and writes, namespace API storage calls), "
          + "separate from the commit lanes' threads.");

  /** Every key of the coordinator, in documentation order. */
  private static final ConfigKeys ALL =
      ConfigKeys.of(KEYS, PublicationConfig.keys(), RetentionConfig.keys(), CredentialsConfig.keys(), AuthConfig.keys(),
          ObservabilityConfig.keys(), ClusterConfig.keys());

  private final Config values;
  private final Map<String, String> given;

  private CoordinatorConfig(Config values, Map<String, String> given) {
    this.values = values;
    this.given = Map.copyOf(given);
  }

  /** Every key of the coordinator: its own, publication's, credentials', auth's and the cluster's. */
  public static ConfigKeys keys() {
    return ALL;
  }

  public static Builder builder() {
    return new Builder();
  }

  public static CoordinatorConfig defaults() {
    return builder().build();
  }

  /** The value of {@code key}, as given or its default. */
  public <T> T get(ConfigKey<T> key) {
    return values.get(key);
  }

  /** All values, for the features that read their own keys ({@link PublicationConfig#from(Config)}, ...). */
  public Config values() {
    return values;
  }

  /** The auth.* settings; refuses grants to undefined principals and shared secrets. */
  public AuthConfig authConfig() {
    return AuthConfig.from(values);
  }

  /** The {@code metrics.*}, {@code log.*} and {@code readiness.*} settings. */
  public ObservabilityConfig observabilityConfig() {
    return ObservabilityConfig.from(values);
  }

  /** The S3 settings used for every {@code s3://} location (warehouse and registered tables). */
  public S3Config s3Config() {
    return new S3Config(
        emptyToNull(get(S3_ENDPOINT)),
        get(S3_REGION),
        get(S3_PATH_STYLE),
        emptyToNull(get(S3_ACCESS_KEY_ID)),
        emptyToNull(get(S3_SECRET_ACCESS_KEY)),
        emptyToNull(get(S3_SESSION_TOKEN)),
        get(S3_API_CALL_TIMEOUT_MS),
        get(S3_ATTEMPT_TIMEOUT_MS));
  }

  public PublicationConfig publicationConfig() {
    return PublicationConfig.from(values);
  }

  public RetentionConfig retentionConfig() {
    return RetentionConfig.from(values);
  }

  /** The cluster.* settings (cluster mode is off unless cluster.enabled). */
  public ClusterConfig clusterConfig() {
    return ClusterConfig.from(values);
  }

  public CredentialsConfig credentialsConfig() {
    return CredentialsConfig.from(values, s3Config());
  }

  private static String emptyToNull(String value) {
    return value == null || value.isBlank() ? null : value.trim();
  }

  /**
   * The values as given (not the defaults), by key name: what a properties file or a command line needs to start
   * the same configuration in another process.
   */
  public Map<String, String> given() {
    return given;
  }

  public Builder toBuilder() {
    Builder builder = new Builder();
    builder.values.putAll(given);
    return builder;
  }

  /** The keys as a markdown table, for the documentation and {@code --help}. */
  public static String documentation() {
    return ALL.markdown();
  }

  /** Collects values by key name; {@link #set} refuses unknown names, {@link #build()} invalid values. */
  public static final class Builder {
    private final Map<String, String> values = new LinkedHashMap<>();

    public Builder set(String name, String value) {
      ALL.requireKnown(name);
      values.put(name, value);
      return this;
    }

    public Builder set(ConfigKey<?> key, String value) {
      return set(key.name(), value);
    }

    public Builder port(int port) {
      return set(PORT, Integer.toString(port));
    }

    public Builder host(String host) {
      return set(HOST, host);
    }

    public Builder warehouse(String uri) {
      return set(WAREHOUSE, uri);
    }

    public Builder kafka(String kafka) {
      return set(KAFKA, kafka);
    }

    public Builder topic(String topic) {
      return set(PublicationConfig.EVENTS_TOPIC, topic);
    }

    /** Sets every {@code s3.*} key from an S3 configuration (tests hand over their s3proxy settings this way). */
    public Builder s3(S3Config s3) {
      set(S3_ENDPOINT, s3.endpoint() == null ? "" : s3.endpoint());
      set(S3_REGION, s3.region());
      set(S3_PATH_STYLE, Boolean.toString(s3.pathStyle()));
      set(S3_ACCESS_KEY_ID, s3.accessKeyId() == null ? "" : s3.accessKeyId());
      set(S3_SECRET_ACCESS_KEY, s3.secretAccessKey() == null ? "" : s3.secretAccessKey());
      set(S3_SESSION_TOKEN, s3.sessionToken() == null ? "" : s3.sessionToken());
      set(S3_API_CALL_TIMEOUT_MS, Long.toString(s3.apiCallTimeout().toMillis()));
      set(S3_ATTEMPT_TIMEOUT_MS, Long.toString(s3.apiCallAttemptTimeout().toMillis()));
      return this;
    }

    /** Every key of a properties file (unknown keys are refused). */
    public Builder load(Path propertiesFile) {
      ConfigCommandLine.load(propertiesFile).forEach(this::set);
      return this;
    }

    /**
     * Parses and checks every value.
     *
     * @throws IllegalArgumentException naming the key whose value is not accepted
     */
    public CoordinatorConfig build() {
      Config parsed = ALL.parse(values);
      AuthConfig.from(parsed); // principals, grants and secrets are checked together
      ClusterConfig.from(parsed); // so are the cluster keys
      return new CoordinatorConfig(parsed, values);
    }
  }
}
