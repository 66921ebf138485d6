package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.format.ManifestNaming;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** DropNamespace over HTTP: modes, behaviors, refusals. */
class NamespaceDropRoutesTest extends RestServerFixture {

  @Test
  void dropAnEmptyNamespace() {
    post("/v1/namespace/a/create", "{\"properties\":{\"owner\":\"ana\"}}");
    Reply dropped = post("/v1/namespace/a/drop", "{}");
    assertThat(dropped.status()).isEqualTo(200);
    assertThat(dropped.json()).isEqualTo(new JsonObject().put("properties", new JsonObject().put("owner", "ana")));
    post("/v1/namespace/a/exists", "{}").error(404, 1);
    assertThat(post("/v1/namespace/a/create", "{}").status()).isEqualTo(200);
  }

  @Test
  void modesForAMissingNamespace() {
    post("/v1/namespace/ghost/drop", "{}").error(404, 1);
    post("/v1/namespace/ghost/drop", "{\"mode\":\"FAIL\"}").error(404, 1);
    Reply skipped = post("/v1/namespace/ghost/drop", "{\"mode\":\"Skip\"}");
    assertThat(skipped.status()).isEqualTo(204);
    assertThat(skipped.body()).isEmpty();
    assertThat(snapshot()).isEmpty();
  }

  @Test
  void restrictRefusesContentAndCascadeDeregistersKeepingData() throws Exception {
    post("/v1/namespace/a/create", "{}");
    post("/v1/namespace/a$b/create", "{}");
    Path data = fakeVersions("a/b/t.lance", ManifestNaming.fileName(ManifestNaming.Scheme.V2, 1));
    post("/v1/table/a$b$t/register", new JsonObject().put("location", data.toString()));
    String uuid = catalog.loadTable(java.util.List.of("a", "b", "t")).orElseThrow().tableUuid();
    Map<String, String> before = snapshot();

    post("/v1/namespace/a/drop", "{}").error(409, 3);
    post("/v1/namespace/a/drop", "{\"behavior\":\"restrict\"}").error(409, 3);
    assertThat(snapshot()).isEqualTo(before);

    assertThat(post("/v1/namespace/a/drop", "{\"behavior\":\"Cascade\"}").status()).isEqualTo(200);
    post("/v1/namespace/a$b/exists", "{}").error(404, 1);
    post("/v1/table/a$b$t/exists", "{}").error(404, 4);
    assertThat(Files.exists(data.resolve("_versions").resolve(ManifestNaming.fileName(ManifestNaming.Scheme.V2, 1)))).isTrue();

    post("/v1/namespace/a/create", "{}");
    post("/v1/namespace/a$b/create", "{}");
    post("/v1/table/a$b$t/register", new JsonObject().put("location", data.toString()));
    assertThat(catalog.loadTable(java.util.List.of("a", "b", "t")).orElseThrow().tableUuid()).isEqualTo(uuid);
  }

  @Test
  void malformedDropsChangeNothing() {
    post("/v1/namespace/a/create", "{}");
    Map<String, String> before = snapshot();
    post("/v1/namespace/a/drop", "{\"mode\":\"Sometimes\"}").error(400, 13);
    post("/v1/namespace/a/drop", "{\"behavior\":\"Explode\"}").error(400, 13);
    post("/v1/namespace/a/drop", "{\"behavior\":1}").error(400, 13);
    post("/v1/namespace/a/drop", "{\"id\":[\"b\"]}").error(400, 13);
    post("/v1/namespace/a/drop", "{bad").error(400, 13);
    post("/v1/namespace/$/drop", "{}").error(400, 13);
    post("/v1/namespace/_a/drop", "{}").error(400, 13);
    assertThat(snapshot()).isEqualTo(before);
  }
}
