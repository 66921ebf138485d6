package dev.lancecommit.coordinator.http;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import java.util.function.Supplier;

/** {@code GET /metrics} on a port of its own ({@code metrics.port}), e.g. one the network exposes only to Prometheus. */
public final class MetricsServer {
  private final Vertx vertx;
  private final Supplier<String> scrape;
  private HttpServer server;

  public MetricsServer(Vertx vertx, Supplier<String> scrape) {
    this.vertx = vertx;
    this.scrape = scrape;
  }

  /** Binds; port 0 picks a free one. Completes with the bound port. */
  public synchronized Future<Integer> start(String host, int port) {
    Router router = Router.router(vertx);
    ProbeRoutes.mountMetrics(router, scrape);
    server = vertx.createHttpServer(new HttpServerOptions().setHost(host).setPort(port));
    return server.requestHandler(router).listen().map(HttpServer::actualPort);
  }

  public synchronized Future<Void> close() {
    HttpServer current = server;
    server = null;
    return current == null ? Future.succeededFuture() : current.close();
  }
}
