package dev.lancecommit.client;

/** 400/0: an operation this coordinator does not apply (e.g. DataOverlay); {@link #detail()} says why. */
public class UnsupportedOperationTypeException extends RequestFailedException {
  public UnsupportedOperationTypeException(String message, int httpStatus, int code, String detail) {
    super(message, httpStatus, code, detail);
  }
}
