package dev.lancecommit.client;

/** 403/15: the principal lacks the grant this call needs on the table or namespace. */
public class PermissionDeniedException extends RequestFailedException {
  public PermissionDeniedException(String message, int httpStatus, int code, String detail) {
    super(message, httpStatus, code, detail);
  }
}
