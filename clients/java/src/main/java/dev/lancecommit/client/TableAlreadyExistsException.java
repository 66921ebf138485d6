package dev.lancecommit.client;

/** 409/5: a table with this id already exists (DeclareTable of a known id). */
public class TableAlreadyExistsException extends RequestFailedException {
  public TableAlreadyExistsException(String message, int httpStatus, int code, String detail) {
    super(message, httpStatus, code, detail);
  }
}
