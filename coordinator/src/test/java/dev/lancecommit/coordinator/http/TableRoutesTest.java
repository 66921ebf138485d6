package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.format.ManifestNaming;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TableRoutesTest extends RestServerFixture {

  @BeforeEach
  void namespace() {
    assertThat(post("/v1/namespace/ns/create", "{}").status()).isEqualTo(200);
  }

  // ------------------------------------------------------------ declare

  @Test
  void declareUsesTheDefaultLocation() {
    Reply reply = post("/v1/table/ns$orders/declare", new JsonObject()
        .put("id", new JsonArray().add("ns").add("orders"))
        .put("properties", new JsonObject().put("team", "x")));

    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.json()).isEqualTo(new JsonObject()
        .put("location", warehouse.resolve("ns/orders.lance").toString())
        .put("storage_options", new JsonObject())
        .put("properties", new JsonObject().put("team", "x"))
        .put("managed_versioning", false));
    assertThat(snapshot()).containsOnlyKeys(namespaceRevision(1, "ns"), tableRevision(1, "ns", "orders"),
        LOCATION_REGISTRY_MARKER, locationClaim(1, "ns/orders.lance"));
  }

  @Test
  void declareWithAnExplicitLocation() {
    String location = warehouse.resolve("custom/place").toString();
    Reply reply = post("/v1/table/ns$t/declare", new JsonObject().put("location", location));
    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.json().getString("location")).isEqualTo(location);
  }

  @Test
  void declareRefusals() {
    Map<String, String> before = snapshot();
    post("/v1/table/ghost$t/declare", "{}").error(404, 1);
    post("/v1/table/$/declare", "{}").error(400, 13);
    post("/v1/table/ns$t/declare", "{\"location\":\"/outside/the/warehouse\"}").error(400, 13);
    post("/v1/table/ns$t/declare", "{\"location\":5}").error(400, 13);
    post("/v1/table/ns$t/declare", "{\"id\":[\"ns\",\"other\"]}").error(400, 13);
    post("/v1/table/ns$_t/declare", "{}").error(400, 13);
    post("/v1/table/ns$t/declare", "{oops").error(400, 13);
    assertThat(snapshot()).isEqualTo(before);

    assertThat(post("/v1/table/ns$t/declare", "{}").status()).isEqualTo(200);
    Map<String, String> afterFirst = snapshot();
    post("/v1/table/ns$t/declare", "{}").error(409, 5);
    assertThat(snapshot()).isEqualTo(afterFirst);
  }

  @Test
  void tablesDirectlyUnderTheRoot() {
    Reply reply = post("/v1/table/flat/declare", "{}");
    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.json().getString("location")).isEqualTo(warehouse.resolve("flat.lance").toString());
  }

  // ------------------------------------------------------------ register

  @Test
  void registerAnExistingDataset() {
    Path dataset = fakeVersions("data/events.lance", ManifestNaming.fileName(ManifestNaming.Scheme.V2, 1), ManifestNaming.fileName(ManifestNaming.Scheme.V2, 2));
    Reply reply = post("/v1/table/ns$events/register", new JsonObject()
        .put("location", dataset.toString())
        .put("properties", new JsonObject().put("p", "1")));

    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.json()).isEqualTo(new JsonObject()
        .put("location", dataset.toString())
        .put("properties", new JsonObject().put("p", "1")));
    assertThat(snapshot()).containsKey(tableRevision(1, "ns", "events"));
  }

  @Test
  void registerRefusals() {
    Path empty = fakeVersions("empty.lance", "latest_version_hint.json");
    Map<String, String> before = snapshot();
    post("/v1/table/ns$t/register", "{}").error(400, 13);
    post("/v1/table/ns$t/register", new JsonObject().put("location", empty.toString())).error(400, 13);
    post("/v1/table/ns$t/register", new JsonObject().put("location", warehouse.resolve("nothing").toString()))
        .error(400, 13);
    post("/v1/table/ns$t/register", "{\"location\":\"s3://elsewhere/t\"}").error(400, 13);
    Path real = fakeVersions("real.lance", "1.manifest");
    before = snapshot();
    post("/v1/table/ns$t/register", new JsonObject().put("location", real.toString()).put("mode", "exist_ok"))
        .error(400, 13);
    post("/v1/table/ghost$t/register", new JsonObject().put("location", real.toString())).error(404, 1);
    assertThat(snapshot()).isEqualTo(before);

    assertThat(post("/v1/table/ns$t/register", new JsonObject().put("location", real.toString())).status())
        .isEqualTo(200);
    Map<String, String> registered = snapshot();
    post("/v1/table/ns$t/register", new JsonObject().put("location", real.toString()).put("mode", "Create"))
        .error(409, 5);
    assertThat(snapshot()).isEqualTo(registered);

    Reply overwritten = post("/v1/table/ns$t/register", new JsonObject()
        .put("location", real.toString()).put("mode", "OVERWRITE").put("properties", new JsonObject().put("a", "b")));
    assertThat(overwritten.status()).isEqualTo(200);
    assertThat(overwritten.json().getJsonObject("properties").getString("a")).isEqualTo("b");
  }

  // ------------------------------------------------------------ describe / exists

  @Test
  void describeReportsTheLatestVersionOfEitherNamingScheme() {
    Path v1 = fakeVersions("v1.lance", "1.manifest", "2.manifest", "12.manifest", ".tmp_13.manifest_x");
    Path v2 = fakeVersions("v2.lance", ManifestNaming.fileName(ManifestNaming.Scheme.V2, 1), ManifestNaming.fileName(ManifestNaming.Scheme.V2, 7),
        "latest_version_hint.json");
    post("/v1/table/ns$one/register", new JsonObject().put("location", v1.toString()));
    post("/v1/table/ns$two/register", new JsonObject().put("location", v2.toString()));

    Reply one = post("/v1/table/ns$one/describe", "{}");
    assertThat(one.status()).isEqualTo(200);
    assertThat(one.json()).isEqualTo(new JsonObject()
        .put("location", v1.toString())
        .put("storage_options", new JsonObject())
        .put("properties", new JsonObject())
        .put("managed_versioning", false)
        .put("version", 12L));
    assertThat(post("/v1/table/ns$two/describe", "{}").json().getLong("version")).isEqualTo(7L);

    // a new manifest is seen by the next describe
    fakeVersions("v2.lance", ManifestNaming.fileName(ManifestNaming.Scheme.V2, 8));
    assertThat(post("/v1/table/ns$two/describe", "{}").json().getLong("version")).isEqualTo(8L);
  }

  @Test
  void describeQueryOptions() {
    post("/v1/table/ns$t/declare", "{}");
    Reply plain = post("/v1/table/ns$t/describe", "{}");
    assertThat(plain.json().containsKey("version")).isFalse();
    assertThat(plain.json().containsKey("is_only_declared")).isFalse();
    assertThat(plain.json().containsKey("table_uri")).isFalse();

    Reply checked = post("/v1/table/ns$t/describe?check_declared=true&with_table_uri=true", "{}");
    assertThat(checked.json().getBoolean("is_only_declared")).isTrue();
    assertThat(checked.json().getString("table_uri"))
        .isEqualTo(warehouse.resolve("ns/t.lance").toUri().toString().replaceAll("/$", ""));

    Reply detailed = post("/v1/table/ns$t/describe?load_detailed_metadata=TRUE", "{}");
    assertThat(detailed.json().getString("table")).isEqualTo("t");
    assertThat(detailed.json().getJsonArray("namespace")).isEqualTo(new JsonArray().add("ns"));
    assertThat(detailed.json().getBoolean("is_only_declared")).isTrue();

    fakeVersions("ns/t.lance", "1.manifest");
    Reply written = post("/v1/table/ns$t/describe?check_declared=true", "{}");
    assertThat(written.json().getBoolean("is_only_declared")).isFalse();
    assertThat(written.json().getLong("version")).isEqualTo(1L);

    // the spec puts these flags in the query; a body field is honoured when the query has none
    assertThat(post("/v1/table/ns$t/describe", "{\"check_declared\":true}").json().getBoolean("is_only_declared"))
        .isFalse();
  }

  @Test
  void describeAVersion() {
    Path dataset = fakeVersions("ds.lance", "1.manifest", "2.manifest", "3.manifest");
    post("/v1/table/ns$t/register", new JsonObject().put("location", dataset.toString()));

    assertThat(post("/v1/table/ns$t/describe", "{\"version\":2}").json().getLong("version")).isEqualTo(2L);
    post("/v1/table/ns$t/describe", "{\"version\":9}").error(404, 11);
    post("/v1/table/ns$t/describe", "{\"version\":-1}").error(400, 13);
    post("/v1/table/ns$t/describe", "{\"version\":\"2\"}").error(400, 13);
    post("/v1/table/ns$t/describe", "{\"version\":1.5}").error(400, 13);
  }

  @Test
  void describeRefusals() {
    post("/v1/table/ns$t/declare", "{}");
    post("/v1/table/ns$ghost/describe", "{}").error(404, 4);
    post("/v1/table/ghost$t/describe", "{}").error(404, 4);
    post("/v1/table/ns$t/describe?with_table_uri=maybe", "{}").error(400, 13);
    post("/v1/table/ns$t/describe", "{\"id\":[\"ns\",\"x\"]}").error(400, 13);
    post("/v1/table/ns$t/describe", "{\"tag\":\"v1\"}").error(501, 0);
    post("/v1/table/ns$t/describe", "{\"branch\":\"dev\"}").error(501, 0);
    post("/v1/table/$/describe", "{}").error(400, 13);
  }

  @Test
  void tableExists() {
    Path dataset = fakeVersions("ds.lance", "1.manifest");
    post("/v1/table/ns$t/register", new JsonObject().put("location", dataset.toString()));
    post("/v1/table/ns$d/declare", "{}");

    Reply exists = post("/v1/table/ns$t/exists", "{}");
    assertThat(exists.status()).isEqualTo(200);
    assertThat(exists.body()).isEmpty();
    assertThat(post("/v1/table/ns$d/exists", "{}").status()).isEqualTo(200);
    assertThat(post("/v1/table/ns.t/exists?delimiter=.", "{\"id\":[\"ns\",\"t\"]}").status()).isEqualTo(200);
    assertThat(post("/v1/table/ns$t/exists", "{\"version\":1}").status()).isEqualTo(200);
    post("/v1/table/ns$t/exists", "{\"version\":2}").error(404, 11);
    post("/v1/table/ns$nope/exists", "{}").error(404, 4);
    post("/v1/table/ns$t/exists", "{\"id\":[\"t\"]}").error(400, 13);
    post("/v1/table/ns$t/exists", "[]").error(400, 13);
  }
}
