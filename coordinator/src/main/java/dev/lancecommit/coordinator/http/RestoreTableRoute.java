package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.auth.AccessControl;
import dev.lancecommit.coordinator.auth.Permission;
import dev.lancecommit.coordinator.auth.Principal;
import dev.lancecommit.coordinator.commit.CommitResult;
import dev.lancecommit.coordinator.commit.RestoreTable;
import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.namespace.TableNotFoundException;
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
 * RestoreTable ({@code POST /v1/table/{id}/restore}, body {@code {"version", "branch"?}}): a Restore committed through
 * the lane ({@link RestoreTable}). Needs the commit grant. Answers the spec's {@code {"transaction_id"}}, the uuid of
 * the Restore transaction (the version it made is in its commit event and the table's latest). A version the table
 * (branch) lacks is 404/11. The spec's 409/14 comes only from the lane's usual contention answer: Lance's rules let
 * a Restore land over concurrent commits.
 */
final class RestoreTableRoute {
  private static final String OPERATION = "RestoreTable";

  private final Catalog catalog;
  private final Optional<RestoreTable> restores;
  private final Optional<Branches> branches;
  private final Blocking blocking;
  private final AccessControl access;

  RestoreTableRoute(Catalog catalog, Optional<RestoreTable> restores, Optional<Branches> branches, Blocking blocking,
      AccessControl access) {
    this.catalog = catalog;
    this.restores = restores;
    this.branches = branches;
    this.blocking = blocking;
    this.access = access;
  }

  void mount(Router router) {
    router.post("/v1/table/:id/restore").handler(this::restore);
  }

  private void restore(RoutingContext ctx) {
    RestoreTable service = restores.orElseThrow(() -> ApiException.unsupportedOperation(OPERATION));
    JsonBody body = JsonBody.parse(ctx.body().buffer());
    List<String> id = RequestIds.tableId(ctx, body.stringList("id"));
    OptionalLong version = body.nonNegativeLong("version");
    if (version.isEmpty()) {
      throw ApiException.invalidInput("Field 'version' is required");
    }
    String branch = BranchParam.of(ctx, body);
    Principal caller = Authentication.principal(ctx);
    access.require(caller, Permission.COMMIT, id);
    blocking.run(() -> {
      TableRef table = catalog.loadTable(id).orElseThrow(() -> new TableNotFoundException(id)).toRef()
          .onBranch(branch);
      branches.ifPresent(b -> b.require(table));
      return service.restore(table, version.getAsLong(), caller.name());
    }).compose(pending -> Future.<CommitResult>fromCompletionStage(pending, ctx.vertx().getOrCreateContext()))
        .onSuccess(result -> Responses.json(ctx, new JsonObject().put("transaction_id", result.transactionUuid())))
        .onFailure(ctx::fail);
  }
}
