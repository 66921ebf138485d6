package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.storage.LocalObjectStore;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.testing.SettledFiles;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** A real Vert.x server on a random port over a real LocalObjectStore in a temp dir, and a plain HTTP client. */
abstract class RestServerFixture {
  static final long BODY_LIMIT = 256 * 1024;

  @TempDir Path warehouse;
  Vertx vertx;
  CheckedObjectStore store;
  Catalog catalog;
  RecordingCommitService commits;
  RestServer server;
  int port;
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  @BeforeEach
  void startServer() throws Exception {
    vertx = Vertx.vertx();
    store = new CheckedObjectStore(new LocalObjectStore(warehouse));
    catalog = new Catalog(new StorageLocation(store, ""), catalogCacheTtl(), Clock.systemUTC());
    commits = new RecordingCommitService();
    server = new RestServer(vertx, catalog, commits, options().build());
    port = server.start("127.0.0.1", 0).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  /** How long the catalog caches a table entry: not at all, so every request sees the store. */
  Duration catalogCacheTtl() {
    return Duration.ZERO;
  }

  RestServerOptions.Builder options() {
    return RestServerOptions.builder().maxBodyBytes(BODY_LIMIT);
  }

  @AfterEach
  void stopServer() throws Exception {
    server.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    assertThat(store.eventLoopCalls()).as("storage calls made on an event loop").isEmpty();
    store.close();
  }

  record Reply(int status, String body, Map<String, String> headers) {
    JsonObject json() {
      return new JsonObject(body);
    }

    /** Asserts the spec's ErrorResponse shape and returns it. */
    JsonObject error(int expectedStatus, int expectedCode) {
      assertThat(status).as("status of %s", body).isEqualTo(expectedStatus);
      assertThat(headers.get("content-type")).startsWith("application/json");
      JsonObject error = json();
      assertThat(error.fieldNames()).contains("error", "code", "detail", "instance")
          .as("the spec's members and the documented extra ones only").isSubsetOf("error", "code", "detail",
              "instance", ErrorMapper.CONFLICTING_VERSION, ErrorMapper.CONFLICTING_OPERATION, ErrorMapper.CONFLICT_RULE,
              ErrorMapper.BATCH_MEMBER);
      assertThat(error.getInteger("code")).as("code of %s", body).isEqualTo(expectedCode);
      assertThat(error.getString("error")).isNotBlank();
      assertThat(error.getString("detail")).isNotBlank();
      return error;
    }
  }

  Reply post(String path, String json) {
    return send(HttpRequest.newBuilder(uri(path))
        .header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json)));
  }

  Reply post(String path, JsonObject json) {
    return post(path, json.encode());
  }

  Reply postBytes(String path, String contentType, byte[] body) {
    HttpRequest.Builder builder = HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (contentType != null) {
      builder.header("content-type", contentType);
    }
    return send(builder);
  }

  Reply get(String path) {
    return send(HttpRequest.newBuilder(uri(path)).GET());
  }

  /** Any method, with extra request headers (name, value, name, value, ...). */
  Reply request(String method, String path, String json, String... headers) {
    HttpRequest.Builder builder = HttpRequest.newBuilder(uri(path)).method(method,
        json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
    if (json != null) {
      builder.header("content-type", "application/json");
    }
    for (int i = 0; i + 1 < headers.length; i += 2) {
      builder.header(headers[i], headers[i + 1]);
    }
    return send(builder);
  }

  /** The documented key of a namespace revision: _catalog/tree/{parent...}/_namespaces/{name}/v{20 digits}.json. */
  static String namespaceRevision(int revision, String... id) {
    return entryRevision("_namespaces", revision, id);
  }

  /** The documented key of a table revision: _catalog/tree/{namespace...}/_tables/{name}/v{20 digits}.json. */
  static String tableRevision(int revision, String... id) {
    return entryRevision("_tables", revision, id);
  }

  /** The marker of a filled location registry: _catalog/locations/_registry.json. */
  static final String LOCATION_REGISTRY_MARKER = "_catalog/locations/_registry.json";

  /**
   * The documented key of a location's claim revision: _catalog/locations/{location key...}/_claims/v{20 digits}.json
   * ({@code location} relative to the warehouse, made of plain characters).
   */
  static String locationClaim(int revision, String location) {
    return "_catalog/locations/" + location + String.format("/_claims/v%020d.json", revision);
  }

  private static String entryRevision(String kind, int revision, String... id) {
    StringBuilder key = new StringBuilder("_catalog/tree/");
    for (int i = 0; i < id.length - 1; i++) {
      key.append(id[i]).append('/');
    }
    return key.append(kind).append('/').append(id[id.length - 1])
        .append(String.format("/v%020d.json", revision)).toString();
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }

  private Reply send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> response =
          http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
      Map<String, String> headers = new TreeMap<>();
      response.headers().map().forEach((k, v) -> headers.put(k.toLowerCase(), v.get(0)));
      return new Reply(response.statusCode(), response.body(), headers);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * Every file in the warehouse with its content, once settled ({@link SettledFiles}), to prove a refused request
   * wrote nothing.
   */
  Map<String, String> snapshot() {
    return SettledFiles.snapshot(warehouse, p -> warehouse.relativize(p).toString());
  }

  /** A directory that looks like a Lance dataset to listing: {@code _versions/} holding the given file names. */
  Path fakeVersions(String relative, String... names) {
    Path dir = warehouse.resolve(relative);
    try {
      Files.createDirectories(dir.resolve("_versions"));
      for (String name : names) {
        Files.write(dir.resolve("_versions").resolve(name), new byte[] {1});
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return dir;
  }
}
