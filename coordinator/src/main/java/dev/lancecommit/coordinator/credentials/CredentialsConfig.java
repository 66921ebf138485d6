package dev.lancecommit.coordinator.credentials;

import dev.lancecommit.coordinator.config.ConfigKeys;
import dev.lancecommit.coordinator.config.ConfigKeys.Key;
import dev.lancecommit.coordinator.config.ConfigValues;
import dev.lancecommit.coordinator.storage.S3Config;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * The {@code credentials.*} configuration keys (credential vending for DescribeTable/DeclareTable) and the vendor
 * they select. The keys are {@link ConfigKeys.Key}s so they can be registered with the coordinator's
 * configuration, which reads them ({@code CoordinatorConfig.credentialsConfig()}).
 */
public final class CredentialsConfig {

  /** Which vendor {@code credentials.mode} selects. */
  public enum Mode { NONE, STATIC, STS }

  private static final ConfigKeys KEYS = new ConfigKeys();

  public static final Key MODE = key("credentials.mode", "none",
      "Credential vending in DescribeTable/DeclareTable storage_options: 'none' (writers bring their own), 'sts' "
          + "(AssumeRole with a per-table session policy: data files writable, final manifests denied) or "
          + "'static' (hands out credentials.static.* keys to everyone; cannot deny manifest writes, for stores "
          + "without STS and trusted writers only).");
  public static final Key CLIENT_ENDPOINT = key("credentials.client-endpoint", "",
      "S3 endpoint handed to clients as aws_endpoint; empty = s3.endpoint (empty too = AWS S3).");
  public static final Key STATIC_ACCESS_KEY_ID = key("credentials.static.access-key-id", "",
      "Access key handed out in static mode (required there).");
  public static final Key STATIC_SECRET_ACCESS_KEY = key("credentials.static.secret-access-key", "",
      "Secret key handed out in static mode (required there).");
  public static final Key STS_ENDPOINT = key("credentials.sts.endpoint", "",
      "STS endpoint; empty = s3.endpoint when set (S3-compatible stores such as SeaweedFS serve STS on the S3 "
          + "port), otherwise AWS's regional STS.");
  public static final Key STS_REGION = key("credentials.sts.region", "",
      "Region of STS calls and of the aws_region handed out; empty = s3.region.");
  public static final Key STS_ROLE_ARN = key("credentials.sts.role-arn", "",
      "Role the coordinator assumes for every session (required in sts mode); its trust policy must allow the "
          + "coordinator's principal and its permissions must cover the warehouse's tables.");
  public static final Key STS_ACCESS_KEY_ID = key("credentials.sts.access-key-id", "",
      "Access key that signs AssumeRole; empty = the coordinator's s3.* credentials (or the AWS default chain).");
  public static final Key STS_SECRET_ACCESS_KEY = key("credentials.sts.secret-access-key", "",
      "Secret key that signs AssumeRole.");
  public static final Key STS_SESSION_TOKEN = key("credentials.sts.session-token", "",
      "Session token of the AssumeRole signing credentials, if they are temporary.");
  public static final Key STS_DURATION_SECONDS = key("credentials.sts.duration-seconds", "3600",
      "Lifetime of each vended session, 900 to 43200 seconds (the role's maximum session duration caps it).");
  public static final Key STS_EXTERNAL_ID = key("credentials.sts.external-id", "",
      "ExternalId sent with AssumeRole when the role's trust policy requires one.");
  public static final Key STS_REFRESH_FRACTION = key("credentials.sts.refresh-fraction", "0.75",
      "Share of a session's lifetime after which a cached session is replaced by a fresh one, in (0, 1].");
  public static final Key STS_CACHE_MAX_SESSIONS = key("credentials.sts.cache-max-sessions", "10000",
      "Sessions cached at most (one per principal, table and access mode).");
  public static final Key STS_API_CALL_TIMEOUT_MS = key("credentials.sts.api-call-timeout.ms", "30000",
      "Timeout of one AssumeRole call including SDK retries; a vend that times out fails with 503.");

  private final ConfigValues values;
  private final S3Config s3;

  private CredentialsConfig(ConfigValues values, S3Config s3) {
    this.values = values;
    this.s3 = s3;
  }

  private static Key key(String name, String defaultValue, String doc) {
    return KEYS.key(name, defaultValue, doc);
  }

  /** Every {@code credentials.*} key, for registration with the coordinator's configuration. */
  public static List<Key> keys() {
    return KEYS.all();
  }

  /** Reads the keys from the coordinator's configuration values (already checked for unknown keys). */
  public static CredentialsConfig from(ConfigValues values, S3Config s3) {
    return new CredentialsConfig(values, s3);
  }

  /** Reads the keys from a map (missing keys take their defaults); unknown {@code credentials.*} keys fail. */
  public static CredentialsConfig from(Map<String, String> values, S3Config s3) {
    KEYS.requireKnown(values.keySet());
    return new CredentialsConfig(ConfigValues.of(values), s3);
  }

  public Mode mode() {
    String value = get(MODE).trim().toLowerCase(Locale.ROOT);
    return switch (value) {
      case "none" -> Mode.NONE;
      case "static" -> Mode.STATIC;
      case "sts" -> Mode.STS;
      default -> throw new IllegalArgumentException("Configuration key " + MODE.name()
          + " must be none, static or sts, got '" + get(MODE) + "'");
    };
  }

  /** The endpoint handed to clients, or null for AWS S3. */
  public String clientEndpoint() {
    String explicit = optional(CLIENT_ENDPOINT);
    return explicit != null ? explicit : s3.endpoint();
  }

  /** The STS settings; only meaningful (and only checked) in sts mode. */
  public StsSettings stsSettings() {
    String roleArn = optional(STS_ROLE_ARN);
    if (roleArn == null) {
      throw new IllegalArgumentException("Configuration key " + STS_ROLE_ARN.name() + " is required when "
          + MODE.name() + "=sts");
    }
    String endpoint = optional(STS_ENDPOINT);
    String region = optional(STS_REGION);
    return new StsSettings(
        endpoint != null ? endpoint : s3.endpoint(),
        region != null ? region : s3.region(),
        roleArn,
        stsSigningCredentials(),
        Duration.ofSeconds(getLong(STS_DURATION_SECONDS)),
        optional(STS_EXTERNAL_ID),
        clientEndpoint(),
        getDouble(STS_REFRESH_FRACTION),
        getLong(STS_CACHE_MAX_SESSIONS),
        Duration.ofMillis(getLong(STS_API_CALL_TIMEOUT_MS)));
  }

  /**
   * The vendor the mode selects, or empty for {@code none}. Checks the settings of the chosen mode and fails with a
   * message naming the key. Close the vendor on shutdown.
   */
  public Optional<CredentialVendor> createVendor() {
    return switch (mode()) {
      case NONE -> Optional.empty();
      case STATIC -> Optional.of(new StaticCredentialVendor(
          required(STATIC_ACCESS_KEY_ID), required(STATIC_SECRET_ACCESS_KEY), s3.region(), clientEndpoint()));
      case STS -> Optional.of(new StsCredentialVendor(stsSettings()));
    };
  }

  /** The keys as a markdown table, like {@code CoordinatorConfig.documentation()}. */
  public static String documentation() {
    return KEYS.documentation();
  }

  private AwsCredentialsProvider stsSigningCredentials() {
    String accessKey = optional(STS_ACCESS_KEY_ID);
    String secretKey = optional(STS_SECRET_ACCESS_KEY);
    String token = optional(STS_SESSION_TOKEN);
    if (accessKey == null && secretKey == null && token == null) {
      return s3.credentialsProvider();
    }
    if (accessKey == null || secretKey == null) {
      throw new IllegalArgumentException("Configuration keys " + STS_ACCESS_KEY_ID.name() + " and "
          + STS_SECRET_ACCESS_KEY.name() + " must be set together");
    }
    return StaticCredentialsProvider.create(token == null
        ? AwsBasicCredentials.create(accessKey, secretKey)
        : AwsSessionCredentials.create(accessKey, secretKey, token));
  }

  private String get(Key key) {
    return values.get(key);
  }

  private String optional(Key key) {
    return values.optional(key);
  }

  private String required(Key key) {
    String value = optional(key);
    if (value == null) {
      throw new IllegalArgumentException("Configuration key " + key.name() + " is required when " + MODE.name()
          + "=" + get(MODE).trim());
    }
    return value;
  }

  private long getLong(Key key) {
    return values.getLong(key);
  }

  private double getDouble(Key key) {
    return values.getDouble(key);
  }
}
