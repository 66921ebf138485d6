package dev.lancecommit.e2e;

import dev.lancecommit.coordinator.Coordinator;
import dev.lancecommit.coordinator.CoordinatorConfig;
import dev.lancecommit.testing.S3ProxyFixture;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The running services the end-to-end tests talk to, started once per test JVM and stopped when the run ends
 * (a JUnit root-store resource): a Coordinator on a local warehouse with its own embedded Kafka broker, and, when a
 * test asks for S3, s3proxy plus a second Coordinator on {@code s3://} that publishes to the same broker under its
 * own topic. Each test makes its own tables, so tests share the services but never a table.
 *
 * <p>Register with {@code @ExtendWith(E2eServices.class)}; test methods then take an {@code E2eServices} parameter.
 */
public final class E2eServices implements ParameterResolver, AutoCloseable {

  /** Where a Coordinator keeps its warehouse. */
  public enum Store { LOCAL, S3PROXY }

  private final Path workDir;
  private final Map<Store, Service> services = new EnumMap<>(Store.class);
  private S3ProxyFixture s3;

  /** Used by JUnit to register the extension; the instance holding the services lives in the root store. */
  public E2eServices() {
    this.workDir = null;
  }

  private E2eServices(Path workDir) {
    this.workDir = workDir;
  }

  /** One Coordinator, how to reach it, and how Lance reaches its store. */
  public record Service(Store store, Coordinator coordinator, CommitApi api, String warehouse,
      Map<String, String> lanceStorageOptions) {

    public String kafkaBootstrap() {
      return coordinator.kafkaBootstrap();
    }

    public String topic() {
      return coordinator.topic();
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == E2eServices.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
        .getOrComputeIfAbsent(E2eServices.class, k -> create(), E2eServices.class);
  }

  private static E2eServices create() {
    try {
      return new E2eServices(Files.createTempDirectory("lcc-e2e-"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The Coordinator on {@code store}, started on first use. */
  public synchronized Service service(Store store) {
    Service existing = services.get(store);
    if (existing != null) {
      return existing;
    }
    Service started = switch (store) {
      case LOCAL -> startLocal();
      case S3PROXY -> startS3();
    };
    services.put(store, started);
    return started;
  }

  /** The S3 settings that reach the S3 service's store (the defaults, which reach local paths, before it starts). */
  public synchronized dev.lancecommit.coordinator.storage.S3Config s3Config() {
    return s3 != null ? s3.s3Config() : CoordinatorConfig.defaults().s3Config();
  }

  private Service startLocal() {
    String warehouse = workDir.resolve("warehouse").toString();
    CoordinatorConfig config = CoordinatorConfig.builder()
        .port(0)
        .warehouse(warehouse)
        .kafka("embedded")
        .set(CoordinatorConfig.KAFKA_EMBEDDED_DIR, workDir.resolve("kafka").toString())
        .build();
    Coordinator coordinator = Coordinator.start(config);
    return new Service(Store.LOCAL, coordinator, new CommitApi(coordinator.restUrl()), warehouse, Map.of());
  }

  private Service startS3() {
    String bootstrap = service(Store.LOCAL).kafkaBootstrap();
    s3 = S3ProxyFixture.started();
    String warehouse = s3.uri("warehouse");
    CoordinatorConfig config = CoordinatorConfig.builder()
        .port(0)
        .warehouse(warehouse)
        .kafka(bootstrap)
        .topic("lance.commits.s3")
        .s3(s3.s3Config())
        .build();
    Coordinator coordinator = Coordinator.start(config);
    return new Service(Store.S3PROXY, coordinator, new CommitApi(coordinator.restUrl()), warehouse,
        s3.lanceStorageOptions());
  }

  /** Stops the S3 coordinator first (it publishes to the local one's broker), then the rest. */
  @Override
  public synchronized void close() {
    List<RuntimeException> failures = new ArrayList<>();
    for (Store store : List.of(Store.S3PROXY, Store.LOCAL)) {
      Service service = services.remove(store);
      if (service != null) {
        try {
          service.coordinator().close();
        } catch (RuntimeException e) {
          failures.add(e);
        }
      }
    }
    if (s3 != null) {
      s3.close();
      s3 = null;
    }
    deleteRecursively(workDir);
    if (!failures.isEmpty()) {
      throw failures.get(0);
    }
  }

  private static void deleteRecursively(Path root) {
    if (root == null || !Files.exists(root)) {
      return;
    }
    try (java.util.stream.Stream<Path> paths = Files.walk(root)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // best effort: a temp dir
    }
  }
}
