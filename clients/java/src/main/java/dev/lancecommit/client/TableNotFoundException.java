package dev.lancecommit.client;

/** 404/4: the table does not exist (declare it first). */
public class TableNotFoundException extends RequestFailedException {
  public TableNotFoundException(String message, int httpStatus, int code, String detail) {
    super(message, httpStatus, code, detail);
  }
}
