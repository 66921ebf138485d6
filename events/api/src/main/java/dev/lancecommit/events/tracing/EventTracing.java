package dev.lancecommit.events.tracing;

import dev.lancecommit.events.TraceContext;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Between OpenTelemetry's {@link Context} and the {@link TraceContext} an event carries (W3C {@code traceparent} and
 * {@code tracestate}, the CloudEvents distributed-tracing extension).
 */
public final class EventTracing {
  private static final W3CTraceContextPropagator W3C = W3CTraceContextPropagator.getInstance();
  private static final TextMapGetter<Map<String, String>> MAP_GETTER = new TextMapGetter<>() {
    @Override
    public Iterable<String> keys(Map<String, String> carrier) {
      return carrier.keySet();
    }

    @Override
    public String get(Map<String, String> carrier, String key) {
      return carrier == null ? null : carrier.get(key);
    }
  };

  private EventTracing() {}

  /** The context whose (remote) parent is {@code trace}; the root context when it is null. */
  public static Context contextOf(TraceContext trace) {
    if (trace == null) {
      return Context.root();
    }
    Map<String, String> carrier = new HashMap<>();
    carrier.put("traceparent", trace.traceParent());
    if (trace.traceState() != null) {
      carrier.put("tracestate", trace.traceState());
    }
    return W3C.extract(Context.root(), carrier, MAP_GETTER);
  }

  /** The trace context of the span in {@code context}; null when there is no valid span. */
  public static TraceContext traceOf(Context context) {
    if (!Span.fromContext(context).getSpanContext().isValid()) {
      return null;
    }
    Map<String, String> carrier = new HashMap<>();
    W3C.inject(context, carrier, Map::put);
    return TraceContext.parse(carrier.get("traceparent"), carrier.get("tracestate")).orElse(null);
  }

  /** The trace context of the current span, or null. */
  public static TraceContext current() {
    return traceOf(Context.current());
  }

  /** The W3C header fields ({@code traceparent}, {@code tracestate}) to send with an outgoing request. */
  public static Map<String, String> headers(Context context) {
    Map<String, String> carrier = new HashMap<>();
    W3C.inject(context, carrier, Map::put);
    return carrier;
  }

  /** Names of the fields {@link #headers} may fill. */
  public static List<String> fields() {
    return List.copyOf(W3C.fields());
  }
}
