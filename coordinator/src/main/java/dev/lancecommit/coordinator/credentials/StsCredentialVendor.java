package dev.lancecommit.coordinator.credentials;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sts.StsClient;
import software.amazon.awssdk.services.sts.StsClientBuilder;
import software.amazon.awssdk.services.sts.model.AssumeRoleRequest;
import software.amazon.awssdk.services.sts.model.Credentials;
import software.amazon.awssdk.services.sts.model.StsException;

/**
 * Vends temporary credentials with STS AssumeRole, narrowed by an inline session policy
 * ({@link SessionPolicies}) to one table: writers can write data files and stage manifests but never publish a
 * version. Sessions are cached per (principal, table, mode) until {@link StsSettings#refreshFraction()} of their
 * lifetime has passed, so a busy table costs one STS call per principal per refresh period. Concurrent requests
 * for the same key wait for a single AssumeRole call.
 *
 * <p>{@link #vend} blocks on the network: call it from a blocking executor.
 */
public final class StsCredentialVendor implements CredentialVendor, AutoCloseable {
  private static final int MAX_SESSION_NAME = 64;

  private final StsSettings settings;
  private final Clock clock;
  private final SdkHttpClient http;
  private final StsClient sts;
  private final Cache<SessionKey, Session> sessions;

  private record SessionKey(String principal, S3TableLocation location, AccessMode mode) {}

  private record Session(VendedCredentials credentials, Instant refreshAt) {}

  public StsCredentialVendor(StsSettings settings) {
    this(settings, Clock.systemUTC());
  }

  /** With a clock that decides when cached sessions are refreshed (tests move it forward). */
  public StsCredentialVendor(StsSettings settings, Clock clock) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.http = ApacheHttpClient.builder().build();
    try {
      StsClientBuilder builder = StsClient.builder()
          .httpClient(http)
          .region(Region.of(settings.region()))
          .credentialsProvider(settings.baseCredentials())
          .overrideConfiguration(o -> o.apiCallTimeout(settings.apiCallTimeout()));
      if (settings.stsEndpoint() != null) {
        builder.endpointOverride(URI.create(settings.stsEndpoint()));
      }
      this.sts = builder.build();
    } catch (RuntimeException e) {
      http.close();
      throw e;
    }
    this.sessions = Caffeine.newBuilder()
        .maximumSize(settings.maxCachedSessions())
        .ticker(() -> {
          Instant now = clock.instant();
          return now.getEpochSecond() * 1_000_000_000L + now.getNano();
        })
        .expireAfter(new RefreshAt())
        .build();
  }

  @Override
  public VendedCredentials vend(String principal, String tableLocation, AccessMode mode) {
    if (principal == null || principal.isBlank()) {
      throw new IllegalArgumentException("principal must not be blank");
    }
    Objects.requireNonNull(mode, "mode");
    S3TableLocation location = S3TableLocation.parse(tableLocation);
    return sessions.get(new SessionKey(principal, location, mode), this::assumeRole).credentials();
  }

  /** Sessions currently cached (for metrics). */
  public long cachedSessions() {
    sessions.cleanUp();
    return sessions.estimatedSize();
  }

  private Session assumeRole(SessionKey key) {
    String policy = SessionPolicies.forTable(key.location(), key.mode());
    AssumeRoleRequest.Builder request = AssumeRoleRequest.builder()
        .roleArn(settings.roleArn())
        .roleSessionName(sessionName(key.principal()))
        .durationSeconds(Math.toIntExact(settings.sessionDuration().toSeconds()))
        .policy(policy);
    if (settings.externalId() != null) {
      request.externalId(settings.externalId());
    }
    Instant requestedAt = clock.instant();
    Credentials credentials;
    try {
      credentials = sts.assumeRole(request.build()).credentials();
    } catch (StsException e) {
      throw new CredentialVendingException("STS refused AssumeRole of " + settings.roleArn() + " for "
          + key.principal() + " on " + key.location().uri() + ": " + e.getMessage(), e);
    } catch (SdkException e) {
      throw new CredentialVendingException("STS AssumeRole of " + settings.roleArn() + " failed: "
          + e.getMessage(), e);
    }
    if (credentials == null || credentials.expiration() == null) {
      throw new CredentialVendingException("STS returned no credentials or no expiration for " + settings.roleArn(),
          null);
    }
    VendedCredentials vended = new VendedCredentials(credentials.accessKeyId(), credentials.secretAccessKey(),
        credentials.sessionToken(), settings.region(), settings.clientEndpoint(), credentials.expiration());
    long lifetimeMillis = Duration.between(requestedAt, credentials.expiration()).toMillis();
    Instant refreshAt = requestedAt.plusMillis((long) (Math.max(0, lifetimeMillis) * settings.refreshFraction()));
    return new Session(vended, refreshAt);
  }

  /** {@code lcc-} and the principal, reduced to what AWS allows in a session name ({@code [\w+=,.@-]}, 2-64). */
  static String sessionName(String principal) {
    StringBuilder name = new StringBuilder("lcc-");
    for (int i = 0; i < principal.length() && name.length() < MAX_SESSION_NAME; i++) {
      char c = principal.charAt(i);
      boolean allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || "_+=,.@-".indexOf(c) >= 0;
      name.append(allowed ? c : '-');
    }
    return name.toString();
  }

  @Override
  public void close() {
    sessions.invalidateAll();
    sts.close();
    http.close();
  }

  private final class RefreshAt implements Expiry<SessionKey, Session> {
    @Override
    public long expireAfterCreate(SessionKey key, Session session, long currentTime) {
      return Math.max(0, Duration.between(clock.instant(), session.refreshAt()).toNanos());
    }

    @Override
    public long expireAfterUpdate(SessionKey key, Session session, long currentTime, long currentDuration) {
      return expireAfterCreate(key, session, currentTime);
    }

    @Override
    public long expireAfterRead(SessionKey key, Session session, long currentTime, long currentDuration) {
      return currentDuration;
    }
  }
}
