package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.testing.lance.LanceTables;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.lance.Dataset;
import org.lance.schema.SqlExpressions;
import org.lance.namespace.RestNamespace;
import org.lance.namespace.client.apache.ApiClient;
import org.lance.namespace.client.apache.api.TableApi;
import org.lance.namespace.errors.LanceNamespaceException;
import org.lance.namespace.model.AlterColumnsEntry;
import org.lance.namespace.model.AlterTableAlterColumnsRequest;
import org.lance.namespace.model.AlterTableDropColumnsRequest;
import org.lance.namespace.model.RegisterTableRequest;
import org.lance.namespace.model.UpdateTableSchemaMetadataRequest;

/**
 * The metadata-only schema operations driven by stock Lance Java's REST namespace (lance-core 7.0.0 implements
 * UpdateTableSchemaMetadata, AlterTableAlterColumns and AlterTableDropColumns; UpdateFieldMetadata is raw spec JSON):
 * each makes one version through the commit lane, stock Lance reads every one of them, and stock Lance writers
 * (its own commit loop: append, add columns) commit on top.
 */
class SchemaOperationsStockClientTest extends LaneServerFixture {
  private BufferAllocator allocator;
  private RestNamespace namespace;
  private LanceTables lance;
  private final List<String> id = List.of("sales", "orders");

  @BeforeEach
  void table() {
    allocator = new RootAllocator();
    namespace = new RestNamespace();
    namespace.initialize(Map.of("uri", "http://127.0.0.1:" + port), allocator);
    post("/v1/namespace/sales/create", new JsonObject()).ok();
    Path root = tempDir.resolve("warehouse/sales/orders.lance");
    lance = LanceTables.local(root);
    lance.createWithLance(0, 10);
    namespace.registerTable(new RegisterTableRequest().id(id).location(root.toString()));
  }

  @AfterEach
  void close() {
    lance.close();
    namespace.close();
    allocator.close();
  }

  @Test
  void everySchemaOperationIsAVersionStockLanceReadsAndWritesOn() throws Exception {
    // UpdateTableSchemaMetadata replaces the schema metadata
    Map<String, String> stored = namespace.updateTableSchemaMetadata(new UpdateTableSchemaMetadataRequest().id(id)
        .metadata(Map.of("owner", "ana", "team", "sales"))).getMetadata();
    assertThat(stored).containsExactlyInAnyOrderEntriesOf(Map.of("owner", "ana", "team", "sales"));
    stored = namespace.updateTableSchemaMetadata(new UpdateTableSchemaMetadataRequest().id(id)
        .metadata(Map.of("owner", "bo"))).getMetadata();
    assertThat(stored).containsExactlyEntriesOf(Map.of("owner", "bo"));
    assertThat(lance.latestVersion()).isEqualTo(3);

    // UpdateFieldMetadata (raw spec JSON: no stock Java client has it): merge, then delete a key with null
    JsonObject fields = post("/v1/table/sales$orders/update_field_metadata", new JsonObject().put("updates",
        new JsonArray().add(new JsonObject().put("path", "value")
            .put("metadata", new JsonObject().put("pii", "true").put("note", "x"))))).ok();
    assertThat(fields.getLong("version")).isEqualTo(4);
    assertThat(fields.getJsonObject("fields").getMap()).containsExactly(Map.entry("value",
        Map.of("pii", "true", "note", "x")));
    fields = post("/v1/table/sales$orders/update_field_metadata", new JsonObject().put("updates",
        new JsonArray().add(new JsonObject().put("path", "value")
            .put("metadata", new JsonObject().putNull("note"))))).ok();
    assertThat(fields.getJsonObject("fields").getJsonObject("value").getMap()).containsExactly(Map.entry("pii", "true"));

    // a stock Lance writer appends on top of the UpdateConfig versions
    assertThat(lance.appendWithLance(10, 5)).isEqualTo(6);

    // AlterTableAlterColumns: Lance Java 7.0.0's native client cannot send it (it serializes the model's nullable
    // fields as objects and fails on its own request: "invalid type: map, expected a string"), so the stock generated
    // client of the same release sends it
    assertThatThrownBy(() -> namespace.alterTableAlterColumns(new AlterTableAlterColumnsRequest().id(id)
        .alterations(List.of(new AlterColumnsEntry().path("value").rename("label")))))
        .hasMessageContaining("Failed to parse request JSON");
    ApiClient client = new ApiClient();
    client.setBasePath("http://127.0.0.1:" + port);
    assertThat(new TableApi(client).alterTableAlterColumns("sales$orders", new AlterTableAlterColumnsRequest()
        .alterations(List.of(new AlterColumnsEntry().path("value").rename("label"))), null).getVersion())
        .isEqualTo(7);
    try (Dataset ds = lance.open()) {
      assertThat(ds.version()).isEqualTo(7);
      assertThat(ds.getSchema().getFields()).extracting(Field::getName).containsExactly("id", "label");
      assertThat(ds.getSchema().getCustomMetadata()).containsEntry("owner", "bo").doesNotContainKey("team");
      assertThat(ds.getSchema().findField("label").getMetadata()).containsExactly(Map.entry("pii", "true"));
      assertThat(LanceTables.readColumn(ds, "label")).containsExactlyInAnyOrderElementsOf(
          LongStream.range(0, 15).mapToObj(LanceTables::valueOf).toList());
    }

    // stock Lance adds a column (a Merge through its own commit loop) on top of the Project
    try (Dataset ds = lance.open()) {
      ds.addColumns(new SqlExpressions.Builder().withExpression("doubled", "id * 2").build(), Optional.empty());
    }
    assertThat(lance.latestVersion()).isEqualTo(8);

    // AlterTableDropColumns
    var dropped = namespace.alterTableDropColumns(new AlterTableDropColumnsRequest().id(id)
        .columns(List.of("label")));
    assertThat(dropped.getVersion()).isEqualTo(9);
    assertThat(dropped.getTransactionId()).isNotBlank();
    try (Dataset ds = lance.open()) {
      assertThat(ds.getSchema().getFields()).extracting(Field::getName).containsExactly("id", "doubled");
      assertThat(LanceTables.readColumn(ds, "doubled")).containsExactlyInAnyOrderElementsOf(
          LongStream.range(0, 15).mapToObj(i -> (Object) (i * 2)).toList());
      // and Lance itself drops one more on top
      ds.dropColumns(List.of("doubled"));
    }
    try (Dataset ds = lance.open()) {
      assertThat(ds.version()).isEqualTo(10);
      assertThat(ds.getSchema().getFields()).extracting(Field::getName).containsExactly("id");
      assertThat(ds.countRows()).isEqualTo(15);
    }
    // every earlier version still reads
    for (long v = 1; v <= 10; v++) {
      assertThat(lance.countRows(v)).as("rows of version %s", v).isEqualTo(v < 6 ? 10 : 15);
    }
  }

  @Test
  void refusalsUseTheSpecCodesAndChangeNothing() {
    // unknown column: 404/12
    post("/v1/table/sales$orders/drop_columns", new JsonObject().put("columns", new JsonArray().add("nope")))
        .error(404, 12);
    post("/v1/table/sales$orders/update_field_metadata", new JsonObject().put("updates", new JsonArray()
        .add(new JsonObject().put("path", "nope").put("metadata", new JsonObject())))).error(404, 12);
    // a cast and a tightening need data the coordinator does not read: 400/20
    post("/v1/table/sales$orders/alter_columns", new JsonObject().put("alterations", new JsonArray()
        .add(new JsonObject().put("path", "id").put("data_type", new JsonObject().put("type", "int32")))))
        .error(400, 20);
    post("/v1/table/sales$orders/alter_columns", new JsonObject().put("alterations", new JsonArray()
        .add(new JsonObject().put("path", "value").put("nullable", false)))).error(400, 20);
    // renaming onto another column's name, dropping every column, a malformed path: 400/13
    post("/v1/table/sales$orders/alter_columns", new JsonObject().put("alterations", new JsonArray()
        .add(new JsonObject().put("path", "value").put("rename", "id")))).error(400, 13);
    post("/v1/table/sales$orders/drop_columns", new JsonObject().put("columns", new JsonArray().add("id")
        .add("value"))).error(400, 13);
    post("/v1/table/sales$orders/drop_columns", new JsonObject().put("columns", new JsonArray().add("`id")))
        .error(400, 13);
    // the same type named again and the nullability it has are no change to refuse
    assertThat(post("/v1/table/sales$orders/alter_columns", new JsonObject().put("alterations", new JsonArray()
        .add(new JsonObject().put("path", "id").put("data_type", new JsonObject().put("type", "int64"))
            .put("nullable", false)))).ok().getLong("version")).isEqualTo(2);
    // unknown table through the stock client
    assertThatThrownBy(() -> namespace.alterTableDropColumns(new AlterTableDropColumnsRequest()
        .id(List.of("sales", "missing")).columns(List.of("id")))).isInstanceOf(LanceNamespaceException.class);
    assertThat(lance.latestVersion()).isEqualTo(2);
    assertThat(lance.readIds(2)).containsExactlyInAnyOrderElementsOf(new ArrayList<>(
        LongStream.range(0, 10).boxed().toList()));
  }
}
