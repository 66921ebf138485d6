package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.format.ManifestNaming;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** ListTableVersions and DescribeTableVersion over HTTP, from a {@code _versions/} directory. */
class TableVersionRoutesTest extends RestServerFixture {
  private Path data;

  @BeforeEach
  void table() throws Exception {
    post("/v1/namespace/ns/create", "{}");
    data = fakeVersions("ns/t.lance", ManifestNaming.fileName(ManifestNaming.Scheme.V2, 1), ManifestNaming.fileName(ManifestNaming.Scheme.V2, 2),
        ManifestNaming.fileName(ManifestNaming.Scheme.V2, 3), "latest_version_hint.json");
    for (int v = 1; v <= 3; v++) {
      Path manifest = data.resolve("_versions").resolve(ManifestNaming.fileName(ManifestNaming.Scheme.V2, v));
      Files.write(manifest, new byte[v * 10]);
      Files.setLastModifiedTime(manifest, FileTime.from(Instant.parse("2026-01-0" + v + "T00:00:00Z")));
    }
    assertThat(post("/v1/table/ns$t/register", new JsonObject().put("location", data.toString())).status())
        .isEqualTo(200);
  }

  @Test
  void listVersionsAscendingWithPathsSizesAndTimes() {
    Reply reply = post("/v1/table/ns$t/version/list", "");
    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    JsonArray versions = reply.json().getJsonArray("versions");
    assertThat(reply.json().containsKey("page_token")).isFalse();
    assertThat(versions).hasSize(3);
    assertThat(versions.getJsonObject(0)).isEqualTo(new JsonObject()
        .put("version", 1L)
        .put("manifest_path", data.resolve("_versions").resolve(ManifestNaming.fileName(ManifestNaming.Scheme.V2, 1)).toString())
        .put("manifest_size", 10L)
        .put("timestamp_millis", Instant.parse("2026-01-01T00:00:00Z").toEpochMilli()));
    assertThat(versions.getJsonObject(2).getLong("manifest_size")).isEqualTo(30L);
    assertThat(get("/v1/table/ns$t/version/list").json()).isEqualTo(reply.json());
  }

  @Test
  void listVersionsPagesInEitherOrder() {
    assertThat(versionPages("", 2)).containsExactly(List.of(1L, 2L), List.of(3L));
    assertThat(versionPages("&descending=true", 2)).containsExactly(List.of(3L, 2L), List.of(1L));
    assertThat(versionPages("&descending=true", 1)).containsExactly(List.of(3L), List.of(2L), List.of(1L));
    assertThat(versionPages("", 5)).containsExactly(List.of(1L, 2L, 3L));
  }

  /**
   * The newest version alone (limit=1, newest first: what stock clients ask before every managed-versioning commit)
   * comes from the version hint and one HEAD per step up, not from a listing of every version; without a usable hint
   * it is listed. Older versions follow on the next page either way.
   */
  @Test
  void theNewestVersionAloneIsFoundWithoutListingEveryVersion() throws Exception {
    Path hint = data.resolve("_versions").resolve("latest_version_hint.json");
    for (String content : new String[] {"{\"version\":3}", "{\"version\":1}", "", "{\"version\":7}"}) {
      Files.write(hint, content.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      store.clearOperations();
      Reply reply = post("/v1/table/ns$t/version/list?limit=1&descending=true", "{}");
      assertThat(reply.status()).as(reply.body()).isEqualTo(200);
      assertThat(reply.json().getJsonArray("versions")).singleElement()
          .satisfies(v -> assertThat(((JsonObject) v).getLong("version")).as("hint %s", content).isEqualTo(3L));
      assertThat(reply.json().getString("page_token")).isNotNull();
      boolean listed = store.operations().stream().anyMatch(op -> op.startsWith("list ") && op.contains("_versions"));
      // a hint naming a version that is there is followed up; an empty one, or one naming no version, is listed
      assertThat(listed).as("hint %s", content).isEqualTo(content.isEmpty() || content.contains("7"));
    }
    Files.write(hint, "{\"version\":2}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    assertThat(versionPages("&descending=true", 1)).containsExactly(List.of(3L), List.of(2L), List.of(1L));
  }

  @Test
  void describeAVersion() {
    Reply reply = post("/v1/table/ns$t/version/describe", "{\"version\":2}");
    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.json().getJsonObject("version").getLong("version")).isEqualTo(2L);
    assertThat(reply.json().getJsonObject("version").getString("manifest_path"))
        .endsWith("/_versions/" + ManifestNaming.fileName(ManifestNaming.Scheme.V2, 2));
    assertThat(post("/v1/table/ns$t/version/describe", "{}").json().getJsonObject("version").getLong("version"))
        .isEqualTo(3L);
  }

  @Test
  void refusals() {
    post("/v1/table/ns$t/version/describe", "{\"version\":9}").error(404, 11);
    post("/v1/table/ns$t/version/describe", "{\"version\":-1}").error(400, 13);
    post("/v1/table/ns$t/version/describe", "{\"version\":\"1\"}").error(400, 13);
    post("/v1/table/ns$t/version/describe", "{\"branch\":\"dev\"}").error(501, 0);
    post("/v1/table/ns$ghost/version/describe", "{\"version\":1}").error(404, 4);
    post("/v1/table/ns$ghost/version/list", "{}").error(404, 4);
    post("/v1/table/ns$t/version/list?limit=0", "{}").error(400, 13);
    post("/v1/table/ns$t/version/list?page_token=xyz", "{}").error(400, 13);
    post("/v1/table/ns$t/version/list?descending=sometimes", "{}").error(400, 13);
    post("/v1/table/ns$t/version/list?branch=dev", "{}").error(501, 0);
    post("/v1/table/ns$d/declare", "{}");
    assertThat(post("/v1/table/ns$d/version/list", "{}").json().getJsonArray("versions")).isEmpty();
    post("/v1/table/ns$d/version/describe", "{}").error(404, 11);
  }

  private List<List<Long>> versionPages(String query, int limit) {
    List<List<Long>> pages = new ArrayList<>();
    String token = null;
    do {
      Reply reply = post("/v1/table/ns$t/version/list?limit=" + limit + query
          + (token == null ? "" : "&page_token=" + token), "");
      assertThat(reply.status()).as(reply.body()).isEqualTo(200);
      List<Long> page = new ArrayList<>();
      reply.json().getJsonArray("versions").forEach(v -> page.add(((JsonObject) v).getLong("version")));
      pages.add(page);
      token = reply.json().getString("page_token");
      assertThat(pages).hasSizeLessThan(10);
    } while (token != null);
    return pages;
  }
}
