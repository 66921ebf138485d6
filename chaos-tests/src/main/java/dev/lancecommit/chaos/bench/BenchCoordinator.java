package dev.lancecommit.chaos.bench;

import dev.lancecommit.coordinator.Coordinator;
import dev.lancecommit.coordinator.CoordinatorConfig;
import dev.lancecommit.e2e.CommitApi;
import java.util.List;

/** An in-process coordinator for one run, its warehouse on the cell's store, and its CommitTable client. */
final class BenchCoordinator implements AutoCloseable {
  private final Coordinator coordinator;
  private final CommitApi api;

  private BenchCoordinator(Coordinator coordinator) {
    this.coordinator = coordinator;
    this.api = new CommitApi(coordinator.restUrl());
  }

  static BenchCoordinator start(Cell cell) {
    String warehouse = cell.store().uri(cell.name() + "/coordinator");
    CoordinatorConfig.Builder config = CoordinatorConfig.builder()
        .port(0)
        .warehouse(warehouse)
        .kafka(cell.kafka())
        .topic("lance.commits.bench." + cell.name())
        .set(CoordinatorConfig.COMMIT_VERIFY_FILES, Boolean.toString(cell.options().verifyFiles()))
        .set(CoordinatorConfig.STORE_LOCAL_FSYNC, Boolean.toString(cell.options().localFsync()));
    if (cell.store().isS3()) {
      config.s3(cell.store().s3Config());
    }
    return new BenchCoordinator(Coordinator.start(config.build()));
  }

  CommitApi api() {
    return api;
  }

  String restUrl() {
    return coordinator.restUrl();
  }

  /** Creates namespace {@code namespace} with {@code propertiesJson} ({@code {}} for none). */
  void createNamespace(String namespace, String propertiesJson) {
    CommitApi.Response r = api.postJson("/v1/namespace/" + namespace + "/create",
        "{\"properties\": " + propertiesJson + "}");
    if (r.status() != 200) {
      throw new IllegalStateException("CreateNamespace " + namespace + " failed: " + r);
    }
  }

  String declare(List<String> table) {
    return api.declareTable(table);
  }

  @Override
  public void close() {
    coordinator.close();
  }
}
