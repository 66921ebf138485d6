package dev.lancecommit.coordinator.credentials;

import dev.lancecommit.config.Config;
import java.time.Duration;
import java.util.Objects;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;

/**
 * How {@link StsCredentialVendor} reaches STS and what it hands out.
 *
 * @param stsEndpoint STS endpoint override, e.g. {@code http://127.0.0.1:8333}; null for AWS's regional STS
 * @param region signing region of STS calls and the {@code aws_region} handed to clients
 * @param roleArn role to assume; its own policies bound what any session can do
 * @param baseCredentials the coordinator's credentials that sign AssumeRole
 * @param sessionDuration lifetime asked for each session (AWS allows 900 s to the role's maximum)
 * @param externalId external id the role's trust policy may require; null for none
 * @param clientEndpoint S3 endpoint handed to clients as {@code aws_endpoint}; null for AWS S3 itself
 * @param refreshFraction share of a session's lifetime after which a cached session is replaced, in (0, 1]
 * @param maxCachedSessions upper bound of cached sessions (one per principal, table and mode)
 * @param apiCallTimeout bound on one STS call including retries
 */
public record StsSettings(
    String stsEndpoint,
    String region,
    String roleArn,
    AwsCredentialsProvider baseCredentials,
    Duration sessionDuration,
    String externalId,
    String clientEndpoint,
    double refreshFraction,
    long maxCachedSessions,
    Duration apiCallTimeout) {

  public static final Duration MIN_SESSION_DURATION = Duration.ofSeconds(900);
  public static final Duration MAX_SESSION_DURATION = Duration.ofHours(12);

  public StsSettings {
    Objects.requireNonNull(baseCredentials, "baseCredentials");
    Objects.requireNonNull(sessionDuration, "sessionDuration");
    Objects.requireNonNull(apiCallTimeout, "apiCallTimeout");
    if (region == null || region.isBlank()) {
      throw new IllegalArgumentException("STS region must be set");
    }
    if (roleArn == null || roleArn.isBlank()) {
      throw new IllegalArgumentException("STS role ARN must be set");
    }
    checkUrl(stsEndpoint, "STS endpoint");
    checkUrl(clientEndpoint, "client endpoint");
    if (sessionDuration.compareTo(MIN_SESSION_DURATION) < 0 || sessionDuration.compareTo(MAX_SESSION_DURATION) > 0) {
      throw new IllegalArgumentException("STS session duration must be between " + MIN_SESSION_DURATION.toSeconds()
          + " and " + MAX_SESSION_DURATION.toSeconds() + " seconds, got " + sessionDuration.toSeconds());
    }
    if (!(refreshFraction > 0 && refreshFraction <= 1)) {
      throw new IllegalArgumentException("refresh fraction must be in (0, 1], got " + refreshFraction);
    }
    if (maxCachedSessions < 0) {
      throw new IllegalArgumentException("maxCachedSessions must not be negative: " + maxCachedSessions);
    }
    if (apiCallTimeout.isNegative() || apiCallTimeout.isZero()) {
      throw new IllegalArgumentException("apiCallTimeout must be positive: " + apiCallTimeout);
    }
    if (externalId != null && externalId.isBlank()) {
      externalId = null;
    }
  }

  /** Settings with the defaults of the {@code credentials.sts.*} keys (sessions, refresh, cache, call timeout). */
  public static StsSettings of(String stsEndpoint, String region, String roleArn,
      AwsCredentialsProvider baseCredentials, String clientEndpoint) {
    Config defaults = CredentialsConfig.keys().defaults();
    return new StsSettings(stsEndpoint, region, roleArn, baseCredentials,
        Duration.ofSeconds(defaults.get(CredentialsConfig.STS_DURATION_SECONDS)), null, clientEndpoint,
        defaults.get(CredentialsConfig.STS_REFRESH_FRACTION), defaults.get(CredentialsConfig.STS_CACHE_MAX_SESSIONS),
        defaults.get(CredentialsConfig.STS_API_CALL_TIMEOUT_MS));
  }

  public StsSettings withSessionDuration(Duration duration) {
    return new StsSettings(stsEndpoint, region, roleArn, baseCredentials, duration, externalId, clientEndpoint,
        refreshFraction, maxCachedSessions, apiCallTimeout);
  }

  private static void checkUrl(String url, String name) {
    if (url != null && !(url.startsWith("http://") || url.startsWith("https://"))) {
      throw new IllegalArgumentException(name + " must be an http:// or https:// URL: " + url);
    }
  }
}
