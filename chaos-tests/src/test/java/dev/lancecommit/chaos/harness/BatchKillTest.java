package dev.lancecommit.chaos.harness;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.CommitEventReader;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.kafka.KafkaBrokerFixture;
import dev.lancecommit.testing.lance.LanceTables;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A coordinator process killed with SIGKILL in the middle of an atomic batch: after the batch record and the first
 * member version were written, before the last. While it runs and after it restarts, readers that resolve versions
 * through the namespace (DescribeTable, both orders) never see one member's version without the other's; the
 * restarted coordinator rolls the batch forward before it answers anyone; the same request sent again answers the
 * versions the batch made; each version has one event, both with the batch id of the record.
 */
class BatchKillTest {
  @RegisterExtension static final KafkaBrokerFixture KAFKA = new KafkaBrokerFixture();
  @TempDir Path work;

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Test
  void aBatchCutByKillIsRolledForwardAndNeverSeenHalf() throws Exception {
    Path warehouse = work.resolve("warehouse");
    String topic = "batch-kill-" + UUID.randomUUID();
    CoordinatorProcess coordinator = new CoordinatorProcess(work, freePort(), List.of(
        "--warehouse", warehouse.toString(), "--kafka", KAFKA.bootstrapServers(), "--kafka.topic", topic,
        "--batch.test.apply-pause.ms", "4000"), null);
    List<String> halves = new CopyOnWriteArrayList<>();
    AtomicBoolean reading = new AtomicBoolean(true);
    try (coordinator; LanceTables a = LanceTables.local(warehouse.resolve("ns/a.lance"));
        LanceTables b = LanceTables.local(warehouse.resolve("ns/b.lance"))) {
      coordinator.start();
      String url = coordinator.baseUrl();
      post(url, "/v1/namespace/ns/create", "{}");
      for (LanceTables t : List.of(a, b)) {
        String name = Path.of(t.uri()).getFileName().toString().replace(".lance", "");
        post(url, "/v1/table/ns$" + name + "/declare", "{}");
        postBytes(url, "/v1/table/ns$" + name + "/commit", TransactionFactory.create(
            LanceProtos.schema(LanceTables.ROW_SCHEMA), LanceProtos.fragments(t.writeRows(0, 5))).toByteArray());
      }
      JsonObject batch = new JsonObject().put("entries", new JsonArray()
          .add(entry("a", stage(a, 2, 10))).add(entry("b", stage(b, 2, 20))));

      // readers through the namespace, both orders, for the whole test (down times answer nothing)
      CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> {
        while (reading.get()) {
          observe(url, "a", "b", halves);
          observe(url, "b", "a", halves);
        }
      });

      CompletableFuture<Integer> cut = CompletableFuture.supplyAsync(() ->
          status(url, "/v1/table/version/batch-create", batch.encode()));
      Path batches = warehouse.resolve("_catalog/batches");
      Path a2 = Path.of(a.uri()).resolve(ManifestNaming.path(ManifestNaming.Scheme.V2, 2));
      Path b2 = Path.of(b.uri()).resolve(ManifestNaming.path(ManifestNaming.Scheme.V2, 2));
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (!(Files.exists(a2) && records(batches, ".json") == 1) && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      assertThat(a2).as("the first member version is written").exists();
      assertThat(b2).as("the last one is not").doesNotExist();
      // in the window, the namespace still shows version 1 of a although its version 2 is on disk
      assertThat(describe(url, "a")).isEqualTo(1);
      coordinator.kill();
      assertThat(cut.get()).isNotEqualTo(200); // the caller never heard of success
      assertThat(records(batches, ".done")).isZero();
      assertThat(b2).doesNotExist();

      coordinator.start(); // rolls the batch forward before it serves
      assertThat(describe(url, "a")).isEqualTo(2);
      assertThat(describe(url, "b")).isEqualTo(2);
      assertThat(records(batches, ".done")).isEqualTo(1);
      assertThat(a.countRows(2)).isEqualTo(10);
      assertThat(b.countRows(2)).isEqualTo(10);
      // the same request again: the versions the batch made (and the staged files go)
      JsonObject again = new JsonObject(post(url, "/v1/table/version/batch-create", batch.encode()));
      assertThat(again.getJsonArray("versions").getJsonObject(0).getLong("version")).isEqualTo(2);
      assertThat(again.getJsonArray("versions").getJsonObject(1).getLong("version")).isEqualTo(2);
      reading.set(false);
      reader.get();

      String batchId;
      try (Stream<Path> files = Files.list(batches)) {
        batchId = files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".json")).findFirst()
            .orElseThrow().replace(".json", "");
      }
      try (CommitEventReader events = new CommitEventReader(KAFKA.bootstrapServers(), topic)) {
        for (String name : List.of("a", "b")) {
          // Events are handed over after the answer and may repeat (at least once): read until version 2's shows.
          List<CommitEvent> versionTwo = List.of();
          long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
          for (int want = 2; versionTwo.isEmpty() && System.nanoTime() < until; want++) {
            versionTwo = events.readTable(List.of("ns", name), want, Duration.ofSeconds(5)).stream()
                .filter(e -> e.version() == 2).toList();
          }
          assertThat(versionTwo).as("events of %s@2", name).isNotEmpty()
              .allSatisfy(e -> assertThat(e.batchId()).isEqualTo(batchId));
        }
      }
    } finally {
      reading.set(false);
    }
    assertThat(halves).as("namespace reads that saw half a batch").isEmpty();
  }

  /** Reads {@code first} then {@code second}: once the first shows the batch's version, the second must too. */
  private void observe(String url, String first, String second, List<String> halves) {
    long one = describeQuietly(url, first);
    if (one == 2) {
      long two = describeQuietly(url, second);
      if (two != -1 && two < 2) {
        halves.add(first + "@2 then " + second + "@" + two);
      }
    }
  }

  private long describeQuietly(String url, String table) {
    try {
      return describe(url, table);
    } catch (RuntimeException e) {
      return -1;
    }
  }

  private long describe(String url, String table) {
    return new JsonObject(post(url, "/v1/table/ns$" + table + "/describe", "{}")).getLong("version");
  }

  private static long records(Path dir, String suffix) throws IOException {
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(p -> p.getFileName().toString().endsWith(suffix)).count();
    }
  }

  /** Stages, as stock Lance does, version {@code version}'s manifest carrying an Append of 5 rows. */
  private static Path stage(LanceTables table, long version, long firstId) throws IOException {
    Transaction txn = TransactionFactory.append(version - 1, LanceProtos.fragments(table.writeRows(firstId, 5)));
    Path versions = Path.of(table.uri()).resolve("_versions");
    ManifestFile base = ManifestFile.decode(Files.readAllBytes(
        versions.resolve(ManifestNaming.fileName(ManifestNaming.Scheme.V2, version - 1))));
    Path staged = versions.resolve(ManifestNaming.fileName(ManifestNaming.Scheme.V2, version) + "-" + UUID.randomUUID());
    Files.write(staged, new ManifestFile(base.manifest().toBuilder().setVersion(version).build(), base.indices(),
        Optional.of(txn)).encode());
    return staged;
  }

  private static JsonObject entry(String table, Path staged) {
    return new JsonObject().put("id", List.of("ns", table)).put("version", 2)
        .put("manifest_path", staged.toString().substring(1));
  }

  private String post(String url, String path, String body) {
    HttpResponse<String> response = send(url, path, HttpRequest.BodyPublishers.ofString(body), "application/json");
    if (response.statusCode() != 200) {
      throw new IllegalStateException(path + " answered " + response.statusCode() + ": " + response.body());
    }
    return response.body();
  }

  private void postBytes(String url, String path, byte[] body) {
    HttpResponse<String> response = send(url, path, HttpRequest.BodyPublishers.ofByteArray(body),
        "application/x-protobuf");
    if (response.statusCode() != 200) {
      throw new IllegalStateException(path + " answered " + response.statusCode() + ": " + response.body());
    }
  }

  private int status(String url, String path, String body) {
    try {
      return send(url, path, HttpRequest.BodyPublishers.ofString(body), "application/json").statusCode();
    } catch (RuntimeException e) {
      return -1; // the connection died with the process
    }
  }

  private HttpResponse<String> send(String url, String path, HttpRequest.BodyPublisher body, String type) {
    try {
      return http.send(HttpRequest.newBuilder(URI.create(url + path)).timeout(Duration.ofSeconds(30))
          .header("content-type", type).POST(body).build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
