package dev.lancecommit.client;

/**
 * The coordinator answered and refused: nothing was changed (for a commit: the transaction was not committed).
 * Subclasses name the error codes a caller may want to handle; others arrive as this class itself.
 */
public class RequestFailedException extends CommitClientException {
  public RequestFailedException(String message, int httpStatus, int code, String detail) {
    super(message, httpStatus, code, detail, null);
  }

  public RequestFailedException(String message, int httpStatus, int code, String detail, Throwable cause) {
    super(message, httpStatus, code, detail, cause);
  }
}
