package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.auth.AccessControl;
import dev.lancecommit.coordinator.auth.Permission;
import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.namespace.TableNotFoundException;
import dev.lancecommit.coordinator.namespace.TableVersionNotFoundException;
import dev.lancecommit.coordinator.refs.Branches;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.coordinator.verify.FileProblem;
import dev.lancecommit.coordinator.verify.TableVerification;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * {@code POST /v1/table/{id}/verify} (admin grant): finds damage that is already there. Checks that every file a
 * version names (the latest by default, {@code "version": N} in the body for another; {@code "branch"} for a branch's
 * versions, as the spec's other version operations take it) is in the store with the size
 * the manifest states, and with {@code "content": true} also what each new data, deletion and sequence file says
 * about itself (row counts, columns; one read per file). Answers
 * {@code {"id", "version", "location", "files_checked", "ok", "problems": [{"file", "what", "problem"}]}}; a damaged
 * version is a 200 with problems, not an error. README says how to go back to the last good version.
 */
final class VerifyTableRoute {
  private final Catalog catalog;
  private final Optional<TableVerification> verification;
  private final Optional<Branches> branches;
  private final Blocking blocking;
  private final AccessControl access;

  VerifyTableRoute(Catalog catalog, Optional<Function<String, StorageLocation>> tableStorage,
      Optional<Branches> branches, Blocking blocking, AccessControl access, Executor helpers, int parallelism) {
    this.catalog = catalog;
    this.branches = branches;
    this.verification = tableStorage.map(stores -> new TableVerification(stores, helpers, parallelism));
    this.blocking = blocking;
    this.access = access;
  }

  void mount(Router router) {
    router.post("/v1/table/:id/verify").handler(this::verify);
  }

  private void verify(RoutingContext ctx) {
    JsonBody body = JsonBody.parseOrEmpty(ctx.body().buffer());
    List<String> id = RequestIds.tableId(ctx, body.stringList("id"));
    OptionalLong requested = body.nonNegativeLong("version");
    boolean content = body.bool("content").orElse(false);
    String branch = BranchParam.of(ctx, body);
    access.require(Authentication.principal(ctx), Permission.ADMIN, id);
    TableVerification service = verification.orElseThrow(() -> ApiException.unsupportedOperation("VerifyTable"));
    blocking.run(() -> {
      TableRef table = catalog.loadTable(id).orElseThrow(() -> new TableNotFoundException(id)).toRef()
          .onBranch(branch);
      branches.ifPresent(b -> b.require(table));
      TableVerification.Result result = service.verify(table.branchRoot(), requested, content).orElseThrow(() ->
          requested.isPresent() ? new TableVersionNotFoundException(id, requested.getAsLong())
              : new ApiException(404, ErrorCode.TABLE_VERSION_NOT_FOUND, "Table has no version yet",
                  "Table " + String.join("$", id) + " has no version to verify"));
      JsonArray problems = new JsonArray();
      for (FileProblem problem : result.report().problems()) {
        problems.add(new JsonObject().put("file", problem.uri()).put("what", problem.what())
            .put("problem", problem.reason()));
      }
      return new JsonObject()
          .put("id", new JsonArray(id))
          .put("version", result.version())
          .put("location", table.branchRoot())
          .put("files_checked", result.report().filesChecked())
          .put("ok", result.report().ok())
          .put("problems", problems);
    }).onSuccess(json -> Responses.json(ctx, json)).onFailure(ctx::fail);
  }
}
