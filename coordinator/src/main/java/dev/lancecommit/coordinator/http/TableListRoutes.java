package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.auth.AccessControl;
import dev.lancecommit.coordinator.auth.Permission;
import dev.lancecommit.coordinator.auth.Principal;
import dev.lancecommit.coordinator.namespace.Catalog;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * ListTables ({@code GET /v1/namespace/{id}/table/list}: names of the tables directly in a namespace) and
 * ListAllTables ({@code GET /v1/table}: full identifiers joined with the request's delimiter). Both show only
 * tables the caller may read, page in a fixed order and honour {@code include_declared} (default true).
 */
final class TableListRoutes {
  private final Catalog catalog;
  private final Blocking blocking;
  private final AccessControl access;

  TableListRoutes(Catalog catalog, Blocking blocking, AccessControl access) {
    this.catalog = catalog;
    this.blocking = blocking;
    this.access = access;
  }

  void mount(Router router) {
    router.get("/v1/namespace/:id/table/list").handler(this::listTables);
    router.get("/v1/table").handler(this::listAllTables);
  }

  private void listTables(RoutingContext ctx) {
    List<String> namespace = RequestIds.fromPath(ctx);
    int limit = Paging.limit(ctx);
    Optional<String> after = Paging.cursor(ctx, Paging.Kind.TABLE_NAME);
    boolean includeDeclared = QueryParams.bool(ctx, "include_declared").orElse(true);
    Principal caller = Authentication.principal(ctx);
    access.requireVisible(caller, namespace);
    blocking.run(() -> catalog.listTables(namespace, after, limit, includeDeclared,
            table -> access.allows(caller, Permission.READ, table)))
        .onSuccess(page -> {
          JsonObject out = new JsonObject().put("tables", new JsonArray(new ArrayList<>(page.items())));
          page.resumeAfter().ifPresent(last -> out.put("page_token", Paging.token(Paging.Kind.TABLE_NAME, last)));
          Responses.json(ctx, out);
        })
        .onFailure(ctx::fail);
  }

  private void listAllTables(RoutingContext ctx) {
    String delimiter = RequestIds.delimiter(ctx);
    int limit = Paging.limit(ctx);
    Optional<List<String>> after = Paging.idCursor(ctx);
    boolean includeDeclared = QueryParams.bool(ctx, "include_declared").orElse(true);
    Principal caller = Authentication.principal(ctx);
    blocking.run(() -> catalog.listAllTables(after, limit, includeDeclared,
            table -> access.allows(caller, Permission.READ, table)))
        .onSuccess(page -> {
          JsonArray tables = new JsonArray();
          page.items().forEach(id -> tables.add(String.join(delimiter, id)));
          JsonObject out = new JsonObject().put("tables", tables);
          page.resumeAfter().ifPresent(last -> out.put("page_token", Paging.token(last)));
          Responses.json(ctx, out);
        })
        .onFailure(ctx::fail);
  }
}
