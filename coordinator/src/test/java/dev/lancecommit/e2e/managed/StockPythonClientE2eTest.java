package dev.lancecommit.e2e.managed;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancecommit.e2e.E2eServices;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.CommitEventReader;
import dev.lancecommit.testing.PythonClients;
import dev.lancecommit.testing.S3ProxyFixture;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The stock Python clients (pylance and lance-namespace as pinned in {@link PythonClients#REQUIREMENTS}) against a
 * coordinator on s3proxy that vends credentials, through {@code src/test/resources/python/stock_client.py}: create
 * with write_dataset, a commit with namespace_client_managed_versioning, an append, listing, reading, rename,
 * deregister, register and drop. The script checks each step; this test checks the coordinator's side: the events of
 * the versions Python committed, and that the drop removed the files.
 */
@ExtendWith(E2eServices.class)
class StockPythonClientE2eTest {
  @RegisterExtension static final S3ProxyFixture S3 = new S3ProxyFixture();

  @Test
  void pylanceCommitsThroughTheNamespaceWithVendedCredentials(E2eServices services) throws Exception {
    PythonClients python = PythonClients.require();
    try (ManagedCoordinator coordinator =
        ManagedCoordinator.start(S3, services.service(E2eServices.Store.LOCAL).kafkaBootstrap())) {
      String ns = "py_" + UUID.randomUUID().toString().substring(0, 8);
      PythonClients.Result run = python.runScript("stock_client.py", List.of(coordinator.restUrl(), ns), 10);
      assertThat(run.exitCode()).as("stock_client.py output:\n%s", run.output()).isZero();
      JsonNode result = new ObjectMapper().readTree(run.resultJson());
      String location = coordinator.tableLocation(ns, "orders");
      assertThat(result.get("location").asText()).isEqualTo(location);
      assertThat(result.get("final_version").asLong()).isEqualTo(4);

      // Versions 1-3, committed before the rename. (The event of version 4, committed after it, is not checked
      // here: the commit lane of a table keeps the id it was created with, so it still carries the old one.)
      try (CommitEventReader reader = new CommitEventReader(coordinator.kafkaBootstrap(), coordinator.topic())) {
        List<CommitEvent> events = reader.readTable(List.of(ns, "orders"), 3, Duration.ofSeconds(60)).stream()
            .filter(e -> e.version() <= 3).toList();
        assertThat(events).extracting(CommitEvent::version).containsExactly(1L, 2L, 3L);
        assertThat(events).extracting(CommitEvent::operation).containsExactly("Overwrite", "Append", "Append");
        assertThat(events).extracting(CommitEvent::rowsAdded).containsExactly(10L, 10L, 10L);
      }
      assertThat(coordinator.objectsUnder(coordinator.keyOf(location) + "/")).isEmpty();
    }
  }

  /**
   * pylance 14.0.2 when the version it staged is taken before its CreateTableVersion arrives
   * ({@code src/test/resources/python/stock_client_races.py}). By default the coordinator refuses it: pylance asks
   * DescribeTableVersion about the staged version twice ({@code lose_or_retain} in
   * rust/lance-table/src/io/commit/external_manifest.rs, then {@code verify_commit_outcome} in
   * rust/lance/src/io/commit.rs), sees another writer's commit, backs off, rebases and stages the next version, which
   * lands. With {@code managed_versioning.appends_on_latest=true} the Append lands on the latest version in one
   * request, and pylance returns a Dataset built from the manifest it staged: version 2, version 1's rows plus its
   * own, its fragment called 1, which in the table is the other writer's. Moved to the latest version it is right.
   * A Delete, an Update or a compaction through that Dataset names the other writer's fragment 1 with its own data
   * file: refused (applied, it would drop the other writer's rows), nothing written.
   * The same when pylance stages the version after the latest one with its transaction's read_version older than
   * that version's predecessor (its commit started from an older version): refused as taken and retried, or landed
   * on the latest version in one request where the table opted in.
   */
  @Test
  void pylanceRetriesATakenStagedVersionOrKeepsItsStagedManifestWhenAnsweredALaterOne(E2eServices services)
      throws Exception {
    PythonClients python = PythonClients.require();
    try (ManagedCoordinator coordinator = ManagedCoordinator.start(S3, "none")) {
      String prefix = "race_" + UUID.randomUUID().toString().substring(0, 8);
      PythonClients.Result run = python.runScript("stock_client_races.py", List.of(coordinator.restUrl(), prefix),
          10);
      assertThat(run.exitCode()).as("stock_client_races.py output:\n%s", run.output()).isZero();
      JsonNode result = new ObjectMapper().readTree(run.resultJson());
      List<Long> all = ids(0, 20, 100, 110);

      JsonNode strict = result.get("strict");
      assertThat(longs(strict.get("created"))).containsExactly(2L, 3L);
      assertThat(longs(strict.get("described"))).containsExactly(2L, 2L);
      assertThat(strict.get("returned_version").asLong()).isEqualTo(3);
      assertThat(longs(strict.get("returned_ids"))).isEqualTo(all);
      assertThat(longs(strict.get("reopened_ids"))).isEqualTo(all);

      JsonNode ingest = result.get("ingest");
      assertThat(longs(ingest.get("created"))).containsExactly(2L);
      assertThat(ingest.get("returned_version").asLong()).as("the staged number").isEqualTo(2);
      assertThat(ingest.get("returned_latest_version").asLong()).isEqualTo(3);
      assertThat(longs(ingest.get("returned_ids"))).isEqualTo(ids(0, 20));
      assertThat(longs(ingest.get("returned_fragment_ids"))).containsExactly(0L, 1L);
      assertThat(ingest.get("stale_delete").asText()).as("a Delete through the stale Dataset").startsWith("refused");
      assertThat(longs(ingest.get("stale_delete_created"))).as("staged on version 3, as the version after it")
          .containsExactly(4L);
      assertThat(ingest.get("stale_update").asText()).as("an Update through the stale Dataset").startsWith("refused");
      assertThat(ingest.get("stale_compact").asText()).as("a compaction through the stale Dataset")
          .startsWith("refused");
      assertThat(ingest.get("reopened_version").asLong())
          .as("the Delete, the Update and the Rewrite wrote nothing (4 is the compaction's ReserveFragments)")
          .isEqualTo(4);
      assertThat(longs(ingest.get("reopened_ids"))).isEqualTo(all);
      assertThat(longs(ingest.get("reopened_fragment_ids").get("1"))).isEqualTo(ids(100, 110));
      assertThat(longs(ingest.get("returned_checked_out_latest_ids"))).isEqualTo(all);

      // pylance staged version 3 with read_version 1 (not 2, the version it built on), and version 3 was taken
      List<Long> lagging = ids(0, 20, 100, 110, 200, 210);
      JsonNode strictLagging = result.get("strict_lagging");
      assertThat(longs(strictLagging.get("created"))).containsExactly(3L, 4L);
      assertThat(strictLagging.get("returned_version").asLong()).isEqualTo(4);
      assertThat(strictLagging.get("reopened_version").asLong()).isEqualTo(4);
      assertThat(longs(strictLagging.get("reopened_ids"))).isEqualTo(lagging);
      JsonNode ingestLagging = result.get("ingest_lagging");
      assertThat(longs(ingestLagging.get("created"))).as("landed on the latest version in one request")
          .containsExactly(3L);
      assertThat(ingestLagging.get("reopened_version").asLong()).isEqualTo(4);
      assertThat(longs(ingestLagging.get("reopened_ids"))).isEqualTo(lagging);
    }
  }

  private static List<Long> longs(JsonNode array) {
    List<Long> values = new java.util.ArrayList<>();
    array.forEach(v -> values.add(v.asLong()));
    return values;
  }

  /** The ids in [from, to) of each pair of bounds, ascending. */
  private static List<Long> ids(long... bounds) {
    List<Long> ids = new java.util.ArrayList<>();
    for (int i = 0; i < bounds.length; i += 2) {
      for (long id = bounds[i]; id < bounds[i + 1]; id++) {
        ids.add(id);
      }
    }
    return ids;
  }
}
