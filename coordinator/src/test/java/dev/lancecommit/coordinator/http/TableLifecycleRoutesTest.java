package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.coordinator.namespace.TableEntry;
import dev.lancecommit.testing.lance.LanceTables;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** DeregisterTable, DropTable and RenameTable over HTTP. */
class TableLifecycleRoutesTest extends RestServerFixture {

  @BeforeEach
  void namespace() {
    assertThat(post("/v1/namespace/ns/create", "{}").status()).isEqualTo(200);
  }

  private Path registered(String name) {
    Path data = fakeVersions("ns/" + name + ".lance", ManifestNaming.fileName(ManifestNaming.Scheme.V2, 1), ManifestNaming.fileName(ManifestNaming.Scheme.V2, 2));
    Reply reply = post("/v1/table/ns$" + name + "/register",
        new JsonObject().put("location", data.toString()).put("properties", new JsonObject().put("p", "1")));
    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    return data;
  }

  @Test
  void deregisterKeepsDataAndRegisterRestoresTheUuid() throws Exception {
    Path data = registered("t");
    String uuid = catalog.loadTable(List.of("ns", "t")).orElseThrow().tableUuid();

    Reply reply = post("/v1/table/ns$t/deregister", "{\"id\":[\"ns\",\"t\"]}");
    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.json()).isEqualTo(new JsonObject()
        .put("id", new JsonArray().add("ns").add("t"))
        .put("location", data.toString())
        .put("properties", new JsonObject().put("p", "1")));
    post("/v1/table/ns$t/describe", "{}").error(404, 4);
    post("/v1/table/ns$t/deregister", "{}").error(404, 4);
    try (var files = Files.list(data.resolve("_versions"))) {
      assertThat(files.count()).isEqualTo(2);
    }

    assertThat(post("/v1/table/ns$t/register", new JsonObject().put("location", data.toString())).status())
        .isEqualTo(200);
    assertThat(catalog.loadTable(List.of("ns", "t")).orElseThrow().tableUuid()).isEqualTo(uuid);
  }

  @Test
  void dropDeletesTheFilesAndTheEntry() {
    Path data = registered("t");
    Path other = registered("u");
    Map<String, String> otherFiles = filesUnder(other);

    Reply reply = postBytes("/v1/table/ns$t/drop", null, new byte[0]);
    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    assertThat(reply.json().getString("location")).isEqualTo(data.toString());
    assertThat(reply.json().getJsonArray("id")).isEqualTo(new JsonArray().add("ns").add("t"));
    assertThat(filesUnder(data)).isEmpty();
    assertThat(filesUnder(other)).isEqualTo(otherFiles);
    post("/v1/table/ns$t/exists", "{}").error(404, 4);
    post("/v1/table/ns$t/drop", "{}").error(404, 4);
  }

  @Test
  void dropRefusalsChangeNothing() {
    registered("t");
    Map<String, String> before = snapshot();
    post("/v1/table/ns$t/drop", "{\"id\":[\"ns\",\"x\"]}").error(400, 13);
    post("/v1/table/$/drop", "{}").error(400, 13);
    post("/v1/table/ns$t/drop", "[]").error(400, 13);
    post("/v1/table/ghost$t/drop", "{}").error(404, 4);
    assertThat(snapshot()).isEqualTo(before);
  }

  @Test
  void renameWithinAndAcrossNamespaces() {
    Path data = registered("t");
    TableEntry before = catalog.loadTable(List.of("ns", "t")).orElseThrow();

    Reply renamed = post("/v1/table/ns$t/rename", "{\"new_table_name\":\"u\"}");
    assertThat(renamed.status()).as(renamed.body()).isEqualTo(200);
    assertThat(renamed.json()).isEqualTo(new JsonObject());
    post("/v1/table/ns$t/exists", "{}").error(404, 4);
    JsonObject described = post("/v1/table/ns$u/describe", "{}").json();
    assertThat(described.getString("location")).isEqualTo(data.toString());
    assertThat(described.getLong("version")).isEqualTo(2L);

    post("/v1/namespace/archive/create", "{}");
    assertThat(post("/v1/table/ns$u/rename", new JsonObject().put("id", new JsonArray().add("ns").add("u"))
        .put("new_table_name", "old").put("new_namespace_id", new JsonArray().add("archive"))).status())
        .isEqualTo(200);
    TableEntry moved = catalog.loadTable(List.of("archive", "old")).orElseThrow();
    assertThat(moved.tableUuid()).isEqualTo(before.tableUuid());
    assertThat(moved.location()).isEqualTo(before.location());
    assertThat(get("/v1/table").json().getJsonArray("tables")).isEqualTo(new JsonArray().add("archive$old"));
  }

  @Test
  void renameRefusalsChangeNothing() {
    registered("t");
    registered("u");
    Map<String, String> before = snapshot();
    post("/v1/table/ns$t/rename", "{}").error(400, 13);
    post("/v1/table/ns$t/rename", "").error(400, 13);
    post("/v1/table/ns$t/rename", "{\"new_table_name\":7}").error(400, 13);
    post("/v1/table/ns$t/rename", "{\"new_table_name\":\"_x\"}").error(400, 13);
    post("/v1/table/ns$t/rename", "{\"new_table_name\":\"a$b\"}").error(400, 13);
    post("/v1/table/ns$t/rename", "{\"new_table_name\":\"t\"}").error(400, 13);
    post("/v1/table/ns$t/rename", "{\"new_table_name\":\"v\",\"id\":[\"ns\",\"u\"]}").error(400, 13);
    post("/v1/table/ns$t/rename", "{\"new_table_name\":\"v\",\"new_namespace_id\":\"ns\"}").error(400, 13);
    post("/v1/table/ns$t/rename", "{\"new_table_name\":\"u\"}").error(409, 5);
    post("/v1/table/ns$t/rename", "{\"new_table_name\":\"v\",\"new_namespace_id\":[\"ghost\"]}").error(404, 1);
    post("/v1/table/ns$nope/rename", "{\"new_table_name\":\"v\"}").error(404, 4);
    assertThat(snapshot()).isEqualTo(before);
  }

  @Test
  void renamedAndDeregisteredTablesStayOpenableByTheirLocation() {
    Path data = warehouse.resolve("ns/real.lance");
    try (LanceTables lance = LanceTables.local(data)) {
      lance.createWithLance(0, 6);
      assertThat(post("/v1/table/ns$real/register", new JsonObject().put("location", data.toString())).status())
          .isEqualTo(200);
      assertThat(post("/v1/table/ns$real/rename", "{\"new_table_name\":\"renamed\"}").status()).isEqualTo(200);
      assertThat(lance.readIds(1)).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
      assertThat(post("/v1/table/ns$renamed/deregister", "{}").status()).isEqualTo(200);
      assertThat(lance.latestVersion()).isEqualTo(1);
      assertThat(lance.readIds(1)).hasSize(6);
      // and Lance can keep writing to it with no coordinator involved
      assertThat(lance.appendWithLance(6, 2)).isEqualTo(2);
    }
  }

  private Map<String, String> filesUnder(Path dir) {
    Map<String, String> all = snapshot();
    String prefix = warehouse.relativize(dir) + "/";
    Map<String, String> out = new java.util.TreeMap<>();
    all.forEach((k, v) -> {
      if (k.startsWith(prefix)) {
        out.put(k, v);
      }
    });
    return out;
  }
}
