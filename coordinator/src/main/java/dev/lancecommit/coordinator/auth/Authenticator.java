package dev.lancecommit.coordinator.auth;

/**
 * Turns a request's credentials into a principal. Called on a Vert.x event loop for every request, so an
 * implementation must not block (verify signatures or look up an in-memory table; fetch remote keys in the
 * background).
 */
@FunctionalInterface
public interface Authenticator {
  /**
   * @return the principal the credentials belong to
   * @throws UnauthenticatedException when the credentials are missing or not valid
   */
  Principal authenticate(Credentials credentials);
}
