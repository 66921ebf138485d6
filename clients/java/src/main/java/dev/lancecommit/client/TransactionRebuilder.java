package dev.lancecommit.client;

/**
 * Builds a transaction on a given read version; called again on a newer version each time the coordinator answers
 * a retryable conflict (409/14), so the work is redone on what was committed meanwhile (the way Lance's own commit
 * loop re-runs a delete). Must be safe to call more than once; may write new files (e.g. deletion files) each time.
 */
@FunctionalInterface
public interface TransactionRebuilder {
  CommitRequest build(long readVersion);
}
