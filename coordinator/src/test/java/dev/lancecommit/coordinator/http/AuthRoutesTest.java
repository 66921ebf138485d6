package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.coordinator.auth.AuthConfig;
import dev.lancecommit.coordinator.commit.CommitResult;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Authentication (401/16), grants (403/15), filtered listings and the commit actor, over HTTP. */
class AuthRoutesTest extends RestServerFixture {
  private static final String[] ADMIN = {"Authorization", "Bearer t-admin"};
  private static final String[] ETL = {"x-api-key", "k-etl"};
  private static final String[] READER = {"Authorization", "Bearer t-reader"};
  private static final String[] NOBODY = {"x-api-key", "k-nobody"};
  private static final String TXN = Base64.getEncoder().encodeToString(new byte[] {0x08, 0x01});

  @Override
  RestServerOptions.Builder options() {
    return super.options().accessControl(AuthConfig.parse(Map.of(
        "auth.enabled", "true",
        "auth.principals.admin.token", "t-admin",
        "auth.principals.etl.api-key", "k-etl",
        "auth.principals.reader.token", "t-reader",
        "auth.principals.nobody.api-key", "k-nobody",
        "auth.grants.admin", "$:admin",
        "auth.grants.etl", "sales:commit,sales:write",
        "auth.grants.reader", "sales$orders:read")).accessControl());
  }

  @BeforeEach
  void content() {
    for (String ns : List.of("sales", "hr")) {
      assertThat(as(ADMIN, "POST", "/v1/namespace/" + ns + "/create", "{}").status()).isEqualTo(200);
    }
    for (String t : List.of("sales$orders", "sales$returns", "hr$people")) {
      assertThat(as(ADMIN, "POST", "/v1/table/" + t + "/declare", "{}").status()).isEqualTo(200);
    }
  }

  private Reply as(String[] who, String method, String path, String json) {
    return request(method, path, json, who);
  }

  @Test
  void missingOrBadCredentialsAre401AndWriteNothing() {
    var before = snapshot();
    Reply none = post("/v1/namespace/x/create", "{}");
    none.error(401, 16);
    assertThat(none.headers().get("www-authenticate")).startsWith("Bearer");
    as(new String[] {"x-api-key", "wrong"}, "POST", "/v1/namespace/x/create", "{}").error(401, 16);
    as(new String[] {"Authorization", "Bearer wrong"}, "POST", "/v1/namespace/x/create", "{}").error(401, 16);
    as(new String[] {"Authorization", "Basic YTpi"}, "POST", "/v1/namespace/x/create", "{}").error(401, 16);
    // an API key is not a bearer token
    as(new String[] {"Authorization", "Bearer k-etl"}, "GET", "/v1/table", null).error(401, 16);
    // credentials of two different principals
    request("GET", "/v1/table", null, "x-api-key", "k-etl", "Authorization", "Bearer t-reader").error(401, 16);
    get("/v1/table").error(401, 16);
    get("/v2/unknown").error(401, 16);
    post("/v1/table/sales$orders/restore", "{}").error(401, 16);
    assertThat(snapshot()).isEqualTo(before);
    assertThat(commits.calls()).isEmpty();
  }

  @Test
  void theHealthProbeNeedsNoCredentialsAndSaysNothingAboutTables() {
    Reply health = get("/healthz");
    assertThat(health.status()).isEqualTo(200);
    assertThat(health.json()).isEqualTo(new JsonObject().put("status", "ok").put("events", "disabled"));
    get("/healthz/../v1/table").error(401, 16);
  }

  @Test
  void withoutAGrantRequestsAre403AndWriteNothing() {
    var before = snapshot();
    as(NOBODY, "POST", "/v1/namespace/x/create", "{}").error(403, 15);
    as(ETL, "POST", "/v1/namespace/x/create", "{}").error(403, 15);
    as(ETL, "POST", "/v1/table/hr$t/declare", "{}").error(403, 15);
    as(ETL, "POST", "/v1/table/sales$orders/drop", "{}").error(403, 15);
    as(ETL, "POST", "/v1/table/sales$orders/deregister", "{}").error(403, 15);
    as(ETL, "POST", "/v1/table/sales$orders/rename", "{\"new_table_name\":\"o2\"}").error(403, 15);
    as(ETL, "POST", "/v1/namespace/sales/drop", "{}").error(403, 15);
    as(ETL, "POST", "/v1/namespace/sales/create", "{\"mode\":\"overwrite\"}").error(403, 15);
    as(READER, "POST", "/v1/table/sales$t/declare", "{}").error(403, 15);
    as(READER, "POST", "/v1/table/sales$orders/commit", "{\"transaction\":\"" + TXN + "\"}").error(403, 15);
    as(READER, "POST", "/v1/table/sales$returns/describe", "{}").error(403, 15);
    // no existence oracle: a table the caller may not read is 403 whether or not it exists
    as(READER, "POST", "/v1/table/sales$ghost/exists", "{}").error(403, 15);
    as(READER, "POST", "/v1/table/hr$people/exists", "{}").error(403, 15);
    as(READER, "GET", "/v1/namespace/hr/table/list", null).error(403, 15);
    as(NOBODY, "GET", "/v1/namespace/$/list", null).error(403, 15);
    assertThat(snapshot()).isEqualTo(before);
    assertThat(commits.calls()).isEmpty();
  }

  @Test
  void aCloneNeedsReadOnItsSourceTableOrAdminForALocationNoTableHolds() {
    commits.answerWith(new CommitResult(2, 0, "u", "m", "Clone"));
    String people = new JsonObject(as(ADMIN, "POST", "/v1/table/hr$people/describe", "{}").body())
        .getString("location");
    String orders = new JsonObject(as(ADMIN, "POST", "/v1/table/sales$orders/describe", "{}").body())
        .getString("location");

    as(ETL, "POST", "/v1/table/sales$returns/commit", clone(people)).error(403, 15);
    as(ETL, "POST", "/v1/table/sales$returns/commit", clone(people + "/tree/dev")).error(403, 15);
    as(ETL, "POST", "/v1/table/sales$returns/commit", clone("/somewhere/else.lance")).error(403, 15);
    assertThat(commits.calls()).isEmpty();

    assertThat(as(ETL, "POST", "/v1/table/sales$returns/commit", clone(orders)).status()).isEqualTo(200);
    assertThat(as(ADMIN, "POST", "/v1/table/sales$returns/commit", clone("/somewhere/else.lance")).status())
        .isEqualTo(200);
    assertThat(commits.calls()).hasSize(2);
  }

  private static String clone(String refPath) {
    byte[] txn = dev.lancecommit.format.pb.Transaction.newBuilder().setUuid(java.util.UUID.randomUUID().toString())
        .setClone(dev.lancecommit.format.pb.Transaction.Clone.newBuilder().setIsShallow(true).setRefVersion(2)
            .setRefPath(refPath)).build().toByteArray();
    return "{\"transaction\":\"" + Base64.getEncoder().encodeToString(txn) + "\"}";
  }

  @Test
  void verifyingATableNeedsTheAdminGrant() {
    as(ETL, "POST", "/v1/table/sales$orders/verify", "{}").error(403, 15);
    as(READER, "POST", "/v1/table/sales$orders/verify", "{}").error(403, 15);
    // past the grant (this server reaches no table storage, so it cannot verify anything)
    as(ADMIN, "POST", "/v1/table/sales$orders/verify", "{}").error(501, 0);
  }

  @Test
  void grantsAllowWhatTheyCover() {
    assertThat(as(ETL, "POST", "/v1/namespace/sales$eu/create", "{}").status()).isEqualTo(200);
    assertThat(as(ETL, "POST", "/v1/table/sales$eu$vat/declare", "{}").status()).isEqualTo(200);
    assertThat(as(ETL, "POST", "/v1/table/sales$eu$vat/describe", "{}").status()).isEqualTo(200);
    assertThat(as(READER, "POST", "/v1/table/sales$orders/describe", "{}").status()).isEqualTo(200);
    assertThat(as(READER, "POST", "/v1/table/sales$orders/version/list", "{}").status()).isEqualTo(200);
    assertThat(as(READER, "POST", "/v1/namespace/sales/exists", "{}").status()).isEqualTo(200);
    as(READER, "POST", "/v1/namespace/sales/describe", "{}").error(403, 15);
    assertThat(as(ADMIN, "POST", "/v1/table/sales$returns/rename", "{\"new_table_name\":\"refunds\"}").status())
        .isEqualTo(200);
    assertThat(as(ADMIN, "POST", "/v1/table/sales$refunds/drop", "{}").status()).isEqualTo(200);
  }

  @Test
  void listingsShowOnlyWhatTheCallerMaySee() {
    as(ADMIN, "POST", "/v1/namespace/sales$eu/create", "{}");
    as(ADMIN, "POST", "/v1/namespace/hr$private/create", "{}");

    assertThat(as(READER, "GET", "/v1/namespace/$/list", null).json().getJsonArray("namespaces"))
        .isEqualTo(new JsonArray().add("sales"));
    assertThat(as(READER, "GET", "/v1/namespace/sales/list", null).json().getJsonArray("namespaces")).isEmpty();
    assertThat(as(READER, "GET", "/v1/namespace/sales/table/list", null).json().getJsonArray("tables"))
        .isEqualTo(new JsonArray().add("orders"));
    assertThat(as(READER, "GET", "/v1/table", null).json().getJsonArray("tables"))
        .isEqualTo(new JsonArray().add("sales$orders"));

    assertThat(as(ETL, "GET", "/v1/namespace/$/list", null).json().getJsonArray("namespaces"))
        .isEqualTo(new JsonArray().add("sales"));
    assertThat(as(ETL, "GET", "/v1/namespace/sales/list", null).json().getJsonArray("namespaces"))
        .isEqualTo(new JsonArray().add("eu"));
    assertThat(as(ETL, "GET", "/v1/table", null).json().getJsonArray("tables"))
        .isEqualTo(new JsonArray().add("sales$orders").add("sales$returns"));

    assertThat(as(ADMIN, "GET", "/v1/table", null).json().getJsonArray("tables")).hasSize(3);
    assertThat(as(ADMIN, "GET", "/v1/namespace/$/list", null).json().getJsonArray("namespaces"))
        .isEqualTo(new JsonArray().add("hr").add("sales"));
  }

  @Test
  void theAuthenticatedPrincipalIsTheCommitActor() {
    commits.answerWith(new CommitResult(1, 0, "u", "m", "Append"));
    Reply byKey = as(ETL, "POST", "/v1/table/sales$orders/commit", "{\"transaction\":\"" + TXN + "\"}");
    assertThat(byKey.status()).as(byKey.body()).isEqualTo(200);
    Reply byToken = request("POST", "/v1/table/sales$orders/commit", "{\"transaction\":\"" + TXN + "\"}",
        "Authorization", "Bearer t-admin");
    assertThat(byToken.status()).isEqualTo(200);

    assertThat(commits.calls()).extracting(call -> call.request().actor()).containsExactly("etl", "admin");
    assertThat(commits.calls().get(0).table().id()).isEqualTo(List.of("sales", "orders"));
  }
}
