package dev.lancecommit.coordinator.credentials;

/** The credential service refused or could not be reached; nothing was handed out. */
public final class CredentialVendingException extends RuntimeException {
  public CredentialVendingException(String message, Throwable cause) {
    super(message, cause);
  }
}
