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
import dev.lancecommit.coordinator.refs.Branches;
import dev.lancecommit.coordinator.table.TableRef;
import io.opentelemetry.context.Scope;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * CommitTable, this product's extension of the namespace API: {@code POST /v1/table/{id}/commit} with either the raw
 * Lance {@code Transaction} protobuf ({@code Content-Type: application/x-protobuf}; {@code rebase} may then be given
 * as a query parameter) or JSON {@code {"transaction": base64, "affected_rows": base64?, "rebase": bool?}}. Needs
 * the commit grant on the table; the caller's principal name becomes the commit's actor. The answer carries
 * {@code group_size}: how many writers' transactions the version commits (1 unless the transaction was committed in
 * a group).
 *
 * <p>A commit to a Lance branch names it as the spec names branches ({@link BranchParam}): the {@code branch} query
 * parameter, or the JSON body's {@code branch}. It is committed on the branch's dataset ({@code tree/{branch}})
 * through the branch's own lane and never moves main; an unknown branch is 404/22.
 */
final class CommitRoute {
  private final Catalog catalog;
  private final CommitService commitService;
  private final Optional<Branches> branches;
  private final Blocking blocking;
  private final AccessControl access;

  CommitRoute(Catalog catalog, CommitService commitService, Optional<Branches> branches, Blocking blocking,
      AccessControl access) {
    this.catalog = catalog;
    this.commitService = commitService;
    this.branches = branches;
    this.blocking = blocking;
    this.access = access;
  }

  void mount(Router router) {
    router.post("/v1/table/:id/commit").handler(this::commit);
  }

  private void commit(RoutingContext ctx) {
    Principal caller = Authentication.principal(ctx);
    Parsed parsed = parse(ctx, caller.name());
    List<String> id = RequestIds.tableId(ctx, parsed.bodyId);
    access.require(caller, Permission.COMMIT, id);
    CommitRequest request = parsed.request;
    String branch = parsed.branch;
    if (branch != null && branches.isEmpty()) {
      throw ApiException.unsupportedOption("CommitTable", "branch");
    }
    Vertx vertx = ctx.vertx();
    Future<CompletableFuture<CommitResult>> submitted;
    Optional<TableEntry> cached = branch == null ? catalog.cachedTable(id) : Optional.empty();
    if (cached.isPresent() && !CloneSourceAccess.applies(access, request.transaction())) {
      // The table is known and nothing needs the catalog: hand the commit to its lane from the event loop (the lane
      // only enqueues), without a hop through the blocking pool. The request's trace is made current for the call, as
      // the blocking pool's wrapper does, so the commit's span is the request's child.
      try (Scope traced = HttpTracing.current(vertx).makeCurrent()) {
        submitted = Future.succeededFuture(commitService.commit(cached.get().toRef(), request));
      }
    } else {
      // The catalog lookup blocks; the service is called from the worker too, in case it does work before returning.
      submitted = blocking.run(() -> {
        TableEntry entry = catalog.loadTable(id).orElseThrow(() -> new TableNotFoundException(id));
        TableRef table = entry.toRef().onBranch(branch);
        if (branch != null) {
          branches.get().require(table);
        }
        CloneSourceAccess.require(access, caller, catalog, request.transaction());
        return commitService.commit(table, request);
      });
    }
    submitted.compose(pending -> pending == null
        ? Future.<CommitResult>failedFuture(new IllegalStateException("CommitService returned no future"))
        : Future.fromCompletionStage(pending, vertx.getOrCreateContext()))
        .onSuccess(result -> Responses.json(ctx, toJson(result)))
        .onFailure(ctx::fail);
  }

  static JsonObject toJson(CommitResult result) {
    return new JsonObject()
        .put("version", result.version())
        .put("read_version", result.readVersion())
        .put("transaction_uuid", result.transactionUuid())
        .put("manifest_path", result.manifestPath())
        .put("operation", result.operation())
        .put("group_size", result.groupSize())
        .put("new_fragment_ids",
            new io.vertx.core.json.JsonArray(new java.util.ArrayList<>(result.newFragmentIds())));
  }

  private static Parsed parse(RoutingContext ctx, String actor) {
    Buffer body = ctx.body().buffer();
    if (body == null || body.length() == 0) {
      throw ApiException.invalidInput("Request body is empty", "CommitTable needs a Lance transaction");
    }
    String mediaType = mediaType(ctx.request().getHeader("content-type"));
    if (mediaType.equals("application/x-protobuf") || mediaType.equals("application/protobuf")) {
      boolean rebase = rebaseQuery(ctx);
      return new Parsed(Optional.empty(),
          new CommitRequest(body.getBytes(), Optional.empty(), rebase, actor), BranchParam.ofQuery(ctx));
    }
    if (!mediaType.equals("application/json")) {
      throw ApiException.invalidInput("Unsupported content type '" + mediaType + "'",
          "CommitTable accepts application/x-protobuf (raw Transaction bytes) or application/json");
    }
    JsonBody json = JsonBody.parse(body);
    byte[] transaction = base64(json, "transaction")
        .orElseThrow(() -> ApiException.invalidInput("Field 'transaction' is required"));
    if (transaction.length == 0) {
      throw ApiException.invalidInput("Field 'transaction' is empty");
    }
    Optional<byte[]> affectedRows = base64(json, "affected_rows");
    boolean rebase = json.bool("rebase").orElse(true);
    return new Parsed(json.stringList("id"), new CommitRequest(transaction, affectedRows, rebase, actor),
        BranchParam.of(ctx, json));
  }

  private static Optional<byte[]> base64(JsonBody json, String field) {
    return json.string(field).map(text -> {
      try {
        return Base64.getDecoder().decode(text);
      } catch (IllegalArgumentException e) {
        throw ApiException.invalidInput("Field '" + field + "' is not valid base64", e.getMessage());
      }
    });
  }

  private static boolean rebaseQuery(RoutingContext ctx) {
    List<String> values = ctx.queryParam("rebase");
    if (values.isEmpty()) {
      return true;
    }
    String value = values.get(0).toLowerCase(Locale.ROOT);
    if (values.size() > 1 || !(value.equals("true") || value.equals("false"))) {
      throw ApiException.invalidInput("Query parameter 'rebase' must be true or false");
    }
    return Boolean.parseBoolean(value);
  }

  private static String mediaType(String header) {
    if (header == null) {
      return "";
    }
    int semicolon = header.indexOf(';');
    return (semicolon < 0 ? header : header.substring(0, semicolon)).trim().toLowerCase(Locale.ROOT);
  }

  /** @param branch null for the main branch */
  private record Parsed(Optional<List<String>> bodyId, CommitRequest request, String branch) {}
}
