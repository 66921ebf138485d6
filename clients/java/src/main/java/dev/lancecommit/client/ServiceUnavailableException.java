package dev.lancecommit.client;

/** 503/17 (or no answer) on a call that changes nothing, after the retry budget: try again later. */
public class ServiceUnavailableException extends RequestFailedException {
  public ServiceUnavailableException(String message, int httpStatus, int code, String detail) {
    super(message, httpStatus, code, detail);
  }

  public ServiceUnavailableException(String message, Throwable cause) {
    super(message, 0, -1, cause == null ? "" : cause.toString(), cause);
  }
}
