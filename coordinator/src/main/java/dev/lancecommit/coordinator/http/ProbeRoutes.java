package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.observe.Readiness;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The routes that answer without credentials and without tracing: {@code GET /healthz} (liveness: the process
 * serves), {@code GET /readyz} (200 only when every required check is up, 503 otherwise; the body names each check)
 * and {@code GET /metrics} (Prometheus text format).
 */
final class ProbeRoutes {
  /** The Prometheus text exposition format the registry writes. */
  static final String PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private ProbeRoutes() {}

  /** @param cluster cluster mode: this instance's membership (member, generation, partition owners) */
  static void mountHealth(Router router, Supplier<String> eventsStatus, Readiness readiness,
      Optional<Supplier<Map<String, Object>>> cluster) {
    router.get("/healthz").handler(ctx -> {
      JsonObject health = new JsonObject().put("status", "ok").put("events", eventsStatus.get());
      cluster.ifPresent(status -> health.put("cluster", new JsonObject(status.get())));
      Responses.json(ctx, health);
    });
    router.get("/readyz").handler(ctx -> readyz(ctx, readiness));
  }

  static void mountMetrics(Router router, Supplier<String> scrape) {
    // Rendering walks every meter: small, but not event-loop work to do while requests wait.
    router.get("/metrics").handler(ctx -> ctx.vertx().<String>executeBlocking(scrape::get, false)
        .onSuccess(text -> ctx.response().putHeader("content-type", PROMETHEUS_CONTENT_TYPE).end(text))
        .onFailure(ctx::fail));
  }

  private static void readyz(RoutingContext ctx, Readiness readiness) {
    Readiness.Report report = readiness.report();
    JsonObject checks = new JsonObject();
    report.checks().forEach((name, check) -> {
      JsonObject json = new JsonObject().put("status", check.status()).put("required", check.required());
      if (check.detail() != null) {
        json.put("detail", check.detail());
      }
      checks.put(name, json);
    });
    ctx.response()
        .setStatusCode(report.ready() ? 200 : 503)
        .putHeader("content-type", "application/json")
        .end(new JsonObject().put("status", report.ready() ? "ready" : "not ready").put("checks", checks).encode());
  }
}
