package dev.lancecommit.chaos.differential;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancecommit.coordinator.Coordinator;
import dev.lancecommit.coordinator.CoordinatorConfig;
import dev.lancecommit.e2e.CommitApi;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A coordinator on a local warehouse without Kafka ({@code kafka=none}), and the REST client writers use against it.
 * Tables are Lance datasets copied or written into {@link #newTableDir} and then registered.
 */
public final class RunningCoordinator implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String NAMESPACE = "chaos";

  private final Path warehouse;
  private final Coordinator coordinator;
  private final CommitApi api;
  private final AtomicInteger tables = new AtomicInteger();

  private RunningCoordinator(Path warehouse, Coordinator coordinator) {
    this.warehouse = warehouse;
    this.coordinator = coordinator;
    this.api = new CommitApi(coordinator.restUrl());
  }

  public static RunningCoordinator start(Path warehouse) {
    try {
      Files.createDirectories(warehouse);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Coordinator coordinator = Coordinator.start(CoordinatorConfig.builder()
        .port(0)
        .warehouse(warehouse.toAbsolutePath().toString())
        .kafka("none")
        .build());
    RunningCoordinator running = new RunningCoordinator(warehouse, coordinator);
    running.api.createNamespace(NAMESPACE);
    return running;
  }

  public CommitApi api() {
    return api;
  }

  /** A fresh, not yet existing directory inside the warehouse for a new table. */
  public Path newTableDir(String prefix) {
    return warehouse.resolve(NAMESPACE).resolve(prefix + "_" + tables.incrementAndGet() + ".lance");
  }

  /** Registers the Lance dataset at {@code dir} (inside the warehouse) under a new id and returns the id. */
  public List<String> register(Path dir) {
    String name = dir.getFileName().toString().replace(".lance", "");
    List<String> id = List.of(NAMESPACE, name);
    CommitApi.Response r = api.register(id, dir.toAbsolutePath().toString());
    if (r.status() != 200) {
      throw new IllegalStateException("RegisterTable " + id + " at " + dir + " failed: " + r);
    }
    return id;
  }

  /** A table declared through the coordinator (no version yet): its id and the location Lance writes to. */
  public record DeclaredTable(List<String> id, String location) {}

  /** Declares a new table {@code chaos$<prefix>_<n>}; the coordinator picks its location in the warehouse. */
  public DeclaredTable declare(String prefix) {
    List<String> id = List.of(NAMESPACE, prefix + "_" + tables.incrementAndGet());
    return new DeclaredTable(id, api.declareTable(id));
  }

  /** CommitTable with raw transaction bytes, as stock Lance wrote them to {@code _transactions/}. */
  public CommitApi.Response commit(List<String> id, byte[] transaction) {
    return api.commitBytes(id, transaction, CommitApi.PROTOBUF);
  }

  /** CommitTable with the JSON body, carrying the row addresses a Delete/Update touched when given. */
  public CommitApi.Response commit(List<String> id, byte[] transaction, Optional<byte[]> affectedRows) {
    var body = JSON.createObjectNode().put("transaction", Base64.getEncoder().encodeToString(transaction));
    affectedRows.ifPresent(rows -> body.put("affected_rows", Base64.getEncoder().encodeToString(rows)));
    return api.commitBytes(id, body.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8), CommitApi.JSON);
  }

  @Override
  public void close() {
    coordinator.close();
  }
}
