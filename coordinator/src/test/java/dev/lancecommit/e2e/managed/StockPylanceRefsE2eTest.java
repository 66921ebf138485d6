package dev.lancecommit.e2e.managed;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancecommit.coordinator.Coordinator;
import dev.lancecommit.coordinator.CoordinatorConfig;
import dev.lancecommit.e2e.CommitApi;
import dev.lancecommit.testing.PythonClients;
import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.testing.lance.LanceTables;
import dev.lancecommit.client.lance.TransactionFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stock pylance (the version pinned in clients/python/requirements-test.txt) sees the tags and branches the
 * coordinator makes, where Lance keeps them: {@code ds.tags}, a checkout of a tag, {@code ds.branches} and a checkout
 * of a branch, through {@code src/test/resources/python/refs_client.py}; and the coordinator reads back a tag pylance
 * made.
 */
class StockPylanceRefsE2eTest {
  private static final List<String> ID = List.of("py", "refs");
  @TempDir Path work;

  @Test
  void pylanceListsAndChecksOutTheCoordinatorsTagsAndBranches() throws Exception {
    PythonClients python = PythonClients.require();
    try (Coordinator coordinator = Coordinator.start(CoordinatorConfig.builder().port(0)
        .warehouse(work.resolve("warehouse").toString()).kafka("none").build())) {
      CommitApi api = new CommitApi(coordinator.restUrl());
      api.createNamespace("py");
      Path table = Path.of(api.declareTable(ID));
      try (LanceTables lance = LanceTables.local(table)) {
        ok(api.commit(ID, TransactionFactory.create(LanceProtos.schema(LanceTables.ROW_SCHEMA),
            LanceProtos.fragments(lance.writeRows(0, 5)))));
        ok(api.commit(ID, TransactionFactory.append(1, LanceProtos.fragments(lance.writeRows(5, 5)))));
        ok(api.postJson("/v1/table/py$refs/tags/create", "{\"tag\":\"release\",\"version\":1}"));
        ok(api.postJson("/v1/table/py$refs/branches/create", "{\"name\":\"dev\",\"from_version\":2}"));
        try (LanceTables dev = LanceTables.local(table.resolve("tree/dev"))) {
          ok(api.post("/v1/table/py$refs/commit?branch=dev", TransactionFactory.append(2,
              LanceProtos.fragments(dev.writeRows(100, 2))).toByteArray(), CommitApi.PROTOBUF));
        }
      }

      PythonClients.Result run = python.runScript("refs_client.py", List.of(table.toString()), 5);
      assertThat(run.exitCode()).as("refs_client.py output:\n%s", run.output()).isZero();
      JsonNode result = new ObjectMapper().readTree(run.resultJson());
      assertThat(result.get("main_version").asLong()).isEqualTo(2);
      assertThat(longs(result.get("tagged_ids"))).isEqualTo(LongStream.range(0, 5).boxed().toList());
      assertThat(result.get("dev_version").asLong()).isEqualTo(3);
      assertThat(longs(result.get("dev_ids"))).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 100L, 101L);

      CommitApi.Response tags = api.post("/v1/table/py$refs/tags/list", new byte[0], CommitApi.JSON);
      ok(tags);
      assertThat(tags.body().get("tags").get("py-made").get("version").asLong()).isEqualTo(2);
      assertThat(tags.body().get("tags").get("release").get("version").asLong()).isEqualTo(1);
    }
  }

  private static List<Long> longs(JsonNode array) {
    List<Long> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asLong()));
    return out;
  }

  private static void ok(CommitApi.Response response) {
    assertThat(response.status()).as(response.toString()).isEqualTo(200);
  }
}
