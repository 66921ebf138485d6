package dev.lancecommit.coordinator.commit;

import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.CommitEventPublisher;
import java.util.concurrent.CompletableFuture;

/** Used only when the operator sets {@code kafka=none}: commits publish nothing. */
public final class DisabledEventPublisher implements CommitEventPublisher {
  @Override
  public CompletableFuture<Void> publish(CommitEvent event) {
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public void close() {}
}
