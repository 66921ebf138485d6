package dev.lancecommit.coordinator.storage;

import java.time.Duration;
import java.util.Objects;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * How to reach S3 or an S3-compatible store.
 *
 * @param endpoint endpoint override such as {@code http://127.0.0.1:9000}; null for AWS S3 itself
 * @param region signing region, e.g. {@code us-east-1}
 * @param pathStyle path-style addressing ({@code endpoint/bucket/key}), needed by most S3-compatible stores
 * @param accessKeyId static access key; null (together with the secret) selects the SDK's default credential chain
 * @param secretAccessKey static secret key
 * @param sessionToken session token of temporary credentials, or null
 * @param apiCallTimeout bound on one call including retries
 * @param apiCallAttemptTimeout bound on one HTTP attempt
 */
public record S3Config(
    String endpoint,
    String region,
    boolean pathStyle,
    String accessKeyId,
    String secretAccessKey,
    String sessionToken,
    Duration apiCallTimeout,
    Duration apiCallAttemptTimeout) {

  public S3Config {
    if (region == null || region.isBlank()) {
      throw new IllegalArgumentException("S3 region must be set");
    }
    if ((accessKeyId == null) != (secretAccessKey == null)) {
      throw new IllegalArgumentException("S3 access key id and secret access key must be set together");
    }
    if (sessionToken != null && accessKeyId == null) {
      throw new IllegalArgumentException("S3 session token requires an access key id and secret access key");
    }
    if (endpoint != null && !(endpoint.startsWith("http://") || endpoint.startsWith("https://"))) {
      throw new IllegalArgumentException("S3 endpoint must be an http:// or https:// URL: " + endpoint);
    }
    requirePositive(apiCallTimeout, "apiCallTimeout");
    requirePositive(apiCallAttemptTimeout, "apiCallAttemptTimeout");
  }

  /** Credentials for the SDK: the static keys when given, otherwise the default chain (env, profile, IMDS...). */
  public AwsCredentialsProvider credentialsProvider() {
    if (accessKeyId == null) {
      return DefaultCredentialsProvider.builder().build();
    }
    return StaticCredentialsProvider.create(sessionToken == null
        ? AwsBasicCredentials.create(accessKeyId, secretAccessKey)
        : AwsSessionCredentials.create(accessKeyId, secretAccessKey, sessionToken));
  }

  /** A copy with other timeouts. */
  public S3Config withTimeouts(Duration callTimeout, Duration attemptTimeout) {
    return new S3Config(endpoint, region, pathStyle, accessKeyId, secretAccessKey, sessionToken,
        callTimeout, attemptTimeout);
  }

  @Override
  public String toString() {
    return "S3Config[endpoint=" + endpoint + ", region=" + region + ", pathStyle=" + pathStyle
        + ", accessKeyId=" + accessKeyId + ", secretAccessKey=" + (secretAccessKey == null ? null : "***")
        + ", sessionToken=" + (sessionToken == null ? null : "***")
        + ", apiCallTimeout=" + apiCallTimeout + ", apiCallAttemptTimeout=" + apiCallAttemptTimeout + "]";
  }

  private static void requirePositive(Duration duration, String name) {
    Objects.requireNonNull(duration, name);
    if (duration.isNegative() || duration.isZero()) {
      throw new IllegalArgumentException(name + " must be positive: " + duration);
    }
  }
}
