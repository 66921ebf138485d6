package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.auth.AccessControl;
import dev.lancecommit.coordinator.auth.Permission;
import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.namespace.TableNotFoundException;
import dev.lancecommit.coordinator.retention.VersionRange;
import dev.lancecommit.coordinator.retention.VersionRecords;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * BatchDeleteTableVersions ({@code POST /v1/table/{id}/version/delete}, body {@code {"ranges": [{"start_version",
 * "end_version"}], "branch"?}}): deletes version records ({@link VersionRecords}) and answers
 * {@code {"deleted_count"}}. Ranges are start-inclusive, end-exclusive, {@code end_version: -1} through the latest.
 * Refused whole, 400/13 naming why (the spec lists no 409 for this operation): a range covering the latest version or a
 * tagged one, an empty or inverted range, no ranges. Needs the admin grant: it deletes history.
 */
final class VersionDeleteRoute {
  private static final String OPERATION = "BatchDeleteTableVersions";

  private final Catalog catalog;
  private final Optional<VersionRecords> records;
  private final Blocking blocking;
  private final AccessControl access;

  VersionDeleteRoute(Catalog catalog, Optional<VersionRecords> records, Blocking blocking, AccessControl access) {
    this.catalog = catalog;
    this.records = records;
    this.blocking = blocking;
    this.access = access;
  }

  void mount(Router router) {
    router.post("/v1/table/:id/version/delete").handler(this::delete);
  }

  private void delete(RoutingContext ctx) {
    VersionRecords service = records.orElseThrow(() -> ApiException.unsupportedOperation(OPERATION));
    JsonBody body = JsonBody.parse(ctx.body().buffer());
    List<String> id = RequestIds.tableId(ctx, body.stringList("id"));
    String branch = BranchParam.of(ctx, body);
    List<JsonBody> given = body.objectList("ranges")
        .orElseThrow(() -> ApiException.invalidInput("Field 'ranges' is required"));
    if (given.isEmpty()) {
      throw ApiException.invalidInput("Field 'ranges' names no range");
    }
    List<VersionRange> ranges = new ArrayList<>();
    for (JsonBody range : given) {
      OptionalLong start = range.longValue("start_version");
      OptionalLong end = range.longValue("end_version");
      if (start.isEmpty() || end.isEmpty()) {
        throw ApiException.invalidInput("Every range needs 'start_version' and 'end_version'");
      }
      try {
        ranges.add(new VersionRange(start.getAsLong(), end.getAsLong()));
      } catch (IllegalArgumentException e) {
        throw ApiException.invalidInput("Invalid version range", e.getMessage());
      }
    }
    access.require(Authentication.principal(ctx), Permission.ADMIN, id);
    blocking.run(() -> service.delete(
            catalog.loadTable(id).orElseThrow(() -> new TableNotFoundException(id)).toRef().onBranch(branch), ranges))
        .onSuccess(count -> Responses.json(ctx, new JsonObject().put("deleted_count", count)))
        .onFailure(ctx::fail);
  }
}
