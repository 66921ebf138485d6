package dev.lancecommit.client;

/** 404/1: the namespace does not exist. */
public class NamespaceNotFoundException extends RequestFailedException {
  public NamespaceNotFoundException(String message, int httpStatus, int code, String detail) {
    super(message, httpStatus, code, detail);
  }
}
