package dev.lancecommit.client;

/**
 * Base of everything a {@link CommitClient} call throws for the coordinator's sake. Two kinds, never mixed:
 * {@link RequestFailedException} (the coordinator refused the request: nothing was changed, or for a commit, the
 * transaction was not committed) and {@link CommitStateUnknownException} (no definite answer: the commit may have
 * landed). The error model is the Lance namespace spec's {@code {"error", "code", "detail", "instance"}}.
 */
public abstract class CommitClientException extends RuntimeException {
  private final int httpStatus;
  private final int code;
  private final String detail;

  protected CommitClientException(String message, int httpStatus, int code, String detail, Throwable cause) {
    super(message, cause);
    this.httpStatus = httpStatus;
    this.code = code;
    this.detail = detail == null ? "" : detail;
  }

  /** The HTTP status of the answer, 0 when there was none. */
  public int httpStatus() {
    return httpStatus;
  }

  /** The namespace spec's error code, -1 when the answer had none. */
  public int code() {
    return code;
  }

  /** The coordinator's explanation ({@code detail}), empty when there was none. */
  public String detail() {
    return detail;
  }
}
