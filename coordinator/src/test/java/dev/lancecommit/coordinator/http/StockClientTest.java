package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.testing.lance.LanceTables;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.lance.namespace.client.apache.ApiClient;
import org.lance.namespace.client.apache.ApiException;
import org.lance.namespace.client.apache.api.NamespaceApi;
import org.lance.namespace.client.apache.api.TableApi;
import org.lance.namespace.model.CreateNamespaceRequest;
import org.lance.namespace.model.DeclareTableRequest;
import org.lance.namespace.model.DeregisterTableRequest;
import org.lance.namespace.model.DescribeNamespaceRequest;
import org.lance.namespace.model.DescribeTableRequest;
import org.lance.namespace.model.DescribeTableResponse;
import org.lance.namespace.model.DescribeTableVersionRequest;
import org.lance.namespace.model.DropNamespaceRequest;
import org.lance.namespace.model.DropTableResponse;
import org.lance.namespace.model.JsonArrowField;
import org.lance.namespace.model.ListTableVersionsResponse;
import org.lance.namespace.model.ListTablesResponse;
import org.lance.namespace.model.RegisterTableRequest;
import org.lance.namespace.model.RenameTableRequest;
import org.lance.namespace.model.TableExistsRequest;
import org.lance.namespace.model.TableVersion;

/**
 * Drives the server with the stock Lance namespace Java client ({@code org.lance:lance-namespace-apache-client}
 * 0.7.7, the one lance-core ships with): its request encoding and its response models must both work unchanged.
 */
class StockClientTest extends RestServerFixture {
  private NamespaceApi namespaces;
  private TableApi tables;

  @BeforeEach
  void client() {
    ApiClient client = new ApiClient();
    client.setBasePath("http://127.0.0.1:" + port);
    namespaces = new NamespaceApi(client);
    tables = new TableApi(client);
  }

  @Test
  void theWholeLifecycleThroughTheStockClient() throws Exception {
    // create namespace, describe, list
    namespaces.createNamespace("sales", new CreateNamespaceRequest().id(List.of("sales"))
        .properties(Map.of("owner", "ana")), null);
    namespaces.createNamespace("sales$eu", new CreateNamespaceRequest(), null);
    assertThat(namespaces.describeNamespace("sales", new DescribeNamespaceRequest(), null).getProperties())
        .containsEntry("owner", "ana");
    assertThat(namespaces.listNamespaces("$", null, null, null).getNamespaces()).containsExactly("sales");
    assertThat(namespaces.listNamespaces("sales", null, null, null).getNamespaces()).containsExactly("eu");

    // declare, list, describe
    String declared = tables.declareTable("sales$orders", new DeclareTableRequest().id(List.of("sales", "orders")),
        null).getLocation();
    assertThat(declared).isEqualTo(warehouse.resolve("sales/orders.lance").toString());
    tables.tableExists("sales$orders", new TableExistsRequest(), null);
    assertThat(tables.listTables("sales", null, null, null, null).getTables()).containsExactly("orders");
    DescribeTableResponse onlyDeclared = tables.describeTable("sales$orders", new DescribeTableRequest(), null,
        true, false, true);
    assertThat(onlyDeclared.getIsOnlyDeclared()).isTrue();
    assertThat(onlyDeclared.getTableUri()).startsWith("file:");

    // register a real Lance dataset and describe it in detail
    Path data = warehouse.resolve("sales/events.lance");
    try (LanceTables lance = LanceTables.local(data)) {
      lance.createWithLance(0, 7);
      lance.appendWithLance(7, 3);
    }
    assertThat(tables.registerTable("sales$events", new RegisterTableRequest().location(data.toString()), null)
        .getLocation()).isEqualTo(data.toString());
    DescribeTableResponse detailed = tables.describeTable("sales$events", new DescribeTableRequest(), null,
        null, true, null);
    assertThat(detailed.getVersion()).isEqualTo(2L);
    assertThat(detailed.getTable()).isEqualTo("events");
    assertThat(detailed.getNamespace()).containsExactly("sales");
    assertThat(detailed.getSchema().getFields()).extracting(JsonArrowField::getName).containsExactly("id", "value");
    assertThat(detailed.getSchema().getFields()).extracting(f -> f.getType().getType())
        .containsExactly("int64", "utf8");
    assertThat(detailed.getSchema().getFields().get(0).getNullable()).isFalse();
    assertThat(detailed.getStats().getNumFragments()).isEqualTo(2);
    assertThat(detailed.getStats().getNumDeletedRows()).isZero();

    // versions
    ListTableVersionsResponse versions = tables.listTableVersions("sales$events", null, null, 1, true);
    assertThat(versions.getVersions()).extracting(TableVersion::getVersion).containsExactly(2L);
    assertThat(versions.getPageToken()).isNotBlank();
    ListTableVersionsResponse rest = tables.listTableVersions("sales$events", null, versions.getPageToken(), 1, true);
    assertThat(rest.getVersions()).extracting(TableVersion::getVersion).containsExactly(1L);
    assertThat(rest.getPageToken()).isNull();
    TableVersion first = tables.describeTableVersion("sales$events", new DescribeTableVersionRequest().version(1L),
        null).getVersion();
    assertThat(first.getManifestPath()).startsWith(data.resolve("_versions").toString());
    assertThat(Files.size(Path.of(first.getManifestPath()))).isEqualTo(first.getManifestSize());

    // rename, list across namespaces
    tables.renameTable("sales$events", new RenameTableRequest().newTableName("clicks")
        .newNamespaceId(List.of("sales", "eu")), null);
    ListTablesResponse all = tables.listAllTables(null, null, null, null);
    assertThat(all.getTables()).containsExactlyInAnyOrder("sales$eu$clicks", "sales$orders");
    assertThat(tables.describeTable("sales$eu$clicks", new DescribeTableRequest(), null, null, null, null)
        .getLocation()).isEqualTo(data.toString());

    // deregister keeps data; register brings it back
    assertThat(tables.deregisterTable("sales$eu$clicks", new DeregisterTableRequest(), null).getLocation())
        .isEqualTo(data.toString());
    assertThat(tables.listTables("sales$eu", null, null, null, null).getTables()).isEmpty();
    assertThat(Files.list(data.resolve("_versions")).count()).isGreaterThanOrEqualTo(2);
    tables.registerTable("sales$eu$clicks", new RegisterTableRequest().location(data.toString()), null);

    // drop deletes the files
    DropTableResponse dropped = tables.dropTable("sales$eu$clicks", null);
    assertThat(dropped.getId()).containsExactly("sales", "eu", "clicks");
    assertThat(snapshot().keySet()).noneMatch(k -> k.startsWith("sales/events.lance/"));
    tables.dropTable("sales$orders", null);

    // namespaces: restrict, cascade, skip
    namespaces.dropNamespace("sales$eu", new DropNamespaceRequest(), null);
    assertThat(namespaces.listNamespaces("sales", null, null, null).getNamespaces()).isEmpty();
    namespaces.createNamespace("sales$eu", new CreateNamespaceRequest(), null);
    tables.declareTable("sales$eu$t", new DeclareTableRequest(), null);
    namespaces.dropNamespace("sales", new DropNamespaceRequest().behavior("Cascade"), null);
    namespaces.dropNamespace("sales", new DropNamespaceRequest().mode("Skip"), null);
    assertThat(namespaces.listNamespaces("$", null, null, null).getNamespaces()).isEmpty();
  }

  @Test
  void errorsReachTheClientWithTheSpecCodes() {
    assertThatThrownBy(() -> tables.describeTable("nope$t", new DescribeTableRequest(), null, null, null, null))
        .isInstanceOfSatisfying(ApiException.class, e -> {
          assertThat(e.getCode()).isEqualTo(404);
          assertThat(new JsonObject(e.getResponseBody()).getInteger("code")).isEqualTo(4);
        });
    assertThatThrownBy(() -> namespaces.dropNamespace("nope", new DropNamespaceRequest(), null))
        .isInstanceOfSatisfying(ApiException.class, e ->
            assertThat(new JsonObject(e.getResponseBody()).getInteger("code")).isEqualTo(1));
    assertThatThrownBy(() -> tables.renameTable("nope$t", new RenameTableRequest(), null))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.getCode()).isEqualTo(400));
  }
}
