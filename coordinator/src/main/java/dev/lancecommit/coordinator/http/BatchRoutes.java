package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.auth.AccessControl;
import dev.lancecommit.coordinator.auth.Permission;
import dev.lancecommit.coordinator.auth.Principal;
import dev.lancecommit.coordinator.batch.BatchCoordinator;
import dev.lancecommit.coordinator.batch.BatchMemberException;
import dev.lancecommit.coordinator.commit.CommitResult;
import dev.lancecommit.coordinator.commit.CreateTableVersion;
import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.namespace.TableEntry;
import dev.lancecommit.coordinator.namespace.TableNotFoundException;
import dev.lancecommit.coordinator.namespace.Identifiers;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The atomic multi-table commits ({@link BatchCoordinator}): BatchCreateTableVersions
 * ({@code POST /v1/table/version/batch-create}) and BatchCommitTables ({@code POST /v1/table/batch-commit}). Each
 * entry is a CreateTableVersion of a table using namespace-managed versioning (the staged manifest's transaction is
 * what is committed) and needs the commit grant on its table. Every entry is parsed, authorized, looked up and its
 * staged manifest read before anything is held; then all are checked under their lanes, and either all versions
 * are created or none. An entry that fails answers the status and code it would get alone, naming its position and
 * table. The response's {@code transaction_id} is the batch id, which every version's commit event carries.
 *
 * <p>Where the spec is silent: one version per table per batch (two entries naming one table: 400/13); an entry
 * must create exactly the version it names (409/14 otherwise, as for CreateTableVersion; a transaction that already
 * made that version answers it again); BatchCommitTables takes {@code create_table_version} operations only
 * ({@code declare_table}, {@code delete_table_versions} and {@code deregister_table} answer 501/0: they change the
 * catalog, which batch records do not cover yet).
 */
final class BatchRoutes {
  private static final String BATCH_CREATE = "BatchCreateTableVersions";
  private static final String BATCH_COMMIT = "BatchCommitTables";

  private final Catalog catalog;
  private final Optional<BatchCoordinator> batches;
  private final Optional<CreateTableVersion> versions;
  private final Blocking blocking;
  private final AccessControl access;

  BatchRoutes(Catalog catalog, Optional<BatchCoordinator> batches, Optional<CreateTableVersion> versions,
      Blocking blocking, AccessControl access) {
    this.catalog = catalog;
    this.batches = batches;
    this.versions = versions;
    this.blocking = blocking;
    this.access = access;
  }

  void mount(Router router) {
    router.post("/v1/table/version/batch-create").handler(this::batchCreate);
    router.post("/v1/table/batch-commit").handler(this::batchCommit);
  }

  private void batchCreate(RoutingContext ctx) {
    requireAvailable(BATCH_CREATE);
    JsonBody body = JsonBody.parse(ctx.body().buffer());
    if (!body.has("entries")) {
      throw ApiException.invalidInput("Field 'entries' is required");
    }
    List<CreateTableVersionRoute.Request> requests = new ArrayList<>();
    List<JsonBody> entries = body.objectList("entries").orElse(List.of());
    for (int i = 0; i < entries.size(); i++) {
      requests.add(entry(entries.get(i), i, BATCH_CREATE));
    }
    run(ctx, BATCH_CREATE, requests, (batchId, created) -> {
      JsonArray out = new JsonArray();
      created.forEach(c -> out.add(CreateTableVersionRoute.tableVersion(c)));
      return new JsonObject().put("transaction_id", batchId).put("versions", out);
    });
  }

  private void batchCommit(RoutingContext ctx) {
    requireAvailable(BATCH_COMMIT);
    JsonBody body = JsonBody.parse(ctx.body().buffer());
    if (!body.has("operations")) {
      throw ApiException.invalidInput("Field 'operations' is required");
    }
    List<CreateTableVersionRoute.Request> requests = new ArrayList<>();
    List<JsonBody> operations = body.objectList("operations").orElse(List.of());
    for (int i = 0; i < operations.size(); i++) {
      JsonBody operation = operations.get(i);
      for (String kind : List.of("declare_table", "delete_table_versions", "deregister_table")) {
        if (operation.json().getValue(kind) != null) {
          throw ApiException.unsupportedOption(BATCH_COMMIT, kind);
        }
      }
      int index = i;
      JsonBody create = operation.object("create_table_version").orElseThrow(() -> ApiException.invalidInput(
          "Operation " + index + " names no operation; give exactly one of declare_table, create_table_version, "
              + "delete_table_versions, deregister_table"));
      requests.add(entry(create, i, BATCH_COMMIT));
    }
    run(ctx, BATCH_COMMIT, requests, (batchId, created) -> {
      JsonArray results = new JsonArray();
      created.forEach(c -> results.add(new JsonObject().put("create_table_version",
          CreateTableVersionRoute.json(c))));
      return new JsonObject().put("transaction_id", batchId).put("results", results);
    });
  }

  private void requireAvailable(String operation) {
    if (batches.isEmpty() || versions.isEmpty()) {
      throw ApiException.unsupportedOperation(operation);
    }
  }

  private static CreateTableVersionRoute.Request entry(JsonBody entry, int index, String operation) {
    try {
      List<String> id = entry.stringList("id").filter(l -> !l.isEmpty()).orElseThrow(() ->
          ApiException.invalidInput("Entry " + index + " needs 'id'"));
      Identifiers.validate(id);
      return CreateTableVersionRoute.parse(entry, id, operation);
    } catch (ApiException e) {
      throw new ApiException(e.httpStatus(), e.code(), "Batch entry " + index + ": " + e.error(), e.detail());
    }
  }

  private interface Answer {
    JsonObject json(String batchId, List<CreateTableVersion.Created> created);
  }

  private record Staged(List<CreateTableVersion.Staged> staged,
      CompletableFuture<BatchCoordinator.Committed> committed) {}

  private void run(RoutingContext ctx, String operation, List<CreateTableVersionRoute.Request> requests,
      Answer answer) {
    BatchCoordinator coordinator = batches.orElseThrow(() -> ApiException.unsupportedOperation(operation));
    CreateTableVersion service = versions.orElseThrow(() -> ApiException.unsupportedOperation(operation));
    if (requests.isEmpty()) {
      throw ApiException.invalidInput("A batch needs at least one entry");
    }
    Principal caller = Authentication.principal(ctx);
    for (int i = 0; i < requests.size(); i++) {
      try {
        access.require(caller, Permission.COMMIT, requests.get(i).id());
      } catch (RuntimeException e) {
        throw new BatchMemberException(i, requests.get(i).id(), e);
      }
    }
    blocking.run(() -> {
      List<CreateTableVersion.Staged> staged = new ArrayList<>();
      List<BatchCoordinator.Member> members = new ArrayList<>();
      for (int i = 0; i < requests.size(); i++) {
        CreateTableVersionRoute.Request request = requests.get(i);
        try {
          TableEntry entry = catalog.loadTable(request.id()).orElseThrow(() -> new TableNotFoundException(request.id()));
          CreateTableVersion.Staged one = CreateTableVersionRoute.stage(service, entry, request, Optional.empty());
          CloneSourceAccess.require(access, caller, catalog, one.transaction().toByteArray());
          staged.add(one);
          members.add(new BatchCoordinator.Member(one.table(), CreateTableVersion.request(one, caller.name()),
              request.version()));
        } catch (RuntimeException e) {
          throw new BatchMemberException(i, request.id(), e);
        }
      }
      return new Staged(staged, coordinator.commit(operation, caller.name(), members));
    }).compose(submitted -> Future.fromCompletionStage(submitted.committed(), ctx.vertx().getOrCreateContext())
            .compose(committed -> blocking.run(() -> {
              List<CreateTableVersion.Created> created = new ArrayList<>();
              List<CommitResult> results = committed.results();
              for (int i = 0; i < results.size(); i++) {
                created.add(service.finish(submitted.staged().get(i), results.get(i)));
              }
              return answer.json(committed.batchId(), created);
            })))
        .onSuccess(json -> Responses.json(ctx, json))
        .onFailure(ctx::fail);
  }
}
