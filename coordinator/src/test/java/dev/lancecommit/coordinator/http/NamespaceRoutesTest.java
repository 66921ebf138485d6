package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NamespaceRoutesTest extends RestServerFixture {

  @Test
  void createThenDescribeAndExists() {
    Reply created = post("/v1/namespace/sales/create", new JsonObject()
        .put("id", new JsonArray().add("sales"))
        .put("properties", new JsonObject().put("owner", "ana")));
    assertThat(created.status()).isEqualTo(200);
    assertThat(created.json()).isEqualTo(new JsonObject().put("properties", new JsonObject().put("owner", "ana")));

    Reply described = post("/v1/namespace/sales/describe", "{}");
    assertThat(described.status()).isEqualTo(200);
    assertThat(described.json().getJsonObject("properties").getString("owner")).isEqualTo("ana");

    Reply exists = post("/v1/namespace/sales/exists", "{\"id\":[\"sales\"]}");
    assertThat(exists.status()).isEqualTo(200);
    assertThat(exists.body()).isEmpty();
    assertThat(snapshot()).containsOnlyKeys(namespaceRevision(1, "sales"));
  }

  @Test
  void createWithoutBodyOrPropertiesGivesEmptyProperties() {
    Reply created = postBytes("/v1/namespace/plain/create", "application/json", new byte[0]);
    assertThat(created.status()).isEqualTo(200);
    assertThat(created.json()).isEqualTo(new JsonObject().put("properties", new JsonObject()));
  }

  @Test
  void createModesAreCaseInsensitiveInBothSpellings() {
    assertThat(post("/v1/namespace/a/create", "{\"mode\":\"CREATE\",\"properties\":{\"v\":\"1\"}}").status())
        .isEqualTo(200);
    post("/v1/namespace/a/create", "{\"mode\":\"create\"}").error(409, 2);
    for (String mode : List.of("ExistOk", "exist_ok", "EXIST_OK", "existok")) {
      Reply reply = post("/v1/namespace/a/create", new JsonObject().put("mode", mode)
          .put("properties", new JsonObject().put("v", "2")));
      assertThat(reply.status()).as(mode).isEqualTo(200);
      assertThat(reply.json().getJsonObject("properties").getString("v")).isEqualTo("1");
    }
    Reply overwritten = post("/v1/namespace/a/create", "{\"mode\":\"overwrite\",\"properties\":{\"v\":\"3\"}}");
    assertThat(overwritten.json().getJsonObject("properties").getString("v")).isEqualTo("3");
  }

  @Test
  void existingNamespaceIsAConflictAndChangesNothing() {
    post("/v1/namespace/a/create", "{\"properties\":{\"v\":\"1\"}}");
    Map<String, String> before = snapshot();

    JsonObject error = post("/v1/namespace/a/create", "{\"properties\":{\"v\":\"2\"}}").error(409, 2);
    assertThat(error.getString("instance")).isEqualTo("/v1/namespace/a/create");
    assertThat(error.getString("error")).contains("'a'");
    assertThat(snapshot()).isEqualTo(before);
  }

  @Test
  void overwriteOfANamespaceWithTablesIsRefused() {
    post("/v1/namespace/a/create", "{}");
    post("/v1/table/a$t/declare", "{}");
    Map<String, String> before = snapshot();
    post("/v1/namespace/a/create", "{\"mode\":\"Overwrite\"}").error(409, 3);
    assertThat(snapshot()).isEqualTo(before);
  }

  @Test
  void nestedNamespacesUseTheDelimiter() {
    post("/v1/namespace/a/create", "{}");
    assertThat(post("/v1/namespace/a$b/create", "{\"id\":[\"a\",\"b\"]}").status()).isEqualTo(200);
    assertThat(post("/v1/namespace/a.c/create?delimiter=.", "{\"id\":[\"a\",\"c\"]}").status()).isEqualTo(200);
    assertThat(post("/v1/namespace/a%24c/exists", "{}").status()).isEqualTo(200);
    assertThat(post("/v1/namespace/a::b/describe?delimiter=::", "{}").status()).isEqualTo(200);
    assertThat(snapshot()).containsOnlyKeys(
        namespaceRevision(1, "a"), namespaceRevision(1, "a", "b"), namespaceRevision(1, "a", "c"));
  }

  @Test
  void missingParentIsNamespaceNotFound() {
    post("/v1/namespace/x$y/create", "{}").error(404, 1);
    assertThat(snapshot()).isEmpty();
  }

  @Test
  void unknownNamespace() {
    JsonObject error = post("/v1/namespace/ghost/describe", "{}").error(404, 1);
    assertThat(error.getString("error")).contains("'ghost'");
    post("/v1/namespace/ghost/exists", "{}").error(404, 1);
  }

  @Test
  void rootNamespaceIsTheDelimiterAlone() {
    Reply described = post("/v1/namespace/$/describe", "{}");
    assertThat(described.status()).isEqualTo(200);
    assertThat(described.json()).isEqualTo(new JsonObject().put("properties", new JsonObject()));
    assertThat(post("/v1/namespace/::/exists?delimiter=::", "{}").status()).isEqualTo(200);
    assertThat(post("/v1/namespace/$/create", "{\"mode\":\"exist_ok\"}").status()).isEqualTo(200);
    post("/v1/namespace/$/create", "{}").error(409, 2);
    assertThat(snapshot()).isEmpty();
  }

  @Test
  void malformedRequestsAreInvalidInputAndWriteNothing() {
    String[][] cases = {
        {"/v1/namespace/a/create", "{not json"},
        {"/v1/namespace/a/create", "[1,2]"},
        // JSON null reads as {}: Lance's Rust REST client sends it when every parameter is in the query
        {"/v1/namespace/a/create", "{\"mode\":\"Sometimes\"}"},
        {"/v1/namespace/a/create", "{\"mode\":7}"},
        {"/v1/namespace/a/create", "{\"properties\":{\"n\":1}}"},
        {"/v1/namespace/a/create", "{\"properties\":[\"x\"]}"},
        {"/v1/namespace/a/create", "{\"id\":\"a\"}"},
        {"/v1/namespace/a/create", "{\"id\":[\"b\"]}"},
        {"/v1/namespace/a/create", "{\"id\":[\"a\",\"b\"]}"},
        {"/v1/namespace/_a/create", "{}"},
        {"/v1/namespace/.a/create", "{}"},
        {"/v1/namespace/a$$b/create", "{}"},
        {"/v1/namespace/a%2Fb/create", "{}"},
        {"/v1/namespace/a/create?delimiter=", "{}"},
        {"/v1/namespace/x.lance/create", "{}"},
        {"/v1/namespace/a/describe", "{\"id\":[\"b\"]}"},
        {"/v1/namespace/a/exists", "{bad"},
    };
    for (String[] c : cases) {
      Reply reply = post(c[0], c[1]);
      assertThat(reply.status()).as("%s %s -> %s", c[0], c[1], reply.body()).isEqualTo(400);
      reply.error(400, 13);
    }
    assertThat(snapshot()).isEmpty();
  }

  @Test
  void errorInstanceIsTheRequestPath() {
    JsonObject error = post("/v1/namespace/a$b/create?delimiter=$", "{\"id\":[\"z\"]}").error(400, 13);
    assertThat(error.getString("instance")).isEqualTo("/v1/namespace/a$b/create");
    assertThat(error.getString("detail")).contains("'a$b'");
  }
}
