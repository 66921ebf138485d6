package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.auth.AccessControl;
import dev.lancecommit.coordinator.auth.Permission;
import dev.lancecommit.coordinator.auth.Principal;
import dev.lancecommit.coordinator.commit.CommitRequest;
import dev.lancecommit.coordinator.commit.CommitResult;
import dev.lancecommit.coordinator.commit.CommitService;
import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.namespace.TableEntry;
import dev.lancecommit.coordinator.namespace.TableNotFoundException;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.table.TableStorage;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.SemanticTypes;
import io.vertx.core.Future;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;

/**
 * {@code POST /v1/table/{id}/semantic-types/upgrade}: the upgrade commit of the semantic-type contract, built by the
 * coordinator. It reads the latest version's schema, writes every legacy alias as its canonical type with the output
 * encoding that keeps its read type ({@link SemanticTypes#upgradeTransaction}) and commits that Project through the
 * commit service like any CommitTable call, with {@code rebase=false}: a commit that lands in between makes it a
 * 409/14 to retry. The answer is CommitTable's. Needs the admin grant, because from this version on clients that do
 * not know the flag are locked out of the table.
 */
final class SemanticTypesUpgradeRoute {
  private final Catalog catalog;
  private final CommitService commitService;
  private final Optional<Function<String, StorageLocation>> tableStorage;
  private final Blocking blocking;
  private final AccessControl access;

  SemanticTypesUpgradeRoute(Catalog catalog, CommitService commitService,
      Optional<Function<String, StorageLocation>> tableStorage, Blocking blocking, AccessControl access) {
    this.catalog = catalog;
    this.commitService = commitService;
    this.tableStorage = tableStorage;
    this.blocking = blocking;
    this.access = access;
  }

  void mount(Router router) {
    router.post("/v1/table/:id/semantic-types/upgrade").handler(this::upgrade);
  }

  private void upgrade(RoutingContext ctx) {
    if (tableStorage.isEmpty()) {
      throw ApiException.unsupportedOperation("UpgradeSemanticTypes");
    }
    List<String> id = RequestIds.tableId(ctx, Optional.empty());
    Principal caller = Authentication.principal(ctx);
    access.require(caller, Permission.ADMIN, id);
    blocking.run(() -> {
      TableEntry entry = catalog.loadTable(id).orElseThrow(() -> new TableNotFoundException(id));
      TableStorage table = new TableStorage(tableStorage.orElseThrow().apply(entry.location()));
      TableStorage.VersionListing listing = table.listVersions();
      long latest = listing.latest().orElseThrow(() -> ApiException.invalidInput(
          "Table " + String.join(".", id) + " has no version yet",
          "Create the table first; a new table can follow the contract from birth with an Overwrite carrying "
              + SemanticTypes.ENABLE_PROPERTY + "=" + SemanticTypes.ENABLE_VALUE));
      ManifestFile manifest = table.readManifest(latest, listing.scheme().orElseThrow()).orElseThrow(() ->
          new ApiException(409, ErrorCode.CONCURRENT_MODIFICATION, "Version " + latest + " disappeared",
              "The table changed while the upgrade was prepared; retry"));
      Transaction upgrade = SemanticTypes.upgradeTransaction(manifest.manifest(), UUID.randomUUID().toString());
      return commitService.commit(entry.toRef(),
          new CommitRequest(upgrade.toByteArray(), Optional.empty(), false, caller.name()));
    }).compose(pending -> Future.<CommitResult>fromCompletionStage(pending, ctx.vertx().getOrCreateContext()))
        .onSuccess(result -> Responses.json(ctx, CommitRoute.toJson(result)))
        .onFailure(ctx::fail);
  }
}
