package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.auth.AccessControl;
import dev.lancecommit.coordinator.auth.Permission;
import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.namespace.TableNotFoundException;
import dev.lancecommit.coordinator.refs.TagContents;
import dev.lancecommit.coordinator.refs.Tags;
import dev.lancecommit.coordinator.table.TableRef;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The tag operations of the spec, over {@link Tags} (Lance's own {@code _refs/tags/} files):
 * <ul>
 *   <li>ListTableTags {@code POST tags/list} ({@code page_token}, {@code limit} in the query): {@code {"tags": {name:
 *       {"branch"?, "version", "manifestSize"}}, "page_token"?}}, by name; the token resumes after the last name.
 *   <li>GetTableTagVersion {@code POST tags/version {"tag"}}: {@code {"version", "branch"?}}; 404/8 when unknown.
 *   <li>CreateTableTag {@code POST tags/create {"tag", "version", "branch"?}}: 409/9 when it exists, 404/11 when the
 *       version does not.
 *   <li>UpdateTableTag {@code POST tags/update {"tag", "version", "branch"?}}: 404/8, 404/11.
 *   <li>DeleteTableTag {@code POST tags/delete {"tag"}}: 404/8 when unknown.
 * </ul>
 * Create, update and delete answer {@code {}} (the spec's optional {@code transaction_id} does not apply: no
 * transaction is committed). Listing and reading need read, the others commit.
 */
final class TagRoutes {
  private final Catalog catalog;
  private final Optional<Tags> tags;
  private final Blocking blocking;
  private final AccessControl access;

  TagRoutes(Catalog catalog, Optional<Tags> tags, Blocking blocking, AccessControl access) {
    this.catalog = catalog;
    this.tags = tags;
    this.blocking = blocking;
    this.access = access;
  }

  void mount(Router router) {
    router.post("/v1/table/:id/tags/list").handler(this::list);
    router.post("/v1/table/:id/tags/version").handler(this::version);
    router.post("/v1/table/:id/tags/create").handler(ctx -> change(ctx, "CreateTableTag", true));
    router.post("/v1/table/:id/tags/update").handler(ctx -> change(ctx, "UpdateTableTag", true));
    router.post("/v1/table/:id/tags/delete").handler(ctx -> change(ctx, "DeleteTableTag", false));
  }

  private void list(RoutingContext ctx) {
    Tags service = tags.orElseThrow(() -> ApiException.unsupportedOperation("ListTableTags"));
    JsonBody body = JsonBody.parseOrEmpty(ctx.body().buffer());
    List<String> id = RequestIds.tableId(ctx, body.stringList("id"));
    int limit = Paging.limit(ctx);
    Optional<String> after = Paging.cursor(ctx, Paging.Kind.TAG_NAME);
    access.require(Authentication.principal(ctx), Permission.READ, id);
    blocking.run(() -> service.list(table(id)))
        .onSuccess(all -> Responses.json(ctx,
            Paging.namePage(all, after, limit, Paging.Kind.TAG_NAME, "tags", TagRoutes::contents)))
        .onFailure(ctx::fail);
  }

  private void version(RoutingContext ctx) {
    Tags service = tags.orElseThrow(() -> ApiException.unsupportedOperation("GetTableTagVersion"));
    JsonBody body = JsonBody.parse(ctx.body().buffer());
    List<String> id = RequestIds.tableId(ctx, body.stringList("id"));
    String tag = requiredTag(body);
    access.require(Authentication.principal(ctx), Permission.READ, id);
    blocking.run(() -> service.get(table(id), tag))
        .onSuccess(contents -> {
          JsonObject out = new JsonObject().put("version", contents.version());
          contents.branch().ifPresent(branch -> out.put("branch", branch));
          Responses.json(ctx, out);
        })
        .onFailure(ctx::fail);
  }

  private void change(RoutingContext ctx, String operation, boolean withVersion) {
    Tags service = tags.orElseThrow(() -> ApiException.unsupportedOperation(operation));
    JsonBody body = JsonBody.parse(ctx.body().buffer());
    List<String> id = RequestIds.tableId(ctx, body.stringList("id"));
    String tag = requiredTag(body);
    OptionalLong version = body.nonNegativeLong("version");
    if (withVersion && version.isEmpty()) {
      throw ApiException.invalidInput("Field 'version' is required");
    }
    String branch = withVersion ? BranchParam.of(ctx, body) : null;
    access.require(Authentication.principal(ctx), Permission.COMMIT, id);
    blocking.run(() -> {
      TableRef table = table(id);
      switch (operation) {
        case "CreateTableTag" -> service.create(table, tag, version.getAsLong(), branch);
        case "UpdateTableTag" -> service.update(table, tag, version.getAsLong(), branch);
        default -> service.delete(table, tag);
      }
      return null;
    }).onSuccess(done -> Responses.json(ctx, new JsonObject())).onFailure(ctx::fail);
  }

  private TableRef table(List<String> id) {
    return catalog.loadTable(id).orElseThrow(() -> new TableNotFoundException(id)).toRef();
  }

  private static String requiredTag(JsonBody body) {
    return body.string("tag").orElseThrow(() -> ApiException.invalidInput("Field 'tag' is required"));
  }

  /** The spec's TagContents: camelCase, as in Lance's file; branch left out for main. */
  static JsonObject contents(TagContents tag) {
    JsonObject json = new JsonObject();
    tag.branch().ifPresent(branch -> json.put("branch", branch));
    return json.put("version", tag.version()).put("manifestSize", tag.manifestSize());
  }
}
