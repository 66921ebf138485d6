package dev.lancecommit.client;

/** 409/2: a namespace with this id already exists. */
public class NamespaceAlreadyExistsException extends RequestFailedException {
  public NamespaceAlreadyExistsException(String message, int httpStatus, int code, String detail) {
    super(message, httpStatus, code, detail);
  }
}
