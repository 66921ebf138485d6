package dev.lancecommit.coordinator.commit;

import java.util.Optional;

/**
 * One CommitTable call as the service sees it.
 *
 * @param transaction raw Lance {@code Transaction} protobuf bytes, exactly as a writer would put in a .txn file
 * @param affectedRows optional portable Roaring 64-bit map of row addresses the transaction touched
 * @param rebase false makes any intervening commit a retryable conflict instead of a rebase
 * @param actor the authenticated principal, recorded in the commit event
 */
public record CommitRequest(byte[] transaction, Optional<byte[]> affectedRows, boolean rebase, String actor) {}
