package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.coordinator.storage.StoreException;
import dev.lancecommit.coordinator.storage.StoreUnavailableException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ServerBehaviourTest extends RestServerFixture {

  @Test
  void bodiesOverTheLimitAreRefused() {
    post("/v1/namespace/ns/create", "{}");
    post("/v1/table/ns$t/declare", "{}");
    byte[] big = new byte[(int) BODY_LIMIT + 1];
    Arrays.fill(big, (byte) 7);

    Reply tooBig = postBytes("/v1/table/ns$t/commit", "application/x-protobuf", big);
    JsonObject error = tooBig.error(413, 13);
    assertThat(error.getString("detail")).contains(Long.toString(BODY_LIMIT));
    String json = "{\"transaction\":\"" + Base64.getEncoder().encodeToString(big) + "\"}";
    post("/v1/table/ns$t/commit", json).error(413, 13);
    assertThat(commits.calls()).isEmpty();
  }

  @Test
  void formBodiesAreRefusedBeforeAnythingDecodesThem() {
    post("/v1/namespace/ns/create", "{}");
    post("/v1/table/ns$t/declare", "{}");
    // not a form: Vert.x's form decoder used to throw on it inside the body handler, answering 500 (fuzz suite)
    byte[] notAForm = {(byte) 0x8f, '%', 'z', 'z', '=', 0x01, '&', '%'};
    postBytes("/v1/table/ns$t/commit", "application/x-www-form-urlencoded", notAForm).error(400, 13);
    postBytes("/v1/table/ns$t/commit", "multipart/form-data; boundary=x", notAForm).error(400, 13);
    assertThat(commits.calls()).isEmpty();
  }

  @Test
  void otherSpecOperationsAre501NamingTheOperation() {
    JsonObject restore = post("/v1/table/a$b/restore", "{}").error(501, 0);
    assertThat(restore.getString("error")).contains("RestoreTable");
    assertThat(post("/v1/table/a/create", "{}").error(501, 0).getString("error")).contains("CreateTable");
    assertThat(post("/v1/table/a/index/idx/stats", "{}").error(501, 0).getString("error"))
        .contains("DescribeTableIndexStats");
    // a server without table storage has no atomic batches either
    assertThat(post("/v1/table/version/batch-create", "{}").error(501, 0).getString("error"))
        .contains("BatchCreateTableVersions");
    assertThat(post("/v1/transaction/x/alter", "{}").error(501, 0).getString("error")).contains("AlterTransaction");
    assertThat(UnsupportedRoutes.operationIds()).hasSize(20).doesNotHaveDuplicates();
    assertThat(snapshot()).isEmpty();
  }

  @Test
  void unknownPathsAndWrongMethodsGetJsonErrors() {
    Reply unknown = post("/v2/whatever", "{}");
    unknown.error(404, 0);
    Reply wrongMethod = get("/v1/table/a/describe");
    wrongMethod.error(405, 0);
  }

  @Test
  void storeOutagesAre503AndOtherStoreFailures500() {
    store.injectFault(new StoreUnavailableException("disk gone", new IOException("EIO")));
    post("/v1/namespace/ns/create", "{}").error(503, 17);
    post("/v1/namespace/ns/describe", "{}").error(503, 17);
    post("/v1/table/t/describe", "{}").error(503, 17);
    post("/v1/table/t/commit", "{\"transaction\":\"AQI=\"}").error(503, 17);
    store.injectFault(new StoreException("access denied"));
    post("/v1/namespace/ns/create", "{}").error(500, 18);
    store.clearFault();
    assertThat(post("/v1/namespace/ns/create", "{}").status()).isEqualTo(200);
    assertThat(commits.calls()).isEmpty();
  }

  @Test
  void startingTwiceFailsAndAnotherServerGetsItsOwnPort() throws Exception {
    assertThat(server.start("127.0.0.1", 0).toCompletionStage().toCompletableFuture())
        .failsWithin(10, TimeUnit.SECONDS)
        .withThrowableOfType(ExecutionException.class)
        .withCauseInstanceOf(IllegalStateException.class);

    RestServer second = new RestServer(vertx, catalog, commits);
    int secondPort = second.start("127.0.0.1", 0).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    try {
      assertThat(secondPort).isPositive().isNotEqualTo(port);
    } finally {
      second.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void severalEventLoopsShareOnePortAndEachServesConnections() throws Exception {
    RestServer wide = new RestServer(vertx, catalog, commits, RestServerOptions.builder().eventLoops(3).build());
    java.util.Set<String> threads = java.util.concurrent.ConcurrentHashMap.newKeySet();
    wide.router().get("/test/thread").handler(ctx -> {
      threads.add(Thread.currentThread().getName());
      ctx.response().end(Thread.currentThread().getName());
    });
    int widePort = wide.start("127.0.0.1", 0).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    int original = port;
    try {
      port = widePort;
      assertThat(widePort).isPositive();
      for (int i = 0; i < 12; i++) {
        // a new client per request: a new connection, which Vert.x hands to the next server in turn
        java.net.http.HttpClient client = java.net.http.HttpClient.newHttpClient();
        java.net.http.HttpResponse<String> response = client.send(java.net.http.HttpRequest.newBuilder(
            java.net.URI.create("http://127.0.0.1:" + widePort + "/test/thread")).GET().build(),
            java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
      }
      assertThat(threads).as("event loops that served requests").hasSizeGreaterThanOrEqualTo(2)
          .allMatch(name -> name.startsWith("vert.x-eventloop-thread-"));
      assertThat(post("/v1/namespace/wide/create", "{}").status()).isEqualTo(200);
    } finally {
      port = original;
      wide.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aGivenBlockingExecutorRunsTheStorageCalls() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2, r -> new Thread(r, "catalog-pool"));
    RestServer pooled = new RestServer(vertx, catalog, commits,
        RestServerOptions.builder().blockingExecutor(pool).build());
    int pooledPort = pooled.start("127.0.0.1", 0).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    int original = port;
    try {
      port = pooledPort;
      int before = store.threads().size();
      assertThat(post("/v1/namespace/pooled/create", "{}").status()).isEqualTo(200);
      assertThat(post("/v1/namespace/pooled/describe", "{}").status()).isEqualTo(200);
      List<String> used = store.threads().subList(before, store.threads().size());
      assertThat(used).isNotEmpty().allMatch("catalog-pool"::equals);

      pool.shutdown();
      post("/v1/namespace/pooled/describe", "{}").error(503, 17);
    } finally {
      port = original;
      pooled.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      pool.shutdownNow();
    }
  }
}
