package dev.lancecommit.coordinator.credentials;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Storage credentials handed to one principal for one table.
 *
 * @param accessKeyId access key
 * @param secretAccessKey secret key
 * @param sessionToken session token of temporary credentials; null for static keys
 * @param region signing region
 * @param endpoint S3 endpoint writers should use, e.g. {@code http://127.0.0.1:8333}; null for AWS S3 itself
 * @param expiresAt when temporary credentials stop working; null for static keys
 */
public record VendedCredentials(
    String accessKeyId,
    String secretAccessKey,
    String sessionToken,
    String region,
    String endpoint,
    Instant expiresAt) {

  public static final String ACCESS_KEY_ID = "aws_access_key_id";
  public static final String SECRET_ACCESS_KEY = "aws_secret_access_key";
  public static final String SESSION_TOKEN = "aws_session_token";
  public static final String REGION = "aws_region";
  public static final String ENDPOINT = "aws_endpoint";
  public static final String ALLOW_HTTP = "allow_http";
  public static final String EXPIRES_AT_MILLIS = "expires_at_millis";

  public VendedCredentials {
    requireText(accessKeyId, "accessKeyId");
    requireText(secretAccessKey, "secretAccessKey");
    requireText(region, "region");
    if (sessionToken != null && sessionToken.isBlank()) {
      throw new IllegalArgumentException("sessionToken must be null or non-blank");
    }
    if (endpoint != null && !(endpoint.startsWith("http://") || endpoint.startsWith("https://"))) {
      throw new IllegalArgumentException("endpoint must be an http:// or https:// URL: " + endpoint);
    }
  }

  /**
   * Options for Lance ({@code storage_options} of DescribeTable/DeclareTable; Rust object_store key names):
   * {@value #ACCESS_KEY_ID}, {@value #SECRET_ACCESS_KEY}, {@value #SESSION_TOKEN}, {@value #REGION},
   * {@value #ENDPOINT}, {@value #ALLOW_HTTP} ({@code true} only for an {@code http://} endpoint) and
   * {@value #EXPIRES_AT_MILLIS}. The session token and expiry are left out for static keys, the endpoint for AWS
   * S3 itself.
   */
  public Map<String, String> storageOptions() {
    Map<String, String> options = new LinkedHashMap<>();
    options.put(ACCESS_KEY_ID, accessKeyId);
    options.put(SECRET_ACCESS_KEY, secretAccessKey);
    if (sessionToken != null) {
      options.put(SESSION_TOKEN, sessionToken);
    }
    options.put(REGION, region);
    if (endpoint != null) {
      options.put(ENDPOINT, endpoint);
    }
    options.put(ALLOW_HTTP, Boolean.toString(endpoint != null && endpoint.startsWith("http://")));
    if (expiresAt != null) {
      options.put(EXPIRES_AT_MILLIS, Long.toString(expiresAt.toEpochMilli()));
    }
    return Collections.unmodifiableMap(options);
  }

  /** True once {@code now} is at or past the expiry; static keys never expire. */
  public boolean isExpiredAt(Instant now) {
    return expiresAt != null && !now.isBefore(expiresAt);
  }

  @Override
  public String toString() {
    return "VendedCredentials[accessKeyId=" + accessKeyId + ", secretAccessKey=***, sessionToken="
        + (sessionToken == null ? null : "***") + ", region=" + region + ", endpoint=" + endpoint
        + ", expiresAt=" + expiresAt + "]";
  }

  private static void requireText(String value, String name) {
    Objects.requireNonNull(value, name);
    if (value.isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank");
    }
  }
}
