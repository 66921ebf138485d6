package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.auth.AccessControl;
import dev.lancecommit.coordinator.auth.Permission;
import dev.lancecommit.coordinator.auth.Principal;
import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.namespace.Identifiers;
import dev.lancecommit.coordinator.namespace.TableEntry;
import dev.lancecommit.coordinator.publication.TableEventIntents;
import dev.lancecommit.events.TableEvent;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.List;

/**
 * DeregisterTable (data kept), DropTable (data deleted) and RenameTable (same location and uuid). All need admin on
 * the table; rename also needs write on the namespace it moves into.
 */
final class TableLifecycleRoutes {
  private final Catalog catalog;
  private final Blocking blocking;
  private final AccessControl access;
  private final TableEventNotifier events;

  TableLifecycleRoutes(Catalog catalog, Blocking blocking, AccessControl access, TableEventNotifier events) {
    this.catalog = catalog;
    this.blocking = blocking;
    this.access = access;
    this.events = events;
  }

  void mount(Router router) {
    router.post("/v1/table/:id/deregister").handler(this::deregister);
    router.post("/v1/table/:id/drop").handler(this::drop);
    router.post("/v1/table/:id/rename").handler(this::rename);
  }

  private void deregister(RoutingContext ctx) {
    JsonBody body = JsonBody.parseOrEmpty(ctx.body().buffer());
    List<String> id = RequestIds.tableId(ctx, body.stringList("id"));
    Principal caller = Authentication.principal(ctx);
    access.require(caller, Permission.ADMIN, id);
    blocking.run(() -> {
      TableEventIntents.Intent intent = events.announce(TableEvent.Type.DEREGISTERED, id, null, caller);
      return new Changed(TableEventNotifier.made(intent, () -> catalog.deregisterTable(id)), intent);
    }).onSuccess(changed -> events.deregistered(changed.entry(), caller, changed.intent()))
        .onSuccess(changed -> Responses.json(ctx, removed(changed.entry())))
        .onFailure(ctx::fail);
  }

  /** The spec sends no body for DropTable; an empty body or one that repeats the id is accepted. */
  private void drop(RoutingContext ctx) {
    JsonBody body = JsonBody.parseOrEmpty(ctx.body().buffer());
    List<String> id = RequestIds.tableId(ctx, body.stringList("id"));
    Principal caller = Authentication.principal(ctx);
    access.require(caller, Permission.ADMIN, id);
    blocking.run(() -> {
      TableEventIntents.Intent intent = events.announce(TableEvent.Type.DROPPED, id, null, caller);
      return new Changed(TableEventNotifier.made(intent, () -> catalog.dropTable(id)), intent);
    }).onSuccess(changed -> events.dropped(changed.entry(), caller, changed.intent()))
        .onSuccess(changed -> Responses.json(ctx, removed(changed.entry())))
        .onFailure(ctx::fail);
  }

  private void rename(RoutingContext ctx) {
    JsonBody body = JsonBody.parse(ctx.body().buffer());
    List<String> id = RequestIds.tableId(ctx, body.stringList("id"));
    String newName = body.string("new_table_name")
        .orElseThrow(() -> ApiException.invalidInput("Field 'new_table_name' is required"));
    // Lance's Rust REST client sends [] when the caller names no new namespace, so [] means "stay", like absent.
    List<String> targetNamespace = body.stringList("new_namespace_id").filter(ns -> !ns.isEmpty())
        .orElse(TableRoutes.namespaceOf(id));
    List<String> newId = new ArrayList<>(targetNamespace);
    newId.add(newName);
    Identifiers.validate(newId);
    Principal caller = Authentication.principal(ctx);
    access.require(caller, Permission.ADMIN, id);
    access.require(caller, Permission.WRITE, targetNamespace);
    blocking.run(() -> {
      TableEventIntents.Intent intent = events.announce(TableEvent.Type.RENAMED, List.copyOf(newId), id, caller);
      return new Changed(TableEventNotifier.made(intent, () -> catalog.renameTable(id, List.copyOf(newId))), intent);
    }).onSuccess(changed -> events.renamed(id, changed.entry(), caller, changed.intent()))
        .onSuccess(entry -> Responses.json(ctx, new JsonObject()))
        .onFailure(ctx::fail);
  }

  private static JsonObject removed(TableEntry entry) {
    return new JsonObject()
        .put("id", new JsonArray(List.copyOf(entry.id())))
        .put("location", entry.location())
        .put("properties", Responses.stringMap(entry.properties()));
  }
}
