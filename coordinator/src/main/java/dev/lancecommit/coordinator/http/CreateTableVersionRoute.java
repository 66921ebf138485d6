package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.auth.AccessControl;
import dev.lancecommit.coordinator.auth.Permission;
import dev.lancecommit.coordinator.auth.Principal;
import dev.lancecommit.coordinator.commit.CommitResult;
import dev.lancecommit.coordinator.commit.CreateTableVersion;
import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.namespace.TableEntry;
import dev.lancecommit.coordinator.namespace.TableNotFoundException;
import dev.lancecommit.coordinator.refs.Branches;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.format.ManifestNaming;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * CreateTableVersion ({@code POST /v1/table/{id}/version/create}), the commit of a client using namespace-managed
 * versioning: parses the request (the staged manifest's path, {@link StorePaths#stagedManifestName}), checks the
 * commit grant (and, for a staged Clone, access to its source), and runs {@link CreateTableVersion}: stage, commit,
 * finish. The answer describes the version as created, its manifest path as a store path.
 */
final class CreateTableVersionRoute {
  private static final String OPERATION = "CreateTableVersion";

  private final Catalog catalog;
  private final Optional<CreateTableVersion> versions;
  private final Optional<Branches> branches;
  private final Blocking blocking;
  private final AccessControl access;

  /**
   * @param versions empty when the server has no table storage (the operation is then unsupported)
   * @param branches checks the branch a request names exists
   */
  CreateTableVersionRoute(Catalog catalog, Optional<CreateTableVersion> versions, Optional<Branches> branches,
      Blocking blocking, AccessControl access) {
    this.catalog = catalog;
    this.versions = versions;
    this.branches = branches;
    this.blocking = blocking;
    this.access = access;
  }

  void mount(Router router) {
    router.post("/v1/table/:id/version/create").handler(this::create);
  }

  private void create(RoutingContext ctx) {
    CreateTableVersion service = versions.orElseThrow(() -> ApiException.unsupportedOperation(OPERATION));
    Request request = parse(ctx);
    Principal caller = Authentication.principal(ctx);
    access.require(caller, Permission.COMMIT, request.id);
    // The commit service is called from the worker too: resolving a table's store may build a client.
    blocking.run(() -> {
      TableEntry entry = catalog.loadTable(request.id).orElseThrow(() -> new TableNotFoundException(request.id));
      CreateTableVersion.Staged staged = stage(service, entry, request, branches);
      CloneSourceAccess.require(access, caller, catalog, staged.transaction().toByteArray());
      return new Submitted(staged, service.commit(staged, caller.name()));
    }).compose(submitted -> Future.fromCompletionStage(submitted.committed, ctx.vertx().getOrCreateContext())
            .compose(committed -> finish(service, submitted.staged, committed)))
        .onSuccess(created -> Responses.json(ctx, json(created)))
        .onFailure(ctx::fail);
  }

  /**
   * Describes the version created, from what the commit wrote (a store request only for a version that landed
   * before), and removes the staged manifest after the answer, off its path: the client never reads or deletes the
   * staged file (Lance's namespace commit handler forgets it once the namespace answers), and a removal that fails
   * or never runs leaves a file no manifest names, as a failed Lance commit does. An object store's delete is a
   * round trip the answer no longer waits for.
   */
  private Future<CreateTableVersion.Created> finish(CreateTableVersion service, CreateTableVersion.Staged staged,
      CommitResult committed) {
    Future<CreateTableVersion.Created> described = committed.written().isPresent()
        ? Future.succeededFuture(service.describe(staged, committed))
        : blocking.run(() -> service.describe(staged, committed));
    return described.onComplete(done -> blocking.run(() -> {
      service.removeStaged(staged);
      return null;
    }));
  }

  /**
   * Reads and checks the staged manifest a request names; on a branch, the staged manifest lies in the branch's own
   * _versions/ (tree/{branch}/_versions/). Blocking.
   */
  static CreateTableVersion.Staged stage(CreateTableVersion service, TableEntry entry, Request request,
      Optional<Branches> branches) {
    TableRef table = entry.toRef().onBranch(request.branch);
    if (request.branch != null) {
      branches.orElseThrow(() -> ApiException.unsupportedOption(OPERATION, "branch")).require(table);
    }
    StorePaths.StagedName staging = StorePaths.stagedManifestName(table.branchRoot(), request.manifestPath,
        request.version);
    if (request.scheme.isPresent() && staging.scheme() != request.scheme.get()) {
      throw ApiException.invalidInput("Field 'naming_scheme' does not match the staged manifest's name",
          "'" + staging.name() + "' is not named by scheme " + request.scheme.get());
    }
    return service.stage(table, new CreateTableVersion.Request(
        staging.name(), request.manifestPath, request.version, request.size, staging.scheme(),
        ManagedVersioning.appendsOnLatest(entry)));
  }

  static JsonObject tableVersion(CreateTableVersion.Created created) {
    return json(created).getJsonObject("version");
  }

  static JsonObject json(CreateTableVersion.Created created) {
    JsonObject version = new JsonObject()
        .put("version", created.version())
        .put("manifest_path", StorePaths.of(created.manifestUri()))
        .put("manifest_size", created.manifestSize())
        .put("timestamp_millis", created.committedAt().toEpochMilli());
    created.eTag().ifPresent(eTag -> version.put("e_tag", eTag));
    return new JsonObject()
        .put("transaction_id", created.transactionUuid())
        .put("version", version);
  }

  private static Request parse(RoutingContext ctx) {
    JsonBody body = JsonBody.parse(ctx.body().buffer());
    return parse(body, RequestIds.tableId(ctx, body.stringList("id")), OPERATION, BranchParam.of(ctx, body));
  }

  /**
   * The fields of a batch's CreateTableVersionEntry for table {@code id}: a batch commits on main branches only (the
   * batch record names tables, not branches).
   */
  static Request parse(JsonBody body, List<String> id, String operation) {
    if (body.string("branch").isPresent()) {
      throw ApiException.unsupportedOption(operation, "branch");
    }
    return parse(body, id, operation, null);
  }

  private static Request parse(JsonBody body, List<String> id, String operation, String branch) {
    if (!body.stringMap("metadata").isEmpty()) {
      throw ApiException.unsupportedOption(operation, "metadata");
    }
    OptionalLong version = body.nonNegativeLong("version");
    if (version.isEmpty() || version.getAsLong() < 1) {
      throw ApiException.invalidInput("Field 'version' is required and must be at least 1");
    }
    String manifestPath = body.string("manifest_path").filter(p -> !p.isBlank())
        .orElseThrow(() -> ApiException.invalidInput("Field 'manifest_path' is required"));
    OptionalLong size = body.nonNegativeLong("manifest_size");
    Optional<ManifestNaming.Scheme> scheme = body.string("naming_scheme").map(CreateTableVersionRoute::scheme);
    return new Request(id, version.getAsLong(), manifestPath, size, scheme, branch);
  }

  private static ManifestNaming.Scheme scheme(String value) {
    return switch (value.toUpperCase(Locale.ROOT)) {
      case "V1" -> ManifestNaming.Scheme.V1;
      case "V2" -> ManifestNaming.Scheme.V2;
      default -> throw ApiException.invalidInput("Field 'naming_scheme' must be V1 or V2, got '" + value + "'");
    };
  }

  /** @param branch null for the main branch */
  record Request(List<String> id, long version, String manifestPath, OptionalLong size,
      Optional<ManifestNaming.Scheme> scheme, String branch) {}

  private record Submitted(CreateTableVersion.Staged staged, CompletableFuture<CommitResult> committed) {}
}
