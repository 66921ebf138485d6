package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.format.ManifestNaming;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** ListNamespaces, ListTables and ListAllTables over HTTP. */
class ListingRoutesTest extends RestServerFixture {

  @BeforeEach
  void content() {
    for (String ns : List.of("sales", "hr", "ops")) {
      assertThat(post("/v1/namespace/" + ns + "/create", "{}").status()).isEqualTo(200);
    }
    post("/v1/namespace/sales$eu/create", "{}");
    post("/v1/namespace/sales$us/create", "{}");
    for (String t : List.of("sales$orders", "sales$returns", "sales$eu$vat", "hr$people", "flat")) {
      assertThat(post("/v1/table/" + t + "/declare", "{}").status()).isEqualTo(200);
    }
  }

  @Test
  void listNamespaces() {
    Reply root = get("/v1/namespace/$/list");
    assertThat(root.status()).isEqualTo(200);
    assertThat(root.json()).isEqualTo(new JsonObject().put("namespaces", new JsonArray().add("hr").add("ops")
        .add("sales")));
    assertThat(get("/v1/namespace/sales/list").json().getJsonArray("namespaces"))
        .isEqualTo(new JsonArray().add("eu").add("us"));
    assertThat(get("/v1/namespace/sales.eu/list?delimiter=.").json().getJsonArray("namespaces")).isEmpty();
  }

  @Test
  void listNamespacesPages() {
    assertThat(pages("/v1/namespace/$/list", "namespaces", 2))
        .containsExactly(List.of("hr", "ops"), List.of("sales"));
    assertThat(pages("/v1/namespace/$/list", "namespaces", 1))
        .containsExactly(List.of("hr"), List.of("ops"), List.of("sales"));
    assertThat(pages("/v1/namespace/$/list", "namespaces", 3)).containsExactly(List.of("hr", "ops", "sales"));
  }

  @Test
  void listTables() {
    Reply sales = get("/v1/namespace/sales/table/list");
    assertThat(sales.status()).isEqualTo(200);
    assertThat(sales.json()).isEqualTo(new JsonObject().put("tables", new JsonArray().add("orders").add("returns")));
    assertThat(get("/v1/namespace/$/table/list").json().getJsonArray("tables")).isEqualTo(new JsonArray().add("flat"));
    assertThat(pages("/v1/namespace/sales/table/list", "tables", 1))
        .containsExactly(List.of("orders"), List.of("returns"));

    // include_declared=false keeps only tables with a version on storage
    fakeVersions("sales/returns.lance", ManifestNaming.fileName(ManifestNaming.Scheme.V2, 1));
    assertThat(get("/v1/namespace/sales/table/list?include_declared=false").json().getJsonArray("tables"))
        .isEqualTo(new JsonArray().add("returns"));
    assertThat(get("/v1/namespace/sales/table/list?include_declared=TRUE").json().getJsonArray("tables"))
        .hasSize(2);
  }

  @Test
  void listAllTables() {
    Reply all = get("/v1/table");
    assertThat(all.status()).isEqualTo(200);
    assertThat(all.json()).isEqualTo(new JsonObject().put("tables", new JsonArray()
        .add("flat").add("hr$people").add("sales$eu$vat").add("sales$orders").add("sales$returns")));
    assertThat(get("/v1/table?delimiter=.").json().getJsonArray("tables").getString(2)).isEqualTo("sales.eu.vat");
    assertThat(pages("/v1/table", "tables", 2)).containsExactly(
        List.of("flat", "hr$people"), List.of("sales$eu$vat", "sales$orders"), List.of("sales$returns"));
    post("/v1/table/sales$orders/deregister", "{}");
    assertThat(get("/v1/table").json().getJsonArray("tables")).hasSize(4).doesNotContain("sales$orders");
  }

  @Test
  void listingRefusals() {
    get("/v1/namespace/ghost/list").error(404, 1);
    get("/v1/namespace/ghost/table/list").error(404, 1);
    get("/v1/namespace/$/list?limit=0").error(400, 13);
    get("/v1/namespace/$/list?limit=-3").error(400, 13);
    get("/v1/namespace/$/list?limit=two").error(400, 13);
    get("/v1/namespace/$/list?page_token=%21%21").error(400, 13);
    get("/v1/table?page_token=bm90LWEtdG9rZW4").error(400, 13);
    get("/v1/namespace/$/table/list?include_declared=maybe").error(400, 13);
    get("/v1/namespace/_x/list").error(400, 13);
    // a token of one listing is not accepted by another
    String nsToken = get("/v1/namespace/$/list?limit=1").json().getString("page_token");
    get("/v1/namespace/$/table/list?page_token=" + nsToken).error(400, 13);
    get("/v1/table?page_token=" + nsToken).error(400, 13);
    assertThat(get("/v1/namespace/$/list?page_token=").json().getJsonArray("namespaces")).hasSize(3);
  }

  @Test
  void listingsWriteNothing() {
    Map<String, String> before = snapshot();
    get("/v1/namespace/$/list");
    get("/v1/namespace/sales/table/list");
    get("/v1/table");
    assertThat(snapshot()).isEqualTo(before);
  }

  /** Follows page_token until the listing ends; each element is one page. */
  private List<List<String>> pages(String path, String field, int limit) {
    List<List<String>> pages = new ArrayList<>();
    String token = null;
    do {
      String sep = path.contains("?") ? "&" : "?";
      Reply reply = get(path + sep + "limit=" + limit + (token == null ? "" : "&page_token=" + token));
      assertThat(reply.status()).as(reply.body()).isEqualTo(200);
      List<String> page = new ArrayList<>();
      reply.json().getJsonArray(field).forEach(o -> page.add((String) o));
      pages.add(page);
      token = reply.json().getString("page_token");
      assertThat(pages).as("runaway paging").hasSizeLessThan(20);
    } while (token != null);
    return pages;
  }
}
