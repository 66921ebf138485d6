package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.coordinator.auth.AuthConfig;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lance.namespace.client.apache.ApiClient;
import org.lance.namespace.client.apache.ApiException;
import org.lance.namespace.client.apache.api.NamespaceApi;
import org.lance.namespace.client.apache.api.TableApi;
import org.lance.namespace.model.CreateNamespaceRequest;
import org.lance.namespace.model.DeclareTableRequest;

/** The stock client's own API-key and bearer-token settings authenticate against this server. */
class StockClientAuthTest extends RestServerFixture {

  @Override
  RestServerOptions.Builder options() {
    return super.options().accessControl(AuthConfig.parse(Map.of(
        "auth.enabled", "true",
        "auth.principals.ops.token", "ops-token",
        "auth.principals.etl.api-key", "etl-key",
        "auth.grants.ops", "$:admin",
        "auth.grants.etl", "sales:write")).accessControl());
  }

  private ApiClient client() {
    return new ApiClient().setBasePath("http://127.0.0.1:" + port);
  }

  @Test
  void bearerTokenAndApiKeyFromTheStockClient() throws Exception {
    ApiClient ops = client();
    ops.setBearerToken("ops-token");
    new NamespaceApi(ops).createNamespace("sales", new CreateNamespaceRequest(), null);

    ApiClient etl = client();
    etl.setApiKey("etl-key");
    assertThat(new TableApi(etl).declareTable("sales$t", new DeclareTableRequest(), null).getLocation())
        .endsWith("sales/t.lance");
    assertThatThrownBy(() -> new NamespaceApi(etl).createNamespace("hr", new CreateNamespaceRequest(), null))
        .isInstanceOfSatisfying(ApiException.class, e -> {
          assertThat(e.getCode()).isEqualTo(403);
          assertThat(new JsonObject(e.getResponseBody()).getInteger("code")).isEqualTo(15);
        });

    assertThatThrownBy(() -> new TableApi(client()).listAllTables(null, null, null, null))
        .isInstanceOfSatisfying(ApiException.class, e -> {
          assertThat(e.getCode()).isEqualTo(401);
          assertThat(new JsonObject(e.getResponseBody()).getInteger("code")).isEqualTo(16);
        });
  }
}
