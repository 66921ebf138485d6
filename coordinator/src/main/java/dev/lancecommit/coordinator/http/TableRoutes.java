package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.auth.AccessControl;
import dev.lancecommit.coordinator.auth.Permission;
import dev.lancecommit.coordinator.auth.Principal;
import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.namespace.RegisterMode;
import dev.lancecommit.coordinator.namespace.TableEntry;
import dev.lancecommit.coordinator.publication.TableEventIntents;
import dev.lancecommit.events.TableEvent;
import dev.lancecommit.coordinator.namespace.TableNotFoundException;
import dev.lancecommit.coordinator.namespace.TableVersionNotFoundException;
import dev.lancecommit.coordinator.table.TableVersions;
import dev.lancecommit.format.ManifestFile;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * DeclareTable, RegisterTable, DescribeTable and TableExists.
 *
 * <p>Grants: declare and register need write on the namespace (register with mode Overwrite also admin on the
 * table, since it replaces an entry); describe and exists need read on the table.
 *
 * <p>Describe and declare answer {@code managed_versioning} ({@link ManagedVersioning}) and, with a credential
 * vendor configured, vended credentials in {@code storage_options} ({@link CredentialVending}). Declare vends before
 * it writes the catalog entry, so a location that cannot be vended for, or a credential service that is down,
 * leaves nothing declared.
 */
final class TableRoutes {
  private final Catalog catalog;
  private final Blocking blocking;
  private final AccessControl access;
  private final CredentialVending credentials;
  private final ManagedVersioning managedVersioning;
  private final TableEventNotifier events;

  TableRoutes(Catalog catalog, Blocking blocking, AccessControl access, CredentialVending credentials,
      ManagedVersioning managedVersioning, TableEventNotifier events) {
    this.catalog = catalog;
    this.blocking = blocking;
    this.access = access;
    this.credentials = credentials;
    this.managedVersioning = managedVersioning;
    this.events = events;
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
    ManagedVersioning.validate(properties);
    Principal caller = Authentication.principal(ctx);
    access.require(caller, Permission.WRITE, namespaceOf(id));
    CredentialVending.Plan vend = credentials.plan(caller, id, body.bool("vend_credentials"));
    blocking.run(() -> {
      String intended = location.orElseGet(() -> catalog.defaultLocation(id));
      Map<String, String> vended = credentials.storageOptions(vend, intended);
      Map<String, String> declared = ManagedVersioning.inherit(properties, namespaceOf(id), catalog::loadNamespace);
      TableEventIntents.Intent intent = events.announce(TableEvent.Type.DECLARED, id, null, caller);
      TableEntry entry = TableEventNotifier.made(intent, () -> catalog.declareTable(id, location, declared));
      if (!entry.location().equals(intended)) { // the catalog spells locations canonically
        vended = credentials.storageOptions(vend, entry.location());
      }
      return new Declared(entry, vended, intent);
    }).onSuccess(d -> events.declared(d.entry, caller, d.intent))
        .onSuccess(d -> Responses.json(ctx, new JsonObject()
            .put("location", d.entry.location())
            .put("storage_options", Responses.stringMap(d.storageOptions))
            .put("properties", Responses.stringMap(d.entry.properties()))
            .put("managed_versioning", managedVersioning.of(d.entry))))
        .onFailure(ctx::fail);
  }

  private void register(RoutingContext ctx) {
    JsonBody body = JsonBody.parseOrEmpty(ctx.body().buffer());
    List<String> id = RequestIds.tableId(ctx, body.stringList("id"));
    String location = body.string("location")
        .orElseThrow(() -> ApiException.invalidInput("Field 'location' is required"));
    RegisterMode mode = RegisterMode.parse(body.string("mode").orElse(null));
    Map<String, String> properties = body.stringMap("properties");
    ManagedVersioning.validate(properties);
    Principal caller = Authentication.principal(ctx);
    access.require(caller, Permission.WRITE, namespaceOf(id));
    if (mode == RegisterMode.OVERWRITE) {
      access.require(caller, Permission.ADMIN, id);
    }
    blocking.run(() -> {
      Map<String, String> inherited = ManagedVersioning.inherit(properties, namespaceOf(id), catalog::loadNamespace);
      TableEventIntents.Intent intent = events.announce(TableEvent.Type.REGISTERED, id, null, caller);
      return new Changed(TableEventNotifier.made(intent,
          () -> catalog.registerTable(id, location, mode, inherited)), intent);
    }).onSuccess(changed -> events.registered(changed.entry(), caller, changed.intent()))
        .onSuccess(changed -> Responses.json(ctx, new JsonObject()
            .put("location", changed.entry().location())
            .put("properties", Responses.stringMap(changed.entry().properties()))))
        .onFailure(ctx::fail);
  }

  /**
   * Without {@code load_detailed_metadata} this lists {@code _versions/} only (no manifest is read); with it the
   * manifest of the described version is read for schema, stats and table metadata.
   */
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
    boolean withTableUri = QueryParams.flag(ctx, body, "with_table_uri", false);
    boolean detailed = QueryParams.flag(ctx, body, "load_detailed_metadata", false);
    boolean checkDeclared = QueryParams.flag(ctx, body, "check_declared", false);
    Principal caller = Authentication.principal(ctx);
    access.require(caller, Permission.READ, id);
    CredentialVending.Plan vend = credentials.plan(caller, id, body.bool("vend_credentials"));
    blocking.run(() -> {
      TableEntry entry = catalog.loadTable(id).orElseThrow(() -> new TableNotFoundException(id));
      TableVersions versions = catalog.listVersions(entry);
      if (version.isPresent() && !versions.contains(version.getAsLong())) {
        throw new TableVersionNotFoundException(id, version.getAsLong());
      }
      OptionalLong shown = version.isPresent() ? version : versions.latest();
      ManifestFile manifest = detailed && shown.isPresent() ? catalog.readManifest(entry, shown.getAsLong()) : null;
      Map<String, String> vended = credentials.storageOptions(vend, entry.location());
      return new Described(entry, versions, shown, withTableUri ? catalog.tableUri(entry) : null, manifest, vended);
    }).onSuccess(d -> {
      JsonObject out = new JsonObject()
          .put("location", d.entry.location())
          .put("storage_options", Responses.stringMap(d.storageOptions))
          .put("properties", Responses.stringMap(d.entry.properties()))
          .put("managed_versioning", managedVersioning.of(d.entry));
      if (d.shown.isPresent()) {
        out.put("version", d.shown.getAsLong());
      }
      if (d.tableUri != null) {
        out.put("table_uri", d.tableUri);
      }
      if (detailed) {
        out.put("table", d.entry.name()).put("namespace", new JsonArray(List.copyOf(d.entry.namespace())));
      }
      if (d.manifest != null) {
        out.put("schema", ArrowSchemaJson.schema(
                d.manifest.manifest().getFieldsList(), d.manifest.manifest().getSchemaMetadataMap()))
            .put("stats", TableStats.of(d.manifest.manifest()))
            .put("metadata", Responses.stringMap(d.manifest.manifest().getTableMetadataMap()));
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
    access.require(Authentication.principal(ctx), Permission.READ, id);
    blocking.run(() -> {
      TableEntry entry = catalog.loadTable(id).orElseThrow(() -> new TableNotFoundException(id));
      if (version.isPresent() && !catalog.listVersions(entry).contains(version.getAsLong())) {
        throw new TableVersionNotFoundException(id, version.getAsLong());
      }
      return entry;
    }).onSuccess(entry -> Responses.empty(ctx)).onFailure(ctx::fail);
  }

  static List<String> namespaceOf(List<String> tableId) {
    return tableId.subList(0, tableId.size() - 1);
  }

  private record Described(TableEntry entry, TableVersions versions, OptionalLong shown, String tableUri,
      ManifestFile manifest, Map<String, String> storageOptions) {}

  private record Declared(TableEntry entry, Map<String, String> storageOptions, TableEventIntents.Intent intent) {}
}
