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
}
