package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.namespace.RegisterMode;
import dev.lancecommit.coordinator.namespace.TableEntry;
import dev.lancecommit.coordinator.namespace.TableNotFoundException;
import dev.lancecommit.coordinator.namespace.TableVersionNotFoundException;
import dev.lancecommit.coordinator.namespace.TableVersions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/** DeclareTable, RegisterTable, DescribeTable and TableExists. */
final class TableRoutes {
  private final Catalog catalog;
  private final Blocking blocking;

  TableRoutes(Catalog catalog, Blocking blocking) {
    this.catalog = catalog;
    this.blocking = blocking;
  }

  void mount(Router router) {
    router.post("/v1/table/:id/declare").handler(this::declare);
    router.post("/v1/table/:id/register").handler(this::register);
    router.post("/v1/table/:id/describe").handler(this::describe);
    router.post("/v1/table/:id/exists").handler(this::exists);
  }

  private void declare(RoutingContext ctx) {
    JsonBody body = JsonBody.parseOrEmpty(ctx.body().buffer());
    List<String> id = RequestIds.tableId(ctx, body.stringList("id"));
    Optional<String> location = body.string("location");
    Map<String, String> properties = body.stringMap("properties");
    body.bool("vend_credentials");
    blocking.run(() -> catalog.declareTable(id, location, properties))
        .onSuccess(entry -> Responses.json(ctx, new JsonObject()
            .put("location", entry.location())
            .put("storage_options", new JsonObject())
            .put("properties", Responses.stringMap(entry.properties()))
            .put("managed_versioning", false)))
        .onFailure(ctx::fail);
  }

  private void register(RoutingContext ctx) {
    JsonBody body = JsonBody.parseOrEmpty(ctx.body().buffer());
    List<String> id = RequestIds.tableId(ctx, body.stringList("id"));
    String location = body.string("location")
        .orElseThrow(() -> ApiException.invalidInput("Field 'location' is required"));
    RegisterMode mode = RegisterMode.parse(body.string("mode").orElse(null));
    Map<String, String> properties = body.stringMap("properties");
    blocking.run(() -> catalog.registerTable(id, location, mode, properties))
        .onSuccess(entry -> Responses.json(ctx, new JsonObject()
            .put("location", entry.location())
            .put("properties", Responses.stringMap(entry.properties()))))
        .onFailure(ctx::fail);
  }

  private void describe(RoutingContext ctx) {
    JsonBody body = JsonBody.parseOrEmpty(ctx.body().buffer());
    List<String> id = RequestIds.tableId(ctx, body.stringList("id"));
    OptionalLong version = body.nonNegativeLong("version");
    if (body.string("tag").isPresent()) {
      throw ApiException.unsupportedOption("DescribeTable", "tag");
    }
    if (body.string("branch").isPresent()) {
      throw ApiException.unsupportedOption("DescribeTable", "branch");
    }
    boolean withTableUri = flag(ctx, body, "with_table_uri");
    boolean detailed = flag(ctx, body, "load_detailed_metadata");
    boolean checkDeclared = flag(ctx, body, "check_declared");
    body.bool("vend_credentials");
    blocking.run(() -> {
      TableEntry entry = catalog.loadTable(id).orElseThrow(() -> new TableNotFoundException(id));
      TableVersions versions = catalog.listVersions(entry);
      if (version.isPresent() && !versions.contains(version.getAsLong())) {
        throw new TableVersionNotFoundException(id, version.getAsLong());
      }
      return new Described(entry, versions, withTableUri ? catalog.tableUri(entry) : null);
    }).onSuccess(d -> {
      JsonObject out = new JsonObject()
          .put("location", d.entry.location())
          .put("storage_options", new JsonObject())
          .put("properties", Responses.stringMap(d.entry.properties()))
          .put("managed_versioning", false);
      OptionalLong shown = version.isPresent() ? version : d.versions.latest();
      if (shown.isPresent()) {
        out.put("version", shown.getAsLong());
      }
      if (d.tableUri != null) {
        out.put("table_uri", d.tableUri);
      }
      if (detailed) {
        out.put("table", d.entry.name()).put("namespace", new JsonArray(List.copyOf(d.entry.namespace())));
      }
      if (checkDeclared || detailed) {
        out.put("is_only_declared", d.versions.isEmpty());
      }
      Responses.json(ctx, out);
    }).onFailure(ctx::fail);
  }

  private void exists(RoutingContext ctx) {
    JsonBody body = JsonBody.parseOrEmpty(ctx.body().buffer());
    List<String> id = RequestIds.tableId(ctx, body.stringList("id"));
    OptionalLong version = body.nonNegativeLong("version");
    blocking.run(() -> {
      TableEntry entry = catalog.loadTable(id).orElseThrow(() -> new TableNotFoundException(id));
      if (version.isPresent() && !catalog.listVersions(entry).contains(version.getAsLong())) {
        throw new TableVersionNotFoundException(id, version.getAsLong());
      }
      return entry;
    }).onSuccess(entry -> Responses.empty(ctx)).onFailure(ctx::fail);
  }

  /** The REST spec passes DescribeTable's flags as query parameters; a body field is honoured when no query is. */
  private static boolean flag(RoutingContext ctx, JsonBody body, String name) {
    List<String> values = ctx.queryParam(name);
    if (values.isEmpty()) {
      return body.bool(name).orElse(false);
    }
    String value = values.get(0).toLowerCase(Locale.ROOT);
    if (values.size() > 1 || !(value.equals("true") || value.equals("false"))) {
      throw ApiException.invalidInput("Query parameter '" + name + "' must be true or false");
    }
    return Boolean.parseBoolean(value);
  }

  private record Described(TableEntry entry, TableVersions versions, String tableUri) {}
}
