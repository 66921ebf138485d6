package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.auth.AccessControl;
import dev.lancecommit.coordinator.auth.Permission;
import dev.lancecommit.coordinator.auth.Principal;
import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.namespace.CreateMode;
import dev.lancecommit.coordinator.namespace.DropBehavior;
import dev.lancecommit.coordinator.namespace.DropMode;
import dev.lancecommit.coordinator.namespace.NamespaceEntry;
import dev.lancecommit.coordinator.namespace.NamespaceNotFoundException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * CreateNamespace, DescribeNamespace, NamespaceExists, ListNamespaces and DropNamespace.
 *
 * <p>Grants: creating needs write on the parent (admin on the namespace itself for mode Overwrite); describing
 * needs read; exists and list need the namespace to be visible (a grant on it, above it or below it) and a listing
 * shows only visible children; dropping needs admin.
 */
final class NamespaceRoutes {
  private final Catalog catalog;
  private final Blocking blocking;
  private final AccessControl access;

  NamespaceRoutes(Catalog catalog, Blocking blocking, AccessControl access) {
    this.catalog = catalog;
    this.blocking = blocking;
    this.access = access;
  }

  void mount(Router router) {
    router.post("/v1/namespace/:id/create").handler(this::create);
    router.post("/v1/namespace/:id/describe").handler(this::describe);
    router.post("/v1/namespace/:id/exists").handler(this::exists);
    router.get("/v1/namespace/:id/list").handler(this::list);
    router.post("/v1/namespace/:id/drop").handler(this::drop);
  }

  private void create(RoutingContext ctx) {
    JsonBody body = JsonBody.parseOrEmpty(ctx.body().buffer());
    List<String> id = RequestIds.resolve(ctx, body.stringList("id"));
    CreateMode mode = CreateMode.parse(body.string("mode").orElse(null));
    Map<String, String> properties = body.stringMap("properties");
    Principal caller = Authentication.principal(ctx);
    access.require(caller, Permission.WRITE, id.isEmpty() ? id : id.subList(0, id.size() - 1));
    if (mode == CreateMode.OVERWRITE) {
      access.require(caller, Permission.ADMIN, id);
    }
    blocking.run(() -> catalog.createNamespace(id, mode, properties))
        .onSuccess(entry -> Responses.json(ctx, new JsonObject().put("properties", properties(entry))))
        .onFailure(ctx::fail);
  }

  private void describe(RoutingContext ctx) {
    JsonBody body = JsonBody.parseOrEmpty(ctx.body().buffer());
    List<String> id = RequestIds.resolve(ctx, body.stringList("id"));
    access.require(Authentication.principal(ctx), Permission.READ, id);
    blocking.run(() -> catalog.loadNamespace(id).orElseThrow(() -> new NamespaceNotFoundException(id)))
        .onSuccess(entry -> Responses.json(ctx, new JsonObject().put("properties", properties(entry))))
        .onFailure(ctx::fail);
  }

  private void exists(RoutingContext ctx) {
    JsonBody body = JsonBody.parseOrEmpty(ctx.body().buffer());
    List<String> id = RequestIds.resolve(ctx, body.stringList("id"));
    access.requireVisible(Authentication.principal(ctx), id);
    blocking.run(() -> catalog.loadNamespace(id).orElseThrow(() -> new NamespaceNotFoundException(id)))
        .onSuccess(entry -> Responses.empty(ctx))
        .onFailure(ctx::fail);
  }

  private void list(RoutingContext ctx) {
    List<String> parent = RequestIds.fromPath(ctx);
    int limit = Paging.limit(ctx);
    Optional<String> after = Paging.cursor(ctx, Paging.Kind.NAMESPACE_NAME);
    Principal caller = Authentication.principal(ctx);
    access.requireVisible(caller, parent);
    blocking.run(() -> catalog.listNamespaces(parent, after, limit, child -> access.canSee(caller, child)))
        .onSuccess(page -> {
          JsonObject out = new JsonObject().put("namespaces", new JsonArray(new ArrayList<>(page.items())));
          page.resumeAfter().ifPresent(last ->
              out.put("page_token", Paging.token(Paging.Kind.NAMESPACE_NAME, last)));
          Responses.json(ctx, out);
        })
        .onFailure(ctx::fail);
  }

  private void drop(RoutingContext ctx) {
    JsonBody body = JsonBody.parseOrEmpty(ctx.body().buffer());
    List<String> id = RequestIds.resolve(ctx, body.stringList("id"));
    DropMode mode = DropMode.parse(body.string("mode").orElse(null));
    DropBehavior behavior = DropBehavior.parse(body.string("behavior").orElse(null));
    if (id.isEmpty()) {
      throw ApiException.invalidInput("The root namespace cannot be dropped");
    }
    access.require(Authentication.principal(ctx), Permission.ADMIN, id);
    blocking.run(() -> catalog.dropNamespace(id, mode, behavior))
        .onSuccess(dropped -> {
          if (dropped.isEmpty()) {
            Responses.noContent(ctx); // mode Skip on a namespace that does not exist: the spec's 204
          } else {
            Responses.json(ctx, new JsonObject().put("properties", properties(dropped.get())));
          }
        })
        .onFailure(ctx::fail);
  }

  private static JsonObject properties(NamespaceEntry entry) {
    return Responses.stringMap(entry.properties());
  }
}
