package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.namespace.CreateMode;
import dev.lancecommit.coordinator.namespace.NamespaceEntry;
import dev.lancecommit.coordinator.namespace.NamespaceNotFoundException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Map;

/** CreateNamespace, DescribeNamespace and NamespaceExists. */
final class NamespaceRoutes {
  private final Catalog catalog;
  private final Blocking blocking;

  NamespaceRoutes(Catalog catalog, Blocking blocking) {
    this.catalog = catalog;
    this.blocking = blocking;
  }

  void mount(Router router) {
    router.post("/v1/namespace/:id/create").handler(this::create);
    router.post("/v1/namespace/:id/describe").handler(this::describe);
    router.post("/v1/namespace/:id/exists").handler(this::exists);
  }

  private void create(RoutingContext ctx) {
    JsonBody body = JsonBody.parseOrEmpty(ctx.body().buffer());
    List<String> id = RequestIds.resolve(ctx, body.stringList("id"));
    CreateMode mode = CreateMode.parse(body.string("mode").orElse(null));
    Map<String, String> properties = body.stringMap("properties");
    blocking.run(() -> catalog.createNamespace(id, mode, properties))
        .onSuccess(entry -> Responses.json(ctx, new JsonObject().put("properties", properties(entry))))
        .onFailure(ctx::fail);
  }

  private void describe(RoutingContext ctx) {
    JsonBody body = JsonBody.parseOrEmpty(ctx.body().buffer());
    List<String> id = RequestIds.resolve(ctx, body.stringList("id"));
    blocking.run(() -> catalog.loadNamespace(id).orElseThrow(() -> new NamespaceNotFoundException(id)))
        .onSuccess(entry -> Responses.json(ctx, new JsonObject().put("properties", properties(entry))))
        .onFailure(ctx::fail);
  }

  private void exists(RoutingContext ctx) {
    JsonBody body = JsonBody.parseOrEmpty(ctx.body().buffer());
    List<String> id = RequestIds.resolve(ctx, body.stringList("id"));
    blocking.run(() -> catalog.loadNamespace(id).orElseThrow(() -> new NamespaceNotFoundException(id)))
        .onSuccess(entry -> Responses.empty(ctx))
        .onFailure(ctx::fail);
  }

  private static JsonObject properties(NamespaceEntry entry) {
    return Responses.stringMap(entry.properties());
  }
}
