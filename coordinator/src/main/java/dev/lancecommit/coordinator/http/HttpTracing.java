package dev.lancecommit.coordinator.http;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.RoutingContext;

/**
 * The first handler of every API request: continues the W3C trace context the request carries ({@code traceparent},
 * {@code tracestate}) in a SERVER span that lasts until the response is sent, and keeps that context on the
 * request's Vert.x context, where {@link Blocking} picks it up for the work it runs on worker threads (so the
 * commit's spans, and the trace its event carries, continue the caller's trace).
 */
final class HttpTracing {
  private static final String OTEL_CONTEXT = "lancecommit.otel.context";
  private static final TextMapGetter<MultiMap> HEADERS = new TextMapGetter<>() {
    @Override
    public Iterable<String> keys(MultiMap carrier) {
      return carrier.names();
    }

    @Override
    public String get(MultiMap carrier, String key) {
      return carrier == null ? null : carrier.get(key);
    }
  };

  private final Tracer tracer;
  private final TextMapPropagator propagator;

  HttpTracing(OpenTelemetry openTelemetry) {
    this.tracer = openTelemetry.getTracer("dev.lancecommit.coordinator.http");
    this.propagator = openTelemetry.getPropagators().getTextMapPropagator();
  }

  void handle(RoutingContext ctx) {
    Context parent = propagator.extract(Context.root(), ctx.request().headers(), HEADERS);
    String method = ctx.request().method().name();
    Span span = tracer.spanBuilder(method)
        .setParent(parent)
        .setSpanKind(SpanKind.SERVER)
        .setAttribute("http.request.method", method)
        .setAttribute("url.path", ctx.request().path())
        .startSpan();
    Context context = parent.with(span);
    ctx.vertx().getOrCreateContext().putLocal(OTEL_CONTEXT, context);
    ctx.addHeadersEndHandler(ignored -> {
      Route route = ctx.currentRoute();
      if (route != null && route.getPath() != null) {
        span.updateName(method + " " + route.getPath());
        span.setAttribute("http.route", route.getPath());
      }
    });
    ctx.addEndHandler(ended -> {
      int status = ctx.response().getStatusCode();
      span.setAttribute("http.response.status_code", status);
      if (status >= 500 || ended.failed()) {
        span.setStatus(StatusCode.ERROR);
      }
      span.end();
    });
    ctx.next();
  }

  /** The trace context of the request being handled on the calling Vert.x context, else the thread's current one. */
  static Context current(Vertx vertx) {
    io.vertx.core.Context vertxContext = Vertx.currentContext();
    if (vertxContext != null) {
      Context context = vertxContext.getLocal(OTEL_CONTEXT);
      if (context != null) {
        return context;
      }
    }
    return Context.current();
  }
}
