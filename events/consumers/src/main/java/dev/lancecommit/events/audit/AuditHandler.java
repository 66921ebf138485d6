package dev.lancecommit.events.audit;

import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.consumer.CommitHandler;

/**
 * Records each delivered commit in an {@link AuditLog}. A database failure is thrown to the consumer, which retries
 * the event (recording is idempotent, so a retry after a partial failure is safe).
 */
public final class AuditHandler implements CommitHandler {
  private final AuditLog log;

  public AuditHandler(AuditLog log) {
    this.log = log;
  }

  @Override
  public void onCommit(CommitEvent event) {
    log.record(event);
  }
}
