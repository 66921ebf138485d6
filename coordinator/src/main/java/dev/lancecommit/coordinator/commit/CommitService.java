package dev.lancecommit.coordinator.commit;

import dev.lancecommit.coordinator.table.TableRef;
import java.util.concurrent.CompletableFuture;

/**
 * Commits Lance transactions to catalogued tables. The future fails with the exception taxonomy listed in
 * ARCHITECTURE.md; it never completes on a Vert.x event loop thread with blocking work still to do.
 */
public interface CommitService {
  CompletableFuture<CommitResult> commit(TableRef table, CommitRequest request);
}
