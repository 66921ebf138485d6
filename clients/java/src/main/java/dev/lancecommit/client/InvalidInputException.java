package dev.lancecommit.client;

/** 400/13: the request or transaction is malformed, or cannot apply to the table (e.g. a path outside it). */
public class InvalidInputException extends RequestFailedException {
  public InvalidInputException(String message, int httpStatus, int code, String detail) {
    super(message, httpStatus, code, detail);
  }
}
