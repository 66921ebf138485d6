package dev.lancecommit.coordinator.observe;

import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.CommitEventPublisher;
import dev.lancecommit.events.tracing.EventTracing;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import java.util.concurrent.CompletableFuture;

/**
 * Each publish attempt of a commit event as a PRODUCER span ({@code publish <topic>}) in the commit's trace, from the
 * hand-over to Kafka's acknowledgement (or failure: the outbox retries, each attempt its own span). Events without a
 * trace context (rebuilt from storage by the reconciler) are published without a span.
 */
final class TracedEventPublisher implements CommitEventPublisher {
  private final CommitEventPublisher delegate;
  private final Tracer tracer;
  private final String topic;

  TracedEventPublisher(CommitEventPublisher delegate, Tracer tracer, String topic) {
    this.delegate = delegate;
    this.tracer = tracer;
    this.topic = topic;
  }

  @Override
  public CompletableFuture<Void> publish(CommitEvent event) {
    if (event.trace() == null) {
      return delegate.publish(event);
    }
    Span span = tracer.spanBuilder("publish " + topic)
        .setParent(EventTracing.contextOf(event.trace()))
        .setSpanKind(SpanKind.PRODUCER)
        .setAttribute("messaging.system", "kafka")
        .setAttribute("messaging.operation.type", "send")
        .setAttribute("messaging.destination.name", topic)
        .setAttribute("messaging.message.id", event.id())
        .setAttribute("lance.table", event.tableKey())
        .setAttribute("lance.version", event.version())
        .startSpan();
    CompletableFuture<Void> sent;
    try {
      sent = delegate.publish(event);
    } catch (RuntimeException e) {
      sent = CompletableFuture.failedFuture(e);
    }
    sent.whenComplete((ok, failure) -> {
      if (failure != null) {
        span.recordException(failure);
        span.setStatus(StatusCode.ERROR);
      }
      span.end();
    });
    return sent;
  }

  @Override
  public void close() {
    delegate.close();
  }
}
