package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.auth.AccessControl;
import dev.lancecommit.coordinator.auth.Permission;
import dev.lancecommit.coordinator.auth.Principal;
import dev.lancecommit.coordinator.commit.SchemaChange;
import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.namespace.TableEntry;
import dev.lancecommit.coordinator.namespace.TableNotFoundException;
import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.evolution.FieldPaths;
import dev.lancecommit.rules.evolution.SchemaEvolution;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The spec's metadata-only schema operations, each one commit through the table's lane ({@link SchemaChange}, the
 * transaction built by {@link SchemaEvolution}); all need the commit grant:
 *
 * <ul>
 *   <li>UpdateTableSchemaMetadata ({@code POST /v1/table/{id}/schema_metadata/update}): the REST body is the bare map
 *       (the spec's "REST NAMESPACE ONLY" note), which replaces the schema metadata; the answer is the map now stored.
 *       A body of the wrapped form, {@code {"metadata": {...}}} with an object value, is read as that map too.
 *   <li>UpdateFieldMetadata ({@code /update_field_metadata}): {@code {version, fields: {canonical path: map}}}.
 *   <li>AlterTableAlterColumns ({@code /alter_columns}): rename and relax nullability; {@code {version}}.
 *   <li>AlterTableDropColumns ({@code /drop_columns}): {@code {version, transaction_id}}.
 * </ul>
 *
 * {@code branch} (a query parameter or body field) answers 501: commits on branches are not served here.
 */
final class SchemaRoutes {
  private final Catalog catalog;
  private final Optional<SchemaChange> changes;
  private final Blocking blocking;
  private final AccessControl access;

  /** @param changes empty when the server has no table storage (the operations are then unsupported) */
  SchemaRoutes(Catalog catalog, Optional<SchemaChange> changes, Blocking blocking, AccessControl access) {
    this.catalog = catalog;
    this.changes = changes;
    this.blocking = blocking;
    this.access = access;
  }

  void mount(Router router) {
    router.post("/v1/table/:id/schema_metadata/update").handler(this::schemaMetadata);
    router.post("/v1/table/:id/update_field_metadata").handler(this::fieldMetadata);
    router.post("/v1/table/:id/alter_columns").handler(this::alterColumns);
    router.post("/v1/table/:id/drop_columns").handler(this::dropColumns);
  }

  private void schemaMetadata(RoutingContext ctx) {
    String operation = "UpdateTableSchemaMetadata";
    JsonBody body = JsonBody.parse(ctx.body().buffer());
    refuseBranch(ctx, Optional.empty(), operation);
    Map<String, String> metadata = body.json().getValue("metadata") instanceof JsonObject
        ? body.stringMap("metadata") : body.asStringMap();
    List<String> id = RequestIds.tableId(ctx, Optional.empty());
    run(ctx, operation, id, latest -> SchemaEvolution.replaceSchemaMetadata(latest, metadata, uuid()),
        (applied, out) -> {
          JsonObject map = new JsonObject();
          new TreeMap<>(applied.manifest().getSchemaMetadataMap())
              .forEach((k, v) -> map.put(k, v.toString(StandardCharsets.UTF_8)));
          Responses.json(ctx, map);
        });
  }

  private void fieldMetadata(RoutingContext ctx) {
    String operation = "UpdateFieldMetadata";
    JsonBody body = JsonBody.parse(ctx.body().buffer());
    refuseBranch(ctx, body.string("branch"), operation);
    List<String> id = RequestIds.tableId(ctx, body.stringList("id"));
    if (!body.has("updates")) {
      throw ApiException.invalidInput("Field 'updates' is required");
    }
    List<SchemaEvolution.FieldMetadataUpdate> updates = new ArrayList<>();
    for (JsonBody entry : body.objectList("updates").orElse(List.of())) {
      String path = entry.string("path").orElseThrow(() -> ApiException.invalidInput(
          "Every entry of 'updates' needs a 'path'"));
      if (!entry.has("metadata")) {
        throw ApiException.invalidInput("Update of '" + path + "' needs 'metadata'");
      }
      updates.add(new SchemaEvolution.FieldMetadataUpdate(path, entry.nullableStringMap("metadata"),
          entry.bool("replace").orElse(false)));
    }
    run(ctx, operation, id, latest -> SchemaEvolution.updateFieldMetadata(latest, updates, uuid()),
        (applied, out) -> {
          JsonObject fields = new JsonObject();
          List<Field> schema = applied.manifest().getFieldsList();
          for (SchemaEvolution.FieldMetadataUpdate update : updates) {
            Field field = FieldPaths.resolve(schema, update.path());
            JsonObject metadata = new JsonObject();
            new TreeMap<>(field.getMetadataMap()).forEach((k, v) -> metadata.put(k, v.toString(StandardCharsets.UTF_8)));
            fields.put(FieldPaths.canonical(schema, field), metadata);
          }
          Responses.json(ctx, out.put("fields", fields));
        });
  }

  private void alterColumns(RoutingContext ctx) {
    String operation = "AlterTableAlterColumns";
    JsonBody body = JsonBody.parse(ctx.body().buffer());
    refuseBranch(ctx, body.string("branch"), operation);
    List<String> id = RequestIds.tableId(ctx, body.stringList("id"));
    if (!body.has("alterations")) {
      throw ApiException.invalidInput("Field 'alterations' is required");
    }
    List<SchemaEvolution.ColumnAlteration> alterations = new ArrayList<>();
    for (JsonBody entry : body.objectList("alterations").orElse(List.of())) {
      String path = entry.string("path").orElseThrow(() -> ApiException.invalidInput(
          "Every entry of 'alterations' needs a 'path'"));
      if (entry.json().getValue("virtual_column") != null) {
        throw ApiException.unsupportedOption(operation, "virtual_column");
      }
      Optional<String> dataType = entry.object("data_type").map(type -> type.string("type").orElseThrow(() ->
          ApiException.invalidInput("'data_type' of '" + path + "' needs a 'type'")));
      alterations.add(new SchemaEvolution.ColumnAlteration(path, entry.string("rename"), entry.bool("nullable"),
          dataType));
    }
    run(ctx, operation, id, latest -> SchemaEvolution.alterColumns(latest, alterations,
        field -> ArrowSchemaJson.dataType(latest.getFieldsList(), field).getString("type"), uuid()),
        (applied, out) -> Responses.json(ctx, out));
  }

  private void dropColumns(RoutingContext ctx) {
    String operation = "AlterTableDropColumns";
    JsonBody body = JsonBody.parse(ctx.body().buffer());
    refuseBranch(ctx, body.string("branch"), operation);
    List<String> id = RequestIds.tableId(ctx, body.stringList("id"));
    List<String> columns = body.stringList("columns").orElseThrow(() ->
        ApiException.invalidInput("Field 'columns' is required"));
    run(ctx, operation, id, latest -> SchemaEvolution.dropColumns(latest, columns, uuid()),
        (applied, out) -> Responses.json(ctx, out.put("transaction_id", applied.result().transactionUuid())));
  }

  /** Checks, commits the change on the worker and answers {@code {version}} plus what {@code answer} adds. */
  private void run(RoutingContext ctx, String operation, List<String> id, Function<Manifest, Transaction> change,
      BiConsumer<SchemaChange.Applied, JsonObject> answer) {
    SchemaChange service = changes.orElseThrow(() -> ApiException.unsupportedOperation(operation));
    Principal caller = Authentication.principal(ctx);
    access.require(caller, Permission.COMMIT, id);
    blocking.run(() -> {
      TableEntry entry = catalog.loadTable(id).orElseThrow(() -> new TableNotFoundException(id));
      return service.apply(entry.toRef(), caller.name(), change);
    }).compose(pending -> Future.<SchemaChange.Applied>fromCompletionStage(pending, ctx.vertx().getOrCreateContext()))
        .onSuccess(applied -> answer.accept(applied, new JsonObject().put("version", applied.result().version())))
        .onFailure(ctx::fail);
  }

  private static void refuseBranch(RoutingContext ctx, Optional<String> bodyBranch, String operation) {
    if (QueryParams.string(ctx, "branch").isPresent() || bodyBranch.isPresent()) {
      throw ApiException.unsupportedOption(operation, "branch");
    }
  }

  private static String uuid() {
    return UUID.randomUUID().toString();
  }
}
