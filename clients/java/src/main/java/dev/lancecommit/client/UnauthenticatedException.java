package dev.lancecommit.client;

/** 401/16: no or unknown credentials (see {@code CommitClient.Builder#apiKey} and {@code #bearerToken}). */
public class UnauthenticatedException extends RequestFailedException {
  public UnauthenticatedException(String message, int httpStatus, int code, String detail) {
    super(message, httpStatus, code, detail);
  }
}
