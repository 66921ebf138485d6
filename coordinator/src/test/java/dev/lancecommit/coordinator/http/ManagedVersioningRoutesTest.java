package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.coordinator.credentials.StaticCredentialVendor;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The {@code managed_versioning} table property: set at declare or register, inherited from the nearest namespace
 * that sets it, reported by DeclareTable and DescribeTable; a value other than true/false is refused. On this local
 * warehouse a configured vendor has nothing to vend unless asked explicitly, which is then 400/13.
 */
class ManagedVersioningRoutesTest extends LaneServerFixture {
  private final RecordingVendor vendor =
      new RecordingVendor(new StaticCredentialVendor("AK", "SK", "us-east-1", null));

  @Override
  RestServerOptions.Builder options(RestServerOptions.Builder builder) {
    return builder.credentialVendor(vendor);
  }

  @BeforeEach
  void namespaces() {
    post("/v1/namespace/plain/create", "{}").ok();
    post("/v1/namespace/managed/create", "{\"properties\":{\"managed_versioning\":\"true\"}}").ok();
    post("/v1/namespace/managed$eu/create", "{}").ok();
  }

  @Test
  void aTablePropertyTurnsItOnOrOff() {
    assertThat(post("/v1/table/plain$t/declare", "{}").ok().getBoolean("managed_versioning")).isFalse();
    assertThat(post("/v1/table/plain$m/declare", properties("true")).ok().getBoolean("managed_versioning"))
        .isTrue();
    assertThat(describe("plain$t").getBoolean("managed_versioning")).isFalse();
    assertThat(describe("plain$m").getBoolean("managed_versioning")).isTrue();
    assertThat(describe("plain$m").getJsonObject("properties").getString("managed_versioning")).isEqualTo("true");
  }

  @Test
  void tablesInheritItFromTheNearestNamespaceThatSetsIt() {
    JsonObject declared = post("/v1/table/managed$eu$t/declare", "{}").ok();
    assertThat(declared.getBoolean("managed_versioning")).isTrue();
    assertThat(declared.getJsonObject("properties").getString("managed_versioning")).isEqualTo("true");
    assertThat(post("/v1/table/managed$off/declare", properties("false")).ok().getBoolean("managed_versioning"))
        .isFalse();

    // deregister and register again: the namespace still decides
    String location = declared.getString("location");
    fakeDataset(location);
    post("/v1/table/managed$eu$t/deregister", "{}").ok();
    post("/v1/table/managed$eu$t/register", new JsonObject().put("location", location)).ok();
    assertThat(describe("managed$eu$t").getBoolean("managed_versioning")).isTrue();
  }

  @Test
  void aValueOtherThanTrueOrFalseIsRefusedAndDeclaresNothing() {
    post("/v1/table/plain$t/declare", properties("yes")).error(400, 13);
    post("/v1/table/plain$t/describe", "{}").error(404, 4);
  }

  @Test
  void localTablesGetNoCredentialsUnlessAskedAndThenA400() {
    post("/v1/table/plain$t/declare", "{}").ok();

    assertThat(describe("plain$t").getJsonObject("storage_options").getMap()).isEmpty();
    String detail = post("/v1/table/plain$t/describe", "{\"vend_credentials\":true}").error(400, 13)
        .getString("detail");
    assertThat(detail).contains("s3://");
    assertThat(vendor.calls()).hasSize(1);
  }

  private JsonObject describe(String id) {
    return post("/v1/table/" + id + "/describe", "{}").ok();
  }

  private static JsonObject properties(String managed) {
    return new JsonObject().put("properties", new JsonObject().put("managed_versioning", managed));
  }

  /** Makes the location look like a Lance dataset to RegisterTable (a manifest under _versions/). */
  private static void fakeDataset(String location) {
    try {
      java.nio.file.Path versions = java.nio.file.Path.of(location).resolve("_versions");
      java.nio.file.Files.createDirectories(versions);
      java.nio.file.Files.write(versions.resolve("1.manifest"), new byte[] {1});
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
