package dev.lancecommit.coordinator.publication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.events.TableEvent;
import dev.lancecommit.events.TableEventPublishException;
import dev.lancecommit.events.TableEventPublisher;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class ReadyGatedTableEventsTest {

  @Test
  void tableEventsWaitForTheEventsTopicInsteadOfLettingTheBrokerCreateIt() {
    List<TableEvent> sent = new CopyOnWriteArrayList<>();
    TableEventPublisher kafka = new TableEventPublisher() {
      @Override
      public CompletableFuture<Void> publish(TableEvent event) {
        sent.add(event);
        return CompletableFuture.completedFuture(null);
      }

      @Override
      public void close() {}
    };
    AtomicBoolean ready = new AtomicBoolean(false);
    TableEventPublisher gated = new ReadyGatedTableEvents(kafka, ready::get);
    TableEvent early = TableEvent.of(TableEvent.Type.DECLARED, List.of("ns", "t"), "u1", "/w/ns/t.lance", "alice",
        Instant.EPOCH);
    TableEvent later = TableEvent.of(TableEvent.Type.DROPPED, List.of("ns", "t"), "u1", "/w/ns/t.lance", "alice",
        Instant.EPOCH.plusSeconds(1));

    CompletableFuture<Void> refused = gated.publish(early);
    ready.set(true);
    CompletableFuture<Void> published = gated.publish(later);

    assertThat(refused).isCompletedExceptionally();
    assertThatThrownBy(refused::join).hasCauseInstanceOf(TableEventPublishException.class)
        .hasMessageContaining("not set up yet");
    assertThat(published).isCompleted();
    assertThat(sent).containsExactly(later);
  }
}
