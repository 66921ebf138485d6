package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.auth.AccessControl;
import dev.lancecommit.coordinator.auth.Permission;
import dev.lancecommit.coordinator.auth.Principal;
import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.namespace.TableNotFoundException;
import dev.lancecommit.coordinator.refs.BranchContents;
import dev.lancecommit.coordinator.refs.Branches;
import dev.lancecommit.coordinator.table.TableRef;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The branch operations of the spec, over {@link Branches} (Lance's {@code _refs/branches/} files and
 * {@code tree/{branch}/} datasets):
 * <ul>
 *   <li>ListTableBranches {@code POST branches/list} ({@code page_token}, {@code limit} in the query):
 *       {@code {"branches": {name: {"parentBranch"?, "parentVersion", "createAt", "manifestSize", "metadata"}},
 *       "page_token"?}}, by name.
 *   <li>CreateTableBranch {@code POST branches/create {"name", "from_branch"?, "from_version"?}}: the branch's first
 *       version is a Clone committed through the branch's lane; answers {@code {"transaction_id"}} (the Clone's uuid).
 *       409/23 when it exists, 404/22 for an unknown {@code from_branch}, 404/11 for a version the source lacks.
 *   <li>DeleteTableBranch {@code POST branches/delete {"name"}}: 404/22 when unknown; 400/13 when branches were made
 *       from it or tags name it (the spec lists no 409 for this operation).
 * </ul>
 * Listing needs read, the others commit.
 */
final class BranchRoutes {
  private final Catalog catalog;
  private final Optional<Branches> branches;
  private final Blocking blocking;
  private final AccessControl access;

  BranchRoutes(Catalog catalog, Optional<Branches> branches, Blocking blocking, AccessControl access) {
    this.catalog = catalog;
    this.branches = branches;
    this.blocking = blocking;
    this.access = access;
  }

  void mount(Router router) {
    router.post("/v1/table/:id/branches/list").handler(this::list);
    router.post("/v1/table/:id/branches/create").handler(this::create);
    router.post("/v1/table/:id/branches/delete").handler(this::delete);
  }

  private void list(RoutingContext ctx) {
    Branches service = branches.orElseThrow(() -> ApiException.unsupportedOperation("ListTableBranches"));
    JsonBody body = JsonBody.parseOrEmpty(ctx.body().buffer());
    List<String> id = RequestIds.tableId(ctx, body.stringList("id"));
    int limit = Paging.limit(ctx);
    Optional<String> after = Paging.cursor(ctx, Paging.Kind.BRANCH_NAME);
    access.require(Authentication.principal(ctx), Permission.READ, id);
    blocking.run(() -> service.list(table(id)))
        .onSuccess(all -> Responses.json(ctx,
            Paging.namePage(all, after, limit, Paging.Kind.BRANCH_NAME, "branches", BranchRoutes::contents)))
        .onFailure(ctx::fail);
  }

  private void create(RoutingContext ctx) {
    Branches service = branches.orElseThrow(() -> ApiException.unsupportedOperation("CreateTableBranch"));
    JsonBody body = JsonBody.parse(ctx.body().buffer());
    List<String> id = RequestIds.tableId(ctx, body.stringList("id"));
    String name = body.string("name").orElseThrow(() -> ApiException.invalidInput("Field 'name' is required"));
    Optional<String> from = body.string("from_branch");
    OptionalLong fromVersion = body.nonNegativeLong("from_version");
    Principal caller = Authentication.principal(ctx);
    access.require(caller, Permission.COMMIT, id);
    blocking.run(() -> service.create(table(id), name, from.orElse(null), fromVersion, caller.name()))
        .compose(pending -> Future.<Branches.Created>fromCompletionStage(pending, ctx.vertx().getOrCreateContext()))
        .onSuccess(created -> Responses.json(ctx, new JsonObject().put("transaction_id", created.transactionUuid())))
        .onFailure(ctx::fail);
  }

  private void delete(RoutingContext ctx) {
    Branches service = branches.orElseThrow(() -> ApiException.unsupportedOperation("DeleteTableBranch"));
    JsonBody body = JsonBody.parse(ctx.body().buffer());
    List<String> id = RequestIds.tableId(ctx, body.stringList("id"));
    String name = body.string("name").orElseThrow(() -> ApiException.invalidInput("Field 'name' is required"));
    access.require(Authentication.principal(ctx), Permission.COMMIT, id);
    blocking.run(() -> {
      service.delete(table(id), name);
      return null;
    }).onSuccess(done -> Responses.json(ctx, new JsonObject())).onFailure(ctx::fail);
  }

  private TableRef table(List<String> id) {
    return catalog.loadTable(id).orElseThrow(() -> new TableNotFoundException(id)).toRef();
  }

  /** The spec's BranchContents: camelCase, as in Lance's file; parentBranch left out for main. */
  static JsonObject contents(BranchContents branch) {
    JsonObject json = new JsonObject();
    branch.parentBranch().ifPresent(parent -> json.put("parentBranch", parent));
    return json.put("parentVersion", branch.parentVersion())
        .put("createAt", branch.createAt())
        .put("manifestSize", branch.manifestSize())
        .put("metadata", Responses.stringMap(branch.metadata()));
  }
}
