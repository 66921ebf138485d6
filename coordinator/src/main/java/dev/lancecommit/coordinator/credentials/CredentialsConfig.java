package dev.lancecommit.coordinator.credentials;

import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;
import static org.apache.kafka.common.config.ConfigDef.Range.between;

import dev.lancecommit.config.Config;
import dev.lancecommit.config.ConfigKey;
import dev.lancecommit.config.ConfigKeys;
import dev.lancecommit.coordinator.storage.S3Config;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * The {@code credentials.*} configuration keys (credential vending for DescribeTable/DeclareTable) and the vendor
 * they select; the coordinator's configuration includes {@link #keys()}.
 */
public final class CredentialsConfig {

  /** Which vendor {@code credentials.mode} selects. */
  public enum Mode { NONE, STATIC, STS }

  private static final ConfigKeys KEYS = new ConfigKeys();

  public static final ConfigKey<String> MODE = KEYS.string("credentials.mode", "none",
      ConfigKeys.oneOf("none", "static", "sts"),
      "Credential vending in DescribeTable/DeclareTable storage_options: 'none' (writers bring their own), 'sts' "
          + "(AssumeRole with a per-table session policy: data files writable, final manifests denied) or "
          + "'static' (hands out credentials.static.* keys to everyone; cannot deny manifest writes, for stores "
          + "without STS and trusted writers only).");
  public static final ConfigKey<String> CLIENT_ENDPOINT = KEYS.string("credentials.client-endpoint", "",
      "S3 endpoint handed to clients as aws_endpoint; empty = s3.endpoint (empty too = AWS S3).");
  public static final ConfigKey<String> STATIC_ACCESS_KEY_ID = KEYS.string("credentials.static.access-key-id", "",
      "Access key handed out in static mode (required there).");
  public static final ConfigKey<String> STATIC_SECRET_ACCESS_KEY = KEYS.secret("credentials.static.secret-access-key",
      "Secret key handed out in static mode (required there).");
  public static final ConfigKey<String> STS_ENDPOINT = KEYS.string("credentials.sts.endpoint", "",
      "STS endpoint; empty = s3.endpoint when set (S3-compatible stores such as SeaweedFS serve STS on the S3 "
          + "port), otherwise AWS's regional STS.");
  public static final ConfigKey<String> STS_REGION = KEYS.string("credentials.sts.region", "",
      "Region of STS calls and of the aws_region handed out; empty = s3.region.");
  public static final ConfigKey<String> STS_ROLE_ARN = KEYS.string("credentials.sts.role-arn", "",
      "Role the coordinator assumes for every session (required in sts mode); its trust policy must allow the "
          + "coordinator's principal and its permissions must cover the warehouse's tables.");
  public static final ConfigKey<String> STS_ACCESS_KEY_ID = KEYS.string("credentials.sts.access-key-id", "",
      "Access key that signs AssumeRole; empty = the coordinator's s3.* credentials (or the AWS default chain).");
  public static final ConfigKey<String> STS_SECRET_ACCESS_KEY = KEYS.secret("credentials.sts.secret-access-key",
      "Secret key that signs AssumeRole.");
  public static final ConfigKey<String> STS_SESSION_TOKEN = KEYS.secret("credentials.sts.session-token",
      "Session token of the AssumeRole signing credentials, if they are temporary.");
  public static final ConfigKey<Long> STS_DURATION_SECONDS = KEYS.longInteger("credentials.sts.duration-seconds",
      3600L, between(900, 43_200),
      "Lifetime of each vended session, 900 to 43200 seconds (the role's maximum session duration caps it).");
  public static final ConfigKey<String> STS_EXTERNAL_ID = KEYS.string("credentials.sts.external-id", "",
      "ExternalId sent with AssumeRole when the role's trust policy requires one.");
  public static final ConfigKey<Double> STS_REFRESH_FRACTION = KEYS.decimal("credentials.sts.refresh-fraction",
      0.75, ConfigDef.LambdaValidator.with((name, value) -> {
        double fraction = (Double) value;
        if (!(fraction > 0 && fraction <= 1)) {
          throw new ConfigException(name, value, "must be in (0, 1]");
        }
      }, () -> "(0, 1]"),
      "Share of a session's lifetime after which a cached session is replaced by a fresh one, in (0, 1].");
  public static final ConfigKey<Long> STS_CACHE_MAX_SESSIONS = KEYS.longInteger("credentials.sts.cache-max-sessions",
      10_000L, atLeast(1), "Sessions cached at most (one per principal, table and access mode).");
  public static final ConfigKey<Duration> STS_API_CALL_TIMEOUT_MS = KEYS.millis(
      "credentials.sts.api-call-timeout.ms", 30_000, atLeast(1),
      "Timeout of one AssumeRole call including SDK retries; a vend that times out fails with 503.");

  private final Config values;
  private final S3Config s3;

  private CredentialsConfig(Config values, S3Config s3) {
    this.values = values;
    this.s3 = s3;
  }

  /** Every {@code credentials.*} key. */
  public static ConfigKeys keys() {
    return KEYS;
  }

  /** Reads the keys from the coordinator's configuration (or any group that includes them). */
  public static CredentialsConfig from(Config config, S3Config s3) {
    return new CredentialsConfig(config, s3);
  }

  /** Reads the keys from a map (missing keys take their defaults); unknown keys and invalid values fail. */
  public static CredentialsConfig from(Map<String, String> values, S3Config s3) {
    return new CredentialsConfig(KEYS.parse(values), s3);
  }

  public Mode mode() {
    return Mode.valueOf(get(MODE).trim().toUpperCase(Locale.ROOT));
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
        Duration.ofSeconds(values.get(STS_DURATION_SECONDS)),
        optional(STS_EXTERNAL_ID),
        clientEndpoint(),
        values.get(STS_REFRESH_FRACTION),
        values.get(STS_CACHE_MAX_SESSIONS),
        values.get(STS_API_CALL_TIMEOUT_MS));
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

  private String get(ConfigKey<String> key) {
    return values.get(key);
  }

  /** The trimmed value, or null when it is blank. */
  private String optional(ConfigKey<String> key) {
    String value = get(key);
    return value == null || value.isBlank() ? null : value.trim();
  }

  private String required(ConfigKey<String> key) {
    String value = optional(key);
    if (value == null) {
      throw new IllegalArgumentException("Configuration key " + key.name() + " is required when " + MODE.name()
          + "=" + get(MODE).trim());
    }
    return value;
  }
}
