package dev.lancecommit.examples;

import dev.lancecommit.coordinator.Coordinator;
import dev.lancecommit.coordinator.CoordinatorConfig;
import java.nio.file.Path;
import java.util.Map;

/** A coordinator in this JVM on a local warehouse, without Kafka, on a free port. */
final class LocalCoordinator implements AutoCloseable {
  private final Coordinator coordinator;

  private LocalCoordinator(Coordinator coordinator) {
    this.coordinator = coordinator;
  }

  static LocalCoordinator start(Path warehouse) {
    return start(warehouse, Map.of());
  }

  /** With extra configuration keys, e.g. {@code auth.enabled}. */
  static LocalCoordinator start(Path warehouse, Map<String, String> settings) {
    CoordinatorConfig.Builder config = CoordinatorConfig.builder()
        .port(0)
        .warehouse(warehouse.toAbsolutePath().toString())
        .kafka("none");
    settings.forEach(config::set);
    return new LocalCoordinator(Coordinator.start(config.build()));
  }

  String url() {
    return coordinator.restUrl();
  }

  @Override
  public void close() {
    coordinator.close();
  }
}
