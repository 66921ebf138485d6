package dev.lancecommit.coordinator.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;

/**
 * Principals with fixed API keys and bearer tokens. Secrets are kept only as SHA-256 digests and looked up by
 * digest, so a lookup does not compare secrets byte by byte. An API key is only accepted in {@code x-api-key} and a
 * token only as a bearer token. When a request carries both, both must be valid and name the same principal.
 */
public final class StaticAuthenticator implements Authenticator {
  private final Map<String, Principal> byApiKey;
  private final Map<String, Principal> byToken;

  private StaticAuthenticator(Map<String, Principal> byApiKey, Map<String, Principal> byToken) {
    this.byApiKey = Map.copyOf(byApiKey);
    this.byToken = Map.copyOf(byToken);
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public Principal authenticate(Credentials credentials) {
    if (credentials.isEmpty()) {
      throw new UnauthenticatedException(
          "Credentials required: send an API key in the x-api-key header or a token in Authorization: Bearer");
    }
    Optional<Principal> fromKey = credentials.apiKey().map(key -> lookup(byApiKey, key, "API key"));
    Optional<Principal> fromToken = credentials.bearerToken().map(token -> lookup(byToken, token, "bearer token"));
    if (fromKey.isPresent() && fromToken.isPresent() && !fromKey.get().equals(fromToken.get())) {
      throw new UnauthenticatedException("The API key and the bearer token belong to different principals");
    }
    return fromKey.orElseGet(fromToken::orElseThrow);
  }

  private static Principal lookup(Map<String, Principal> table, String secret, String kind) {
    Principal principal = table.get(digest(secret));
    if (principal == null) {
      throw new UnauthenticatedException("Unknown " + kind);
    }
    return principal;
  }

  static String digest(String secret) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(sha.digest(secret.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }

  /** Collects principals; refuses a secret given to two principals (a request could not tell them apart). */
  public static final class Builder {
    private final Map<String, Principal> byApiKey = new HashMap<>();
    private final Map<String, Principal> byToken = new HashMap<>();

    private Builder() {}

    public Builder apiKey(String principal, String apiKey) {
      add(byApiKey, principal, apiKey, "API key");
      return this;
    }

    public Builder token(String principal, String token) {
      add(byToken, principal, token, "token");
      return this;
    }

    private static void add(Map<String, Principal> table, String principal, String secret, String kind) {
      if (secret == null || secret.isBlank()) {
        throw new IllegalArgumentException("The " + kind + " of principal '" + principal + "' is empty");
      }
      if (!secret.equals(secret.trim())) {
        throw new IllegalArgumentException(
            "The " + kind + " of principal '" + principal + "' has leading or trailing whitespace");
      }
      Principal previous = table.putIfAbsent(digest(secret), new Principal(principal));
      if (previous != null && !previous.name().equals(principal)) {
        throw new IllegalArgumentException("Principals '" + previous.name() + "' and '" + principal
            + "' have the same " + kind + "; every secret must identify one principal");
      }
    }

    public StaticAuthenticator build() {
      return new StaticAuthenticator(byApiKey, byToken);
    }
  }
}
