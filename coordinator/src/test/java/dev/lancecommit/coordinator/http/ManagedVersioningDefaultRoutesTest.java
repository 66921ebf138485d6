package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** With {@code managedVersioningByDefault}, tables that do not say otherwise are reported as managed. */
class ManagedVersioningDefaultRoutesTest extends LaneServerFixture {
  @Override
  RestServerOptions.Builder options(RestServerOptions.Builder builder) {
    return builder.managedVersioningByDefault(true);
  }

  @Test
  void tablesAreManagedUnlessTheySayOtherwise() {
    post("/v1/namespace/ns/create", "{}").ok();
    assertThat(post("/v1/table/ns$t/declare", "{}").ok().getBoolean("managed_versioning")).isTrue();
    assertThat(post("/v1/table/ns$u/declare", "{\"properties\":{\"managed_versioning\":\"false\"}}").ok()
        .getBoolean("managed_versioning")).isFalse();
    assertThat(post("/v1/table/ns$t/describe", "{}").ok().getBoolean("managed_versioning")).isTrue();
    assertThat(post("/v1/table/ns$u/describe", "{}").ok().getBoolean("managed_versioning")).isFalse();
  }
}
