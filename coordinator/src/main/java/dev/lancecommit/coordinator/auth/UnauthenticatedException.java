package dev.lancecommit.coordinator.auth;

/** Missing, malformed or unknown credentials (HTTP 401, code 16). The message never contains a secret. */
public class UnauthenticatedException extends RuntimeException {
  public UnauthenticatedException(String message) {
    super(message);
  }
}
