package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.auth.AccessControl;
import dev.lancecommit.coordinator.auth.Permission;
import dev.lancecommit.coordinator.auth.Principal;
import dev.lancecommit.coordinator.commit.CommitResult;
import dev.lancecommit.coordinator.commit.SemanticTypesUpgrade;
import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.namespace.TableEntry;
import dev.lancecommit.coordinator.namespace.TableNotFoundException;
import io.vertx.core.Future;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Optional;

/**
 * {@code POST /v1/table/{id}/semantic-types/upgrade}: the upgrade commit of the semantic-type contract
 * ({@link SemanticTypesUpgrade}). The answer is CommitTable's. Needs the admin grant, because from this version on
 * clients that do not know the flag are locked out of the table.
 */
final class SemanticTypesUpgradeRoute {
  private final Catalog catalog;
  private final Optional<SemanticTypesUpgrade> upgrades;
  private final Blocking blocking;
  private final AccessControl access;

  /** @param upgrades empty when the server has no table storage (the operation is then unsupported) */
  SemanticTypesUpgradeRoute(Catalog catalog, Optional<SemanticTypesUpgrade> upgrades, Blocking blocking,
      AccessControl access) {
    this.catalog = catalog;
    this.upgrades = upgrades;
    this.blocking = blocking;
    this.access = access;
  }

  void mount(Router router) {
    router.post("/v1/table/:id/semantic-types/upgrade").handler(this::upgrade);
  }

  private void upgrade(RoutingContext ctx) {
    SemanticTypesUpgrade service = upgrades.orElseThrow(() -> ApiException.unsupportedOperation(
        "UpgradeSemanticTypes"));
    List<String> id = RequestIds.tableId(ctx, Optional.empty());
    Principal caller = Authentication.principal(ctx);
    access.require(caller, Permission.ADMIN, id);
    blocking.run(() -> {
      TableEntry entry = catalog.loadTable(id).orElseThrow(() -> new TableNotFoundException(id));
      return service.upgrade(entry.toRef(), caller.name());
    }).compose(pending -> Future.<CommitResult>fromCompletionStage(pending, ctx.vertx().getOrCreateContext()))
        .onSuccess(result -> Responses.json(ctx, CommitRoute.toJson(result)))
        .onFailure(ctx::fail);
  }
}
