package dev.lancecommit.coordinator.http;

import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.Map;
import java.util.TreeMap;

final class Responses {
  private Responses() {}

  static JsonObject stringMap(Map<String, String> map) {
    JsonObject out = new JsonObject();
    new TreeMap<>(map).forEach(out::put);
    return out;
  }

  static void json(RoutingContext ctx, JsonObject body) {
    if (ctx.response().ended()) {
      return;
    }
    ctx.response().setStatusCode(200).putHeader("content-type", "application/json").end(body.encode());
  }

  /** The REST spec's Exists operations answer 200 with no body. */
  static void empty(RoutingContext ctx) {
    if (ctx.response().ended()) {
      return;
    }
    ctx.response().setStatusCode(200).end();
  }

  /** 204 with no body (DropNamespace with mode Skip on a namespace that does not exist). */
  static void noContent(RoutingContext ctx) {
    if (ctx.response().ended()) {
      return;
    }
    ctx.response().setStatusCode(204).end();
  }

  /** The {@code Retry-After} (delta-seconds) of a 429 answer. */
  static final String RETRY_AFTER_SECONDS = "1";

  static void error(RoutingContext ctx, ApiException e) {
    if (ctx.response().ended()) {
      return;
    }
    if (e.code() == ErrorCode.UNAUTHENTICATED.code()) {
      ctx.response().putHeader("WWW-Authenticate", "Bearer realm=\"lance-commit-coordinator\"");
    }
    if (e.httpStatus() == 429) {
      // Throttled (the table's queue is full): a floor for the client's backoff (both clients honour it), so a full
      // queue is not hammered by immediate retries. A 503 carries none: resubmitting an unknown outcome soon is
      // what settles it.
      ctx.response().putHeader("Retry-After", RETRY_AFTER_SECONDS);
    }
    ctx.response()
        .setStatusCode(e.httpStatus())
        .putHeader("content-type", "application/json")
        .end(ErrorMapper.body(e, ctx.request().path()).encode());
  }
}
