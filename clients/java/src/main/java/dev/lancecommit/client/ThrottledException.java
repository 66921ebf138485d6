package dev.lancecommit.client;

/** 429/21: the table's commit queue stayed full for the whole retry budget; nothing was committed. */
public class ThrottledException extends RequestFailedException {
  public ThrottledException(String message, int httpStatus, int code, String detail) {
    super(message, httpStatus, code, detail);
  }
}
