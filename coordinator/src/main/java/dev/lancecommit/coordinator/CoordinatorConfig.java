package dev.lancecommit.coordinator;

import dev.lancecommit.coordinator.auth.AuthConfig;
import dev.lancecommit.coordinator.config.ConfigKeys;
import dev.lancecommit.coordinator.config.ConfigKeys.Key;
import dev.lancecommit.coordinator.config.ConfigValues;
import dev.lancecommit.coordinator.credentials.CredentialsConfig;
import dev.lancecommit.coordinator.publication.PublicationConfig;
import dev.lancecommit.coordinator.storage.S3Config;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Every configuration key of the coordinator, with its default and meaning, in one place. A key can be given in a
 * properties file ({@code --config FILE}), as {@code --key value} on the command line (which wins), or through the
 * builder. Unknown keys are refused rather than ignored, so a typo cannot silently change behaviour.
 */
public final class CoordinatorConfig {

  private static final ConfigKeys KEYS = new ConfigKeys();

  public static final Key HOST = key("host", "127.0.0.1", "Address the REST server binds to.");
  public static final Key PORT = key("port", "9101", "REST port; 0 picks a free port (the chosen one is printed).");
  public static final Key WAREHOUSE = key("warehouse", "./warehouse",
      "Root URI of the warehouse: an absolute or relative local path, or s3://bucket/prefix. The catalog lives under "
          + "_catalog/ there and new tables under {warehouse}/{namespace...}/{table}.lance.");
  public static final Key KAFKA = key("kafka", "embedded",
      "Where commit events go: 'embedded' starts a single-node KRaft broker in a child JVM, a bootstrap list "
          + "(host:port,...) uses an existing cluster, 'none' disables events (commits then publish nothing).");
  public static final Key KAFKA_TOPIC = key("kafka.topic", "lance.commits",
      "Topic of commit events; the key of every record is the table id joined with '$'.");
  public static final Key KAFKA_TOPIC_PARTITIONS = key("kafka.topic.partitions", "3",
      "Partitions of the events topic when the coordinator creates it.");
  public static final Key KAFKA_TOPIC_REPLICATION = key("kafka.topic.replication", "1",
      "Replication factor of the events topic when the coordinator creates it.");
  public static final Key KAFKA_EMBEDDED_DIR = key("kafka.embedded.dir", "./.lcc/kafka",
      "Data directory of the embedded broker (kept across restarts).");
  public static final Key KAFKA_PUBLISH_TIMEOUT_MS = key("kafka.publish.timeout.ms", "10000",
      "How long one publish attempt waits for Kafka before it is retried. Commits do not wait for Kafka: the "
          + "outbox publishes after the manifest lands and retries until Kafka is back.");
  public static final Key S3_ENDPOINT = key("s3.endpoint", "",
      "S3 endpoint URL (empty = AWS default for the region), e.g. http://127.0.0.1:9000 for a local server.");
  public static final Key S3_REGION = key("s3.region", "us-east-1", "S3 region.");
  public static final Key S3_PATH_STYLE = key("s3.path-style", "false",
      "Use path-style addressing (http://endpoint/bucket/key), needed by most non-AWS servers.");
  public static final Key S3_ACCESS_KEY_ID = key("s3.access-key-id", "",
      "Static access key; empty = the AWS default credentials chain.");
  public static final Key S3_SECRET_ACCESS_KEY = key("s3.secret-access-key", "", "Static secret key.");
  public static final Key S3_SESSION_TOKEN = key("s3.session-token", "", "Session token for temporary keys.");
  public static final Key S3_API_CALL_TIMEOUT_MS = key("s3.api-call-timeout.ms", "30000",
      "Overall timeout of one S3 call including SDK retries.");
  public static final Key S3_ATTEMPT_TIMEOUT_MS = key("s3.attempt-timeout.ms", "10000",
      "Timeout of one S3 HTTP attempt. A create-only manifest write that times out is settled by reading it back.");
  public static final Key STORE_VERIFY_CONDITIONAL_PUT = key("store.verify-conditional-put", "true",
      "At start, prove the warehouse store rejects a second create of one key (If-None-Match: *) and refuse to "
          + "serve if it does not. Turn off only for stores proven otherwise.");
  public static final Key COMMIT_THREADS = key("commit.threads", "32",
      "Worker threads that drain commit lanes and do storage I/O (each table's lane uses one at a time).");
  public static final Key COMMIT_MAX_QUEUED_PER_TABLE = key("commit.max-queued-per-table", "1000",
      "Commits waiting in one table's lane before new ones are throttled with 429/21.");
  public static final Key COMMIT_MAX_REBUILD_ATTEMPTS = key("commit.max-rebuild-attempts", "100",
      "Times one commit may find its version taken by a writer outside its lane (re-checking each time) before "
          + "it answers 409/14.");
  public static final Key COMMIT_AMBIGUOUS_WRITE_ATTEMPTS = key("commit.ambiguous-write-attempts", "5",
      "Read-backs and create retries for a manifest write whose outcome is unknown before answering 503/17.");
  public static final Key COMMIT_RECENT_TRANSACTIONS = key("commit.recent-transactions", "1024",
      "Transactions of recent versions each lane keeps in memory for conflict checks.");
  public static final Key COMMIT_LANE_IDLE_TIMEOUT_MS = key("commit.lane-idle-timeout.ms", "600000",
      "A lane idle this long is dropped and rebuilt from storage on the next commit.");
  public static final Key COMMIT_MANIFEST_NAMING = key("commit.manifest-naming", "v2",
      "Manifest naming scheme for tables the coordinator creates: v2 (inverted, Lance's default) or v1. Existing "
          + "tables keep the scheme they have.");
  public static final Key COMMIT_STORAGE_VERSION = key("commit.storage-version", "2.1",
      "Data storage version recorded for tables created without data files that name one.");
  public static final Key FORMAT_SEMANTIC_TYPES_FLAG = key("format.semantic-types.flag", "0",
      "Feature-flag bit (a power of two, 2048 or above) that marks tables following Lance's semantic-type schema "
          + "contract. The specification names FLAG_SEMANTIC_TYPES but has not assigned its bit; set the bit your "
          + "Lance build uses. 0 (default): such tables carry an unknown bit and are refused. When set, they are "
          + "committed under the contract's rules, and a Project with transaction property "
          + "lance-coordinator.semantic-types=enable upgrades a legacy table.");
  public static final Key HTTP_MAX_BODY_BYTES = key("http.max-body-bytes", "67108864",
      "Largest request body accepted (a transaction with many fragments can be large).");

  static {
    KEYS.addAll(PublicationConfig.keys());
    KEYS.addAll(CredentialsConfig.keys());
  }

  private final Map<String, String> values;
  private final ConfigValues typed;

  private CoordinatorConfig(Map<String, String> values) {
    this.values = Map.copyOf(values);
    this.typed = ConfigValues.of(this.values);
  }

  private static Key key(String name, String defaultValue, String doc) {
    return KEYS.key(name, defaultValue, doc);
  }

  public static List<Key> keys() {
    return KEYS.all();
  }

  public static Builder builder() {
    return new Builder();
  }

  public static CoordinatorConfig defaults() {
    return builder().build();
  }

  public String get(Key key) {
    return typed.get(key);
  }

  public int getInt(Key key) {
    return typed.getInt(key);
  }

  public long getLong(Key key) {
    return typed.getLong(key);
  }

  public boolean getBoolean(Key key) {
    return typed.getBoolean(key);
  }

  /** The auth.* settings; refuses unknown auth keys, grants to undefined principals, shared secrets. */
  public AuthConfig authConfig() {
    return AuthConfig.parse(values);
  }

  /** The publication settings: the publication keys plus {@code kafka.topic}, its partitions and replication. */
  public PublicationConfig publicationConfig() {
    return PublicationConfig.from(typed, get(KAFKA_TOPIC), getInt(KAFKA_TOPIC_PARTITIONS),
        (short) getInt(KAFKA_TOPIC_REPLICATION));
  }

  /** The {@code credentials.*} settings (credential vending), with the S3 settings vended credentials are for. */
  public CredentialsConfig credentialsConfig() {
    return CredentialsConfig.from(typed, s3Config());
  }

  /** The S3 settings used for every {@code s3://} location (warehouse and registered tables). */
  public S3Config s3Config() {
    return new S3Config(
        emptyToNull(get(S3_ENDPOINT)),
        get(S3_REGION),
        getBoolean(S3_PATH_STYLE),
        emptyToNull(get(S3_ACCESS_KEY_ID)),
        emptyToNull(get(S3_SECRET_ACCESS_KEY)),
        emptyToNull(get(S3_SESSION_TOKEN)),
        Duration.ofMillis(getLong(S3_API_CALL_TIMEOUT_MS)),
        Duration.ofMillis(getLong(S3_ATTEMPT_TIMEOUT_MS)));
  }

  private static String emptyToNull(String value) {
    return value == null || value.isBlank() ? null : value;
  }

  public Builder toBuilder() {
    Builder builder = new Builder();
    builder.values.putAll(values);
    return builder;
  }

  /** The keys as a markdown table, for the documentation and {@code --help}. */
  public static String documentation() {
    return KEYS.documentation() + AuthConfig.documentationRows();
  }

  /** Collects values; {@link #build()} refuses unknown keys. */
  public static final class Builder {
    private final Map<String, String> values = new LinkedHashMap<>();

    public Builder set(String name, String value) {
      if (AuthConfig.isAuthKey(name)) { // auth.principals.<p>.* and auth.grants.<p> name principals, not fixed keys
        values.put(name, value);
        return this;
      }
      KEYS.requireKnown(List.of(name));
      values.put(name, value);
      return this;
    }

    public Builder set(Key key, String value) {
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
      return set(KAFKA_TOPIC, topic);
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

    public Builder load(Path propertiesFile) throws IOException {
      Properties properties = new Properties();
      try (Reader reader = Files.newBufferedReader(propertiesFile)) {
        properties.load(reader);
      }
      for (String name : properties.stringPropertyNames()) {
        set(name, properties.getProperty(name));
      }
      return this;
    }

    public CoordinatorConfig build() {
      return new CoordinatorConfig(values);
    }
  }
}
