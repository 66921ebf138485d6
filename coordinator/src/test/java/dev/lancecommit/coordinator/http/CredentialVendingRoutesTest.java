package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.coordinator.auth.AuthConfig;
import dev.lancecommit.coordinator.credentials.AccessMode;
import dev.lancecommit.coordinator.credentials.CredentialVendingException;
import dev.lancecommit.coordinator.credentials.StaticCredentialVendor;
import dev.lancecommit.coordinator.storage.S3Config;
import dev.lancecommit.testing.S3ProxyFixture;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Vended credentials in DescribeTable/DeclareTable {@code storage_options}, on a warehouse in s3proxy: read-write for
 * callers that may write or commit, read-only for readers, none when asked not to; a credential service that fails
 * is 503/17 and leaves nothing declared; a location credentials cannot be scoped to is 400/13. The vendor runs on the
 * worker threads, never on an event loop.
 */
class CredentialVendingRoutesTest extends LaneServerFixture {
  @RegisterExtension static final S3ProxyFixture S3 = new S3ProxyFixture();
  private static final String[] ADMIN = {"authorization", "Bearer t-admin"};
  private static final String[] ETL = {"x-api-key", "k-etl"};
  private static final String[] READER = {"authorization", "Bearer t-reader"};

  private final String prefix = "vend-" + UUID.randomUUID().toString().substring(0, 8);
  private final StaticCredentialVendor keys =
      new StaticCredentialVendor("AKVENDED", "SKVENDED", "us-east-1", "http://127.0.0.1:9");
  private final RecordingVendor vendor = new RecordingVendor(keys);

  @Override
  String warehouse() {
    return S3.uri(prefix);
  }

  @Override
  S3Config s3Config() {
    return S3.s3Config();
  }

  @Override
  RestServerOptions.Builder options(RestServerOptions.Builder builder) {
    return builder.credentialVendor(vendor).accessControl(AuthConfig.parse(Map.of(
        "auth.enabled", "true",
        "auth.principals.admin.token", "t-admin",
        "auth.principals.etl.api-key", "k-etl",
        "auth.principals.reader.token", "t-reader",
        "auth.grants.admin", "$:admin",
        "auth.grants.etl", "sales:commit,sales:write",
        "auth.grants.reader", "sales$orders:read")).accessControl());
  }

  @BeforeEach
  void content() {
    post("/v1/namespace/sales/create", "{}", ADMIN).ok();
    post("/v1/table/sales$orders/declare", new JsonObject().put("vend_credentials", false), ADMIN).ok();
  }

  @Test
  void describeVendsReadWriteToCommittersAndReadOnlyToReaders() {
    String location = S3.uri(prefix + "/sales/orders.lance");
    Map<String, String> expected = keys.vend("x", location, AccessMode.READ).storageOptions();

    JsonObject asReader = post("/v1/table/sales$orders/describe", "{}", READER).ok();
    JsonObject asEtl = post("/v1/table/sales$orders/describe", "{\"vend_credentials\":true}", ETL).ok();

    assertThat(asReader.getJsonObject("storage_options").getMap()).isEqualTo(expected);
    assertThat(asEtl.getJsonObject("storage_options").getMap()).isEqualTo(expected);
    assertThat(vendor.calls()).extracting(RecordingVendor.Call::principal, RecordingVendor.Call::location,
        RecordingVendor.Call::mode).containsExactly(
            org.assertj.core.groups.Tuple.tuple("reader", location, AccessMode.READ),
            org.assertj.core.groups.Tuple.tuple("etl", location, AccessMode.READ_WRITE));
    assertThat(vendor.calls()).noneMatch(c -> c.thread().contains("eventloop"));
  }

  @Test
  void askingForNoCredentialsVendsNone() {
    JsonObject described = post("/v1/table/sales$orders/describe", "{\"vend_credentials\":false}", ETL).ok();

    assertThat(described.getJsonObject("storage_options").getMap()).isEmpty();
    assertThat(vendor.calls()).isEmpty();
    post("/v1/table/sales$orders/describe", "{\"vend_credentials\":\"yes\"}", ETL).error(400, 13);
  }

  @Test
  void declareVendsForTheNewTable() {
    JsonObject declared = post("/v1/table/sales$returns/declare", "{}", ETL).ok();

    String location = S3.uri(prefix + "/sales/returns.lance");
    assertThat(declared.getString("location")).isEqualTo(location);
    assertThat(declared.getJsonObject("storage_options").getString("aws_access_key_id")).isEqualTo("AKVENDED");
    assertThat(declared.getBoolean("managed_versioning")).isFalse();
    assertThat(vendor.calls()).extracting(RecordingVendor.Call::principal, RecordingVendor.Call::location,
        RecordingVendor.Call::mode)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("etl", location, AccessMode.READ_WRITE));
  }

  @Test
  void aFailingCredentialServiceIs503AndDeclaresNothing() {
    vendor.failWith(new CredentialVendingException("STS refused AssumeRole", null));

    String detail = post("/v1/table/sales$returns/declare", "{}", ETL).error(503, 17).getString("detail");
    assertThat(detail).contains("STS refused AssumeRole");
    post("/v1/table/sales$orders/describe", "{}", ETL).error(503, 17);

    vendor.failWith(null);
    post("/v1/table/sales$returns/describe", "{}", ADMIN).error(404, 4);
    post("/v1/table/sales$returns/declare", "{}", ETL).ok();
  }

  @Test
  void aLocationCredentialsCannotBeScopedToIs400AndDeclaresNothing() {
    String wildcard = S3.uri(prefix + "/sales/re*turns.lance");

    String detail = post("/v1/table/sales$returns/declare", new JsonObject().put("location", wildcard), ETL)
        .error(400, 13).getString("detail");

    assertThat(detail).contains("wildcard");
    post("/v1/table/sales$returns/describe", "{\"vend_credentials\":false}", ADMIN).error(404, 4);
  }
}
