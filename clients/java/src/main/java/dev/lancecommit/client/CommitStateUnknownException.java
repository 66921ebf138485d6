package dev.lancecommit.client;

import java.util.Objects;

/**
 * No definite answer for a commit within the retry budget (503/17 "outcome unknown", another 5xx, or no answer at
 * all): the transaction may or may not have been committed. Resubmitting the same {@link #request()} later settles it
 * without risk: the coordinator answers the original version if it committed, and commits it otherwise.
 */
public class CommitStateUnknownException extends CommitClientException {
  private final TableId table;
  private final CommitRequest request;

  public CommitStateUnknownException(String message, int httpStatus, int code, String detail, TableId table,
      CommitRequest request, Throwable cause) {
    super(message, httpStatus, code, detail, cause);
    this.table = Objects.requireNonNull(table, "table");
    this.request = Objects.requireNonNull(request, "request");
  }

  public TableId table() {
    return table;
  }

  /** The exact request whose outcome is unknown; pass it to {@link CommitClient#commit(TableId, CommitRequest)}. */
  public CommitRequest request() {
    return request;
  }

  public String transactionUuid() {
    return request.transaction().getUuid();
  }
}
