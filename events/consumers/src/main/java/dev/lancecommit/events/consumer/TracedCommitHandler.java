package dev.lancecommit.events.consumer;

import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.tracing.EventTracing;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;

/**
 * Runs each delivery in a CONSUMER span ({@code process <topic>}) whose parent is the trace the event carries, so the
 * handler's work, and whatever it calls with the current context (the trigger's commits through the coordinator),
 * continues the commit's trace.
 */
final class TracedCommitHandler implements CommitHandler {
  static final AttributeKey<String> TABLE = AttributeKey.stringKey("lance.table");
  static final AttributeKey<Long> VERSION = AttributeKey.longKey("lance.version");

  private final CommitHandler delegate;
  private final Tracer tracer;
  private final String topic;
  private final String group;

  TracedCommitHandler(CommitHandler delegate, OpenTelemetry openTelemetry, String topic, String group) {
    this.delegate = delegate;
    this.tracer = openTelemetry.getTracer("dev.lancecommit.events.consumer");
    this.topic = topic;
    this.group = group;
  }

  @Override
  public void onCommit(CommitEvent event) throws Exception {
    Span span = tracer.spanBuilder("process " + topic)
        .setParent(EventTracing.contextOf(event.trace()))
        .setSpanKind(SpanKind.CONSUMER)
        .setAttribute("messaging.system", "kafka")
        .setAttribute("messaging.operation.type", "process")
        .setAttribute("messaging.destination.name", topic)
        .setAttribute("messaging.consumer.group.name", group)
        .setAttribute("messaging.message.id", event.id())
        .setAttribute(TABLE, event.tableKey())
        .setAttribute(VERSION, event.version())
        .startSpan();
    try (Scope ignored = span.makeCurrent()) {
      delegate.onCommit(event);
    } catch (Exception | Error e) {
      span.recordException(e);
      span.setStatus(StatusCode.ERROR);
      throw e;
    } finally {
      span.end();
    }
  }
}
