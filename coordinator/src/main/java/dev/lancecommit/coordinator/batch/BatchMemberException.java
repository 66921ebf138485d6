package dev.lancecommit.coordinator.batch;

import java.util.List;

/**
 * A member of a batch failed its check: nothing of the batch was written. The cause is what the member would have
 * got as a single commit; the answer keeps its status and code and names the member.
 */
public class BatchMemberException extends RuntimeException {
  private final int index;
  private final List<String> tableId;

  public BatchMemberException(int index, List<String> tableId, RuntimeException cause) {
    super("Member " + index + " (table " + String.join("$", tableId) + ") failed: " + cause.getMessage(), cause);
    this.index = index;
    this.tableId = List.copyOf(tableId);
  }

  /** The member's position in the request. */
  public int index() {
    return index;
  }

  /** The member's table, as the request named it. */
  public List<String> tableId() {
    return tableId;
  }

  @Override
  public synchronized RuntimeException getCause() {
    return (RuntimeException) super.getCause();
  }
}
