package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.auth.AccessControl;
import dev.lancecommit.coordinator.auth.Permission;
import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.namespace.TableNotFoundException;
import dev.lancecommit.coordinator.refs.Branches;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.coordinator.table.TableStatistics;
import dev.lancecommit.coordinator.table.TableVersions;
import dev.lancecommit.format.ManifestFile;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * GetTableStats ({@code POST /v1/table/{id}/stats}, body {@code {"branch"?}}): {@link TableStatistics} of the latest
 * version of the table or branch, from its manifest alone (no data file is read). Needs read. A table declared but
 * without any version answers zeros (an empty table) rather than an error: the spec lists no version-not-found code
 * for this operation.
 */
final class TableStatsRoute {
  private static final String OPERATION = "GetTableStats";

  private final Catalog catalog;
  private final Optional<Function<String, StorageLocation>> stores;
  private final Optional<Branches> branches;
  private final Blocking blocking;
  private final AccessControl access;

  TableStatsRoute(Catalog catalog, Optional<Function<String, StorageLocation>> stores, Optional<Branches> branches,
      Blocking blocking, AccessControl access) {
    this.catalog = catalog;
    this.stores = stores;
    this.branches = branches;
    this.blocking = blocking;
    this.access = access;
  }

  void mount(Router router) {
    router.post("/v1/table/:id/stats").handler(this::stats);
  }

  private void stats(RoutingContext ctx) {
    Function<String, StorageLocation> storage = stores.orElseThrow(() -> ApiException.unsupportedOperation(OPERATION));
    JsonBody body = JsonBody.parseOrEmpty(ctx.body().buffer());
    List<String> id = RequestIds.tableId(ctx, body.stringList("id"));
    String branch = BranchParam.of(ctx, body);
    access.require(Authentication.principal(ctx), Permission.READ, id);
    blocking.run(() -> {
      TableRef table = catalog.loadTable(id).orElseThrow(() -> new TableNotFoundException(id)).toRef()
          .onBranch(branch);
      branches.ifPresent(b -> b.require(table));
      TableOperations ops = TableOperations.of(storage.apply(table.branchRoot()));
      TableVersions versions = ops.versions();
      if (versions.isEmpty()) {
        return TableStatistics.empty();
      }
      long latest = versions.latest().getAsLong();
      ManifestFile manifest = ops.readManifest(latest, versions.scheme().orElseThrow()).orElseThrow(() ->
          new dev.lancecommit.coordinator.storage.StoreException("Version " + latest + " vanished while reading it"));
      return TableStatistics.of(manifest.tableState(), path -> ops.location().store()
          .head(ops.location().key("data/" + path)).map(info -> info.size()).orElse(0L));
    }).onSuccess(stats -> Responses.json(ctx, json(stats))).onFailure(ctx::fail);
  }

  static JsonObject json(TableStatistics stats) {
    TableStatistics.Lengths lengths = stats.lengths();
    return new JsonObject()
        .put("total_bytes", stats.totalBytes())
        .put("num_rows", stats.numRows())
        .put("num_indices", stats.numIndices())
        .put("fragment_stats", new JsonObject()
            .put("num_fragments", stats.numFragments())
            .put("num_small_fragments", stats.numSmallFragments())
            .put("lengths", new JsonObject()
                .put("min", lengths.min())
                .put("max", lengths.max())
                .put("mean", lengths.mean())
                .put("p25", lengths.p25())
                .put("p50", lengths.p50())
                .put("p75", lengths.p75())
                .put("p99", lengths.p99())));
  }
}
