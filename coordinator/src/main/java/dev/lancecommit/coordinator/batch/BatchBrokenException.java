package dev.lancecommit.coordinator.batch;

/**
 * A recorded batch could not be completed: a member's version was taken by a writer that bypassed the coordinator
 * after the batch was checked (nothing that commits through the coordinator can do that). The versions already
 * written stay; the batch is marked finished and the failure logged. HTTP 409, code 19.
 */
public class BatchBrokenException extends RuntimeException {
  public BatchBrokenException(String message, Throwable cause) {
    super(message, cause);
  }
}
