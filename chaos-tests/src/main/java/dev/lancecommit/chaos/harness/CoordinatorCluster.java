package dev.lancecommit.chaos.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancecommit.coordinator.cluster.TablePartitioner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * N coordinator processes in cluster mode on one warehouse and one Kafka cluster, each on its own port with its own
 * log ({@code instance-<i>/coordinator.log} under the work dir), for the cluster's fault tests, the cluster benchmark
 * and the chaos harness. Each instance can be killed (SIGKILL), paused (SIGSTOP/SIGCONT) and restarted on its port.
 * {@link #ownerOf} asks the instances' {@code /healthz} which one serves a table.
 */
public final class CoordinatorCluster implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final List<CoordinatorProcess> instances = new ArrayList<>();
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(2)).build();

  /**
   * @param coordinatorArgs options every instance gets ({@code --warehouse}, {@code --kafka}, ...); the port and the
   *     cluster keys (enabled, advertised URL, secret, group) are added per instance
   * @param coordinatorJar a coordinator jar to {@code java -jar}, or null for this JVM's class path
   */
  public CoordinatorCluster(Path workDir, int size, List<String> coordinatorArgs, Path coordinatorJar, String group) {
    if (size < 1) {
      throw new IllegalArgumentException("a cluster has at least one instance");
    }
    for (int i = 0; i < size; i++) {
      int port = freePort();
      List<String> args = new ArrayList<>(coordinatorArgs);
      args.addAll(List.of(
          "--cluster.enabled", "true",
          "--cluster.advertised-url", "http://127.0.0.1:" + port,
          "--cluster.secret", "chaos-cluster-secret-" + group,
          "--cluster.group", group));
      instances.add(new CoordinatorProcess(workDir.resolve("instance-" + i), port, args, coordinatorJar));
    }
  }

  /** Starts every instance (in parallel) and returns once each answers HTTP. */
  public void start() {
    CompletableFuture.allOf(instances.stream().map(i -> CompletableFuture.runAsync(i::start))
        .toArray(CompletableFuture[]::new)).join();
  }

  public List<CoordinatorProcess> instances() {
    return List.copyOf(instances);
  }

  public CoordinatorProcess instance(int index) {
    return instances.get(index);
  }

  public int size() {
    return instances.size();
  }

  /** The instances whose process runs (paused ones included). */
  public List<CoordinatorProcess> running() {
    return instances.stream().filter(CoordinatorProcess::isRunning).toList();
  }

  /** What an instance's {@code /healthz} says about the cluster, or empty when it does not answer. */
  public Optional<JsonNode> clusterStatus(CoordinatorProcess instance) {
    HttpRequest request = HttpRequest.newBuilder(URI.create(instance.baseUrl() + "/healthz"))
        .timeout(Duration.ofSeconds(2)).GET().build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        return Optional.empty();
      }
      JsonNode cluster = JSON.readTree(response.body()).get("cluster");
      return Optional.ofNullable(cluster);
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /** The instance serving the table now (by the instances' own reports), if one does. */
  public Optional<CoordinatorProcess> ownerOf(String tableKey) {
    for (CoordinatorProcess instance : running()) {
      Optional<JsonNode> status = clusterStatus(instance);
      if (status.isEmpty() || status.get().path("partitions").asInt() == 0) {
        continue;
      }
      int partition = TablePartitioner.partition(tableKey, status.get().path("partitions").asInt());
      for (JsonNode serving : status.get().path("serving")) {
        if (serving.asInt() == partition) {
          return Optional.of(instance);
        }
      }
    }
    return Optional.empty();
  }

  /**
   * True once the given instances agree on one generation and serve every partition exactly once between them.
   */
  public boolean settled(List<CoordinatorProcess> members) {
    Integer generation = null;
    int partitions = -1;
    Set<Integer> served = new HashSet<>();
    int total = 0;
    for (CoordinatorProcess member : members) {
      Optional<JsonNode> status = clusterStatus(member);
      if (status.isEmpty()) {
        return false;
      }
      int g = status.get().path("generation").asInt();
      if (generation != null && g != generation) {
        return false;
      }
      generation = g;
      partitions = status.get().path("partitions").asInt();
      for (JsonNode p : status.get().path("serving")) {
        served.add(p.asInt());
        total++;
      }
    }
    return partitions > 0 && served.size() == partitions && total == partitions;
  }

  /** Waits until {@link #settled} holds for {@code members}. */
  public void awaitSettled(List<CoordinatorProcess> members, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!settled(members)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the cluster did not settle within " + timeout);
      }
      sleep(200);
    }
  }

  /** Stops every instance gracefully. */
  @Override
  public void close() {
    CompletableFuture.allOf(instances.stream().map(i -> CompletableFuture.runAsync(() -> {
      if (i.isRunning()) {
        try {
          i.resume(); // a paused process cannot stop
        } catch (IllegalStateException ignored) {
          // not running any more
        }
      }
      i.close();
    })).toArray(CompletableFuture[]::new)).join();
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
