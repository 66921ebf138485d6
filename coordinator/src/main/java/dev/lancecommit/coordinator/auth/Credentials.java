package dev.lancecommit.coordinator.auth;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The credentials a request presents, as the Lance namespace spec's {@code Identity} carries them over REST: an API
 * key in the {@code x-api-key} header and/or a bearer token in {@code Authorization: Bearer <token>}.
 */
public record Credentials(Optional<String> apiKey, Optional<String> bearerToken) {
  public static final String API_KEY_HEADER = "x-api-key";
  public static final String AUTHORIZATION_HEADER = "Authorization";
  private static final String BEARER = "bearer ";

  public static Credentials none() {
    return new Credentials(Optional.empty(), Optional.empty());
  }

  public boolean isEmpty() {
    return apiKey.isEmpty() && bearerToken.isEmpty();
  }

  /**
   * Reads the two headers (every value each was given). A header given twice, an empty value or an
   * {@code Authorization} scheme other than Bearer is refused rather than guessed at.
   *
   * @throws UnauthenticatedException for malformed credentials
   */
  public static Credentials fromHeaders(List<String> apiKeyValues, List<String> authorizationValues) {
    Optional<String> apiKey = single(API_KEY_HEADER, apiKeyValues).map(String::trim);
    if (apiKey.isPresent() && apiKey.get().isEmpty()) {
      throw new UnauthenticatedException("The " + API_KEY_HEADER + " header is empty");
    }
    Optional<String> token = single(AUTHORIZATION_HEADER, authorizationValues).map(value -> {
      String trimmed = value.trim();
      if (!trimmed.toLowerCase(Locale.ROOT).startsWith(BEARER)) {
        throw new UnauthenticatedException("The Authorization header must use the Bearer scheme");
      }
      String bearer = trimmed.substring(BEARER.length()).trim();
      if (bearer.isEmpty()) {
        throw new UnauthenticatedException("The Authorization header carries an empty bearer token");
      }
      return bearer;
    });
    return new Credentials(apiKey, token);
  }

  private static Optional<String> single(String header, List<String> values) {
    if (values == null || values.isEmpty()) {
      return Optional.empty();
    }
    if (values.size() > 1) {
      throw new UnauthenticatedException("The " + header + " header was given " + values.size() + " times");
    }
    return Optional.of(values.get(0));
  }

  /** Never prints the secrets. */
  @Override
  public String toString() {
    return "Credentials[apiKey=" + (apiKey.isPresent() ? "***" : "none") + ", bearerToken="
        + (bearerToken.isPresent() ? "***" : "none") + "]";
  }
}
