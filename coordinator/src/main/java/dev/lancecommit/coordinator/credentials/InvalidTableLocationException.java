package dev.lancecommit.coordinator.credentials;

/** A table location credentials cannot be scoped to (not {@code s3://}, a wildcard in it, a whole bucket...). */
public final class InvalidTableLocationException extends IllegalArgumentException {
  public InvalidTableLocationException(String message) {
    super(message);
  }
}
