package dev.lancecommit.events.consumer;

import dev.lancecommit.events.CommitEvent;

/**
 * Receives the commit events of a {@link CommitEventConsumer}: per table in version order, each (table uuid, version)
 * once as far as the {@link TableCheckpointStore} knows (see {@link CommitEventConsumer} for the exact guarantee).
 *
 * <p>Called on the consumer's single polling thread. Throwing leaves the event undelivered: it is retried after the
 * consumer's retry backoff, and the table's later versions wait behind it (other tables go on).
 */
@FunctionalInterface
public interface CommitHandler {
  void onCommit(CommitEvent event) throws Exception;
}
