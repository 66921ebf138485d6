package dev.lancecommit.coordinator.batch;

/**
 * The batch is recorded (or may be) but not every member version could be written yet: the coordinator keeps its
 * members hidden and its lanes held and completes it in the background (or abandons it, when it finds the record
 * was never written). HTTP 503, code 17: the same request again answers once the batch is settled.
 */
public class BatchPendingException extends RuntimeException {
  private final String batchId;

  public BatchPendingException(String batchId, String message, Throwable cause) {
    super(message, cause);
    this.batchId = batchId;
  }

  public String batchId() {
    return batchId;
  }
}
