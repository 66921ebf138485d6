package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.coordinator.batch.BatchCoordinator;
import dev.lancecommit.coordinator.batch.PendingBatches;
import dev.lancecommit.coordinator.commit.CommitService;
import dev.lancecommit.coordinator.commit.TableLanes;
import dev.lancecommit.events.CommitEvent;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import dev.lancecommit.coordinator.commit.CommitSettings;
import dev.lancecommit.coordinator.commit.CommitEventSink;
import dev.lancecommit.coordinator.commit.LaneCommitService;
import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.storage.ObjectStores;
import dev.lancecommit.coordinator.storage.S3Config;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.WriterVersions;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Vert.x server over the real commit lanes ({@link LaneCommitService}), a real catalog and real stores
 * resolved the way the coordinator resolves them: a local warehouse in a temp dir unless a test names another one.
 * Tests adjust the server with {@link #options} and may wrap the commit service ({@link #commitService}).
 */
abstract class LaneServerFixture {
  @TempDir Path tempDir;
  Vertx vertx;
  ObjectStores stores;
  Catalog catalog;
  ExecutorService workers;
  LaneCommitService lanes;
  PendingBatches pendingBatches;
  BatchCoordinator batches;
  /** Every event the lanes handed over, in order. */
  final List<CommitEvent> events = new CopyOnWriteArrayList<>();
  RestServer server;
  int port;
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  @BeforeEach
  void startServer() throws Exception {
    vertx = Vertx.vertx();
    stores = new ObjectStores(s3Config());
    pendingBatches = new PendingBatches();
    catalog = new Catalog(stores.resolve(warehouse()), Duration.ZERO, Clock.systemUTC(), pendingBatches);
    workers = Executors.newFixedThreadPool(4);
    lanes = new LaneCommitService(stores::resolve, new CommitSettings(100, 10, 3, 64, WriterVersions.coordinator(),
        "2.1", ManifestNaming.Scheme.V2), events(), workers, Clock.systemUTC(),
        Duration.ofMinutes(5));
    batches = new BatchCoordinator(tableLanes(lanes), stores.resolve(warehouse()), pendingBatches, workers,
        Clock.systemUTC(), 3, Duration.ofDays(1), Duration.ZERO);
    server = new RestServer(vertx, catalog, commitService(lanes), options(RestServerOptions.builder()
        .blockingExecutor(workers).tableStorage(stores::resolve).batches(batches)).build());
    port = server.start("127.0.0.1", 0).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  @AfterEach
  void stopServer() throws Exception {
    server.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    batches.close();
    workers.shutdownNow();
    stores.close();
  }

  /** The warehouse URI; a local directory by default. */
  String warehouse() {
    return tempDir.resolve("warehouse").toString();
  }

  /** S3 settings when {@link #warehouse()} is on S3. */
  S3Config s3Config() {
    return null;
  }

  RestServerOptions.Builder options(RestServerOptions.Builder builder) {
    return builder;
  }

  CommitService commitService(LaneCommitService lanes) {
    return lanes;
  }

  /** Where the lanes hand their events: recorded in {@link #events} unless a test says otherwise. */
  CommitEventSink events() {
    return events::add;
  }

  /** The lanes atomic batches hold (tests may wrap them to pause or fail a member). */
  TableLanes tableLanes(LaneCommitService lanes) {
    return lanes;
  }

  /**
   * Waits for a staged manifest to be removed: CreateTableVersion removes it after answering, so it may still be
   * there when the answer arrives.
   */
  static void awaitRemoved(java.nio.file.Path staged) {
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
        .untilAsserted(() -> org.assertj.core.api.Assertions.assertThat(staged).doesNotExist());
  }

  record Reply(int status, String body) {
    JsonObject json() {
      return new JsonObject(body);
    }

    /** Asserts the spec's ErrorResponse with this status and code and returns it. */
    JsonObject error(int expectedStatus, int expectedCode) {
      assertThat(status).as("status of %s", body).isEqualTo(expectedStatus);
      JsonObject error = json();
      assertThat(error.getInteger("code")).as("code of %s", body).isEqualTo(expectedCode);
      assertThat(error.getString("detail")).isNotBlank();
      return error;
    }

    JsonObject ok() {
      assertThat(status).as("status of %s", body).isEqualTo(200);
      return json();
    }
  }

  Reply post(String path, JsonObject json, String... headers) {
    return post(path, json.encode(), headers);
  }

  Reply post(String path, String body, String... headers) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(60))
        .header("content-type", path.endsWith("/commit") ? "application/x-protobuf" : "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    for (int i = 0; i + 1 < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return send(request);
  }

  Reply postBytes(String path, byte[] body) {
    return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(60))
        .header("content-type", "application/x-protobuf")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body)));
  }

  private Reply send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      return new Reply(response.statusCode(), response.body());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
