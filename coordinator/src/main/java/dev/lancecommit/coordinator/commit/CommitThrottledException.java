package dev.lancecommit.coordinator.commit;

/** Too many commits are queued for one table (HTTP 429, code 21). */
public class CommitThrottledException extends RuntimeException {
  public CommitThrottledException(String message) {
    super(message);
  }
}
