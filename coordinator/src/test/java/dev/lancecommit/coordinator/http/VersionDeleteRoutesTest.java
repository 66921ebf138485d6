package dev.lancecommit.coordinator.http;

import static dev.lancecommit.coordinator.http.TagRoutesTest.range;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.testing.lance.LanceTables;
import dev.lancecommit.client.lance.TransactionFactory;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * BatchDeleteTableVersions over HTTP: version records go in ranges, never the latest or a tagged one; listing,
 * describing and stock Lance stop showing them; data files stay (they are the retention cleanup's).
 */
class VersionDeleteRoutesTest extends LaneServerFixture {
  private static final String DELETE = "/v1/table/ns$t/version/delete";
  private Path root;
  private LanceTables lance;

  @BeforeEach
  void tableWithSixVersions() {
    post("/v1/namespace/ns/create", "{}").ok();
    root = Path.of(post("/v1/table/ns$t/declare", "{}").ok().getString("location"));
    lance = LanceTables.local(root);
    commit(TransactionFactory.create(LanceProtos.schema(LanceTables.ROW_SCHEMA),
        LanceProtos.fragments(lance.writeRows(0, 5))));
    for (long v = 1; v <= 5; v++) {
      commit(TransactionFactory.append(v, LanceProtos.fragments(lance.writeRows(5 * v, 5))));
    }
  }

  @AfterEach
  void closeLance() {
    lance.close();
  }

  @Test
  void deletesRecordsInRangesAndListingsStopShowingThem() throws Exception {
    post("/v1/table/ns$t/tags/create", new JsonObject().put("tag", "keep").put("version", 3)).ok();
    Map<String, Long> dataBefore = files("data");

    JsonObject deleted = post(DELETE, ranges(span(1, 3), span(4, 5))).ok();

    assertThat(deleted).isEqualTo(new JsonObject().put("deleted_count", 3L));
    assertThat(versions()).containsExactly(3L, 5L, 6L);
    post("/v1/table/ns$t/version/describe", new JsonObject().put("version", 1)).error(404, 11);
    assertThat(lance.versions()).containsExactly(3L, 5L, 6L);
    assertThat(lance.readIds(3)).containsExactlyInAnyOrderElementsOf(range(0, 15));
    assertThat(lance.readIds(6)).containsExactlyInAnyOrderElementsOf(range(0, 30));
    assertThat(files("data")).isEqualTo(dataBefore); // records only: the files are the cleanup's

    // ranges naming what is gone already delete nothing; writers go on from the latest
    assertThat(post(DELETE, ranges(span(0, 3))).ok().getLong("deleted_count")).isZero();
    commit(TransactionFactory.append(6, LanceProtos.fragments(lance.writeRows(100, 1))));
    assertThat(lance.readIds(7)).hasSize(31);
  }

  @Test
  void neverTheLatestNorATaggedVersionAndARefusedRequestDeletesNothing() {
    post("/v1/table/ns$t/tags/create", new JsonObject().put("tag", "keep").put("version", 2)).ok();
    String latest = post(DELETE, ranges(span(0, -1))).error(400, 13).getString("detail");
    assertThat(latest).contains("latest");
    assertThat(post(DELETE, ranges(span(3, 100))).error(400, 13).getString("detail")).contains("latest");
    assertThat(post(DELETE, ranges(span(1, 4))).error(400, 13).getString("detail")).contains("keep");
    post(DELETE, new JsonObject().put("ranges", new JsonArray())).error(400, 13);
    post(DELETE, new JsonObject()).error(400, 13);
    post(DELETE, ranges(span(3, 3))).error(400, 13);
    post(DELETE, ranges(span(-1, 3))).error(400, 13);
    post(DELETE, ranges(span(1, -2))).error(400, 13);
    post(DELETE, new JsonObject().put("ranges", new JsonArray().add(new JsonObject().put("start_version", 1))))
        .error(400, 13);
    post("/v1/table/ns$ghost/version/delete", ranges(span(1, 2))).error(404, 4);
    post(DELETE, ranges(span(1, 2)).put("branch", "nope")).error(404, 22);
    assertThat(versions()).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);

    // the tag moved away, the same range goes
    post("/v1/table/ns$t/tags/delete", new JsonObject().put("tag", "keep")).ok();
    assertThat(post(DELETE, ranges(span(0, 6))).ok().getLong("deleted_count")).isEqualTo(5L);
    assertThat(versions()).containsExactly(6L);
  }

  @Test
  void onABranchOnlyTheBranchsRecordsGo() {
    post("/v1/table/ns$t/branches/create", new JsonObject().put("name", "dev").put("from_version", 2)).ok();
    try (LanceTables onBranch = LanceTables.local(root.resolve("tree/dev"))) {
      for (long v = 2; v <= 3; v++) {
        assertThat(postBytes("/v1/table/ns$t/commit?branch=dev", TransactionFactory.append(v,
            LanceProtos.fragments(onBranch.writeRows(100 + v, 1))).toByteArray()).status()).isEqualTo(200);
      }
    }
    assertThat(post(DELETE, ranges(span(0, 4)).put("branch", "dev")).ok().getLong("deleted_count"))
        .isEqualTo(2L);
    assertThat(post("/v1/table/ns$t/version/list?branch=dev", "").ok().getJsonArray("versions")).hasSize(1);
    assertThat(versions()).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
  }

  private static JsonObject ranges(JsonObject... ranges) {
    JsonArray array = new JsonArray();
    for (JsonObject r : ranges) {
      array.add(r);
    }
    return new JsonObject().put("ranges", array);
  }

  private static JsonObject span(long start, long end) {
    return new JsonObject().put("start_version", start).put("end_version", end);
  }

  private List<Long> versions() {
    List<Long> out = new ArrayList<>();
    post("/v1/table/ns$t/version/list", "").ok().getJsonArray("versions")
        .forEach(v -> out.add(((JsonObject) v).getLong("version")));
    return out;
  }

  private Map<String, Long> files(String dir) throws Exception {
    Map<String, Long> out = new TreeMap<>();
    try (Stream<Path> files = Files.list(root.resolve(dir))) {
      files.forEach(f -> out.put(f.getFileName().toString(), f.toFile().length()));
    }
    return out;
  }

  private void commit(Transaction txn) {
    assertThat(postBytes("/v1/table/ns$t/commit", txn.toByteArray()).status()).isEqualTo(200);
  }
}
