package dev.lancecommit.client;

/** 400/20: the commit breaks the table's schema contract; {@link #detail()} names the field path. */
public class SchemaContractException extends RequestFailedException {
  public SchemaContractException(String message, int httpStatus, int code, String detail) {
    super(message, httpStatus, code, detail);
  }
}
