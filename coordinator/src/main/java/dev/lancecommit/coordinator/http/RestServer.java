package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.auth.AccessControl;
import dev.lancecommit.coordinator.auth.PermissionDeniedException;
import dev.lancecommit.coordinator.commit.CommitService;
import dev.lancecommit.coordinator.commit.CreateTableVersion;
import dev.lancecommit.coordinator.commit.RestoreTable;
import dev.lancecommit.coordinator.commit.SchemaChange;
import dev.lancecommit.coordinator.commit.SemanticTypesUpgrade;
import dev.lancecommit.coordinator.namespace.Catalog;
import io.micrometer.core.instrument.Counter;
import dev.lancecommit.coordinator.refs.Branches;
import dev.lancecommit.coordinator.refs.Tags;
import dev.lancecommit.coordinator.retention.VersionRecords;
import dev.lancecommit.coordinator.storage.StorageLocation;
import io.vertx.core.AbstractVerticle;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.ext.web.handler.HttpException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Function;

/**
 * The coordinator's HTTP API: the supported part of the Lance namespace REST spec (CreateTableVersion included, for
 * clients using namespace-managed versioning) plus CommitTable. Every request
 * is authenticated first ({@link RestServerOptions#accessControl()}); handlers then parse, validate and check
 * grants on the event loop and run every catalog, storage and commit call through the blocking executor.
 */
public final class RestServer {
  private final Vertx vertx;
  private final RestServerOptions options;
  private final Router router;
  private final Counter forbidden;
  private final List<String> deployments = new ArrayList<>();
  private ClusterRouting clusterRouting;

  public RestServer(Vertx vertx, Catalog catalog, CommitService commitService) {
    this(vertx, catalog, commitService, RestServerOptions.defaults());
  }

  public RestServer(Vertx vertx, Catalog catalog, CommitService commitService, RestServerOptions options) {
    this.vertx = vertx;
    this.options = options;
    this.forbidden = Authentication.failureCounter(options.meterRegistry()).withTags("reason", "forbidden");
    this.router = buildRouter(catalog, commitService);
  }

  /**
   * Binds the server; {@code port} 0 picks a free port. Completes with the port actually bound. With
   * {@link RestServerOptions#eventLoops()} above 1, that many server verticles share the port, each on its own event
   * loop (Vert.x hands each connection to one of them in turn), so requests are parsed and answered on every core.
   */
  public synchronized Future<Integer> start(String host, int port) {
    if (!deployments.isEmpty()) {
      return Future.failedFuture(new IllegalStateException("RestServer already started"));
    }
    // Port -1 asks Vert.x for one random port shared by every instance (0 would give each its own).
    int shared = port == 0 && options.eventLoops() > 1 ? -1 : port;
    List<HttpVerticle> instances = new ArrayList<>();
    return vertx.deployVerticle(() -> {
          HttpVerticle verticle = new HttpVerticle(host, shared);
          synchronized (instances) {
            instances.add(verticle);
          }
          return verticle;
        }, new DeploymentOptions().setInstances(options.eventLoops()))
        .map(id -> {
          synchronized (this) {
            deployments.add(id);
          }
          synchronized (instances) {
            return instances.get(0).actualPort;
          }
        });
  }

  /** Stops accepting requests; completes when the listening sockets are closed. */
  public synchronized Future<Void> close() {
    List<Future<Void>> closing = new ArrayList<>();
    deployments.forEach(id -> closing.add(vertx.undeploy(id)));
    deployments.clear();
    return Future.all(closing).<Void>mapEmpty().onComplete(done -> {
      if (clusterRouting != null) {
        clusterRouting.close();
      }
    });
  }

  /** One HTTP server on the event loop of its verticle instance, serving the shared router. */
  private final class HttpVerticle extends AbstractVerticle {
    private final String host;
    private final int port;
    private volatile int actualPort;

    HttpVerticle(String host, int port) {
      this.host = host;
      this.port = port;
    }

    @Override
    public void start(Promise<Void> started) {
      vertx.createHttpServer(new HttpServerOptions().setHost(host).setPort(port))
          .requestHandler(router)
          .listen()
          .onSuccess(server -> {
            actualPort = server.actualPort();
            started.complete();
          })
          .onFailure(started::fail);
    }
  }

  /** The router, for mounting under another server in tests or tools. */
  public Router router() {
    return router;
  }

  private Router buildRouter(Catalog catalog, CommitService commitService) {
    Blocking blocking = new Blocking(vertx, options.blockingExecutor().orElse(null));
    AccessControl access = options.accessControl();
    TableEventNotifier tableEvents = new TableEventNotifier(options.tableEventIntents(), Clock.systemUTC());
    Router r = Router.router(vertx);
    // Before authentication: probes and scrapes carry no credentials, and the answers reveal nothing about tables.
    // Before tracing too: a probe every few seconds is not worth a trace.
    Optional<ClusterOptions> cluster = options.cluster();
    ProbeRoutes.mountHealth(r, options.eventsStatus(), options.readiness(),
        cluster.map(c -> c.ownership()::status));
    options.metrics().ifPresent(scrape -> ProbeRoutes.mountMetrics(r, scrape));
    r.route().handler(new HttpTracing(options.openTelemetry())::handle);
    Authentication authentication = new Authentication(access, options.meterRegistry(),
        cluster.map(ClusterOptions::signer).orElse(null));
    r.route().handler(authentication::handle);
    // No route takes a form, and Vert.x's form decoder throws on a malformed one inside the body handler: refuse
    // form bodies before it reads them (found by the fuzz suite as a 500).
    r.route().handler(RestServer::refuseForms);
    r.route().handler(BodyHandler.create(false).setBodyLimit(options.maxBodyBytes()));
    if (cluster.isPresent()) {
      // Forwarded requests are believed once their signature, which covers the body, checks out; then the requests
      // that change a table go to its owner, before the routes below run.
      r.route().handler(authentication::verifyForwarded);
      clusterRouting = new ClusterRouting(vertx, cluster.get());
      clusterRouting.mount(r);
      options.laneLeases().ifPresent(leases ->
          new InternalLaneRoutes(leases, cluster.get().ownership(), blocking).mount(r));
    }
    new NamespaceRoutes(catalog, blocking, access).mount(r);
    new TableListRoutes(catalog, blocking, access).mount(r);
    new TableRoutes(catalog, blocking, access, new CredentialVending(options.credentialVendor(), access),
        new ManagedVersioning(options.managedVersioningByDefault()), tableEvents).mount(r);
    new TableLifecycleRoutes(catalog, blocking, access, tableEvents).mount(r);
    Optional<Function<String, StorageLocation>> stores = options.tableStorage();
    Executor continuations = options.blockingExecutor().orElse(ForkJoinPool.commonPool());
    Optional<Branches> branches = stores.map(s -> new Branches(s, commitService, options.refLocks(), continuations,
        Clock.systemUTC()));
    new TableVersionRoutes(catalog, stores, branches, blocking, access).mount(r);
    new CreateTableVersionRoute(catalog,
        stores.map(s -> new CreateTableVersion(commitService, s)), branches, blocking, access)
        .mount(r);
    new CommitRoute(catalog, commitService, branches, blocking, access).mount(r);
    new RestoreTableRoute(catalog, stores.map(s -> new RestoreTable(commitService, s)), branches, blocking, access)
        .mount(r);
    new TableStatsRoute(catalog, stores, branches, blocking, access).mount(r);
    new TagRoutes(catalog, stores.map(s -> new Tags(s, options.refLocks(), Clock.systemUTC())), blocking, access)
        .mount(r);
    new BranchRoutes(catalog, branches, blocking, access).mount(r);
    new VersionDeleteRoute(catalog, stores.map(s -> new VersionRecords(s, options.refLocks(), options.removalLog())),
        blocking, access).mount(r);
    new SemanticTypesUpgradeRoute(catalog,
        stores.map(s -> new SemanticTypesUpgrade(commitService, s)), blocking, access)
        .mount(r);
    new BatchRoutes(catalog, options.batches(), stores.map(s -> new CreateTableVersion(commitService, s)), blocking,
        access).mount(r);
    new SchemaRoutes(catalog, stores.map(s -> new SchemaChange(commitService, s)),
        blocking, access).mount(r);
    new VerifyTableRoute(catalog, stores, branches, blocking, access,
        options.blockingExecutor().orElse(Runnable::run), options.verifyParallelism()).mount(r);
    UnsupportedRoutes.mount(r);
    r.route().failureHandler(this::renderFailure);
    r.errorHandler(404, ctx -> Responses.error(ctx,
        ApiException.routeNotFound(ctx.request().method().name(), ctx.request().path())));
    r.errorHandler(405, ctx -> Responses.error(ctx,
        ApiException.methodNotAllowed(ctx.request().method().name(), ctx.request().path())));
    return r;
  }

  private static void refuseForms(RoutingContext ctx) {
    String type = ctx.request().getHeader("content-type");
    String media = type == null ? "" : type.split(";", 2)[0].trim().toLowerCase(java.util.Locale.ROOT);
    if (media.equals("application/x-www-form-urlencoded") || media.startsWith("multipart/")) {
      ctx.fail(ApiException.invalidInput("Unsupported content type '" + media + "'",
          "This API takes application/json bodies (and application/x-protobuf for CommitTable), never forms"));
      return;
    }
    ctx.next();
  }

  private void renderFailure(RoutingContext ctx) {
    Throwable failure = ctx.failure();
    if (failure != null && ErrorMapper.unwrap(failure) instanceof PermissionDeniedException) {
      forbidden.increment();
    }
    int status = failure instanceof HttpException http ? http.getStatusCode() : ctx.statusCode();
    ApiException error;
    if (failure == null || failure instanceof HttpException) {
      error = fromStatus(ctx, status);
    } else {
      error = ErrorMapper.toApiException(failure);
    }
    Responses.error(ctx, error);
  }

  private ApiException fromStatus(RoutingContext ctx, int status) {
    switch (status) {
      case 413:
        return ApiException.bodyTooLarge(options.maxBodyBytes());
      case 404:
        return ApiException.routeNotFound(ctx.request().method().name(), ctx.request().path());
      case 405:
        return ApiException.methodNotAllowed(ctx.request().method().name(), ctx.request().path());
      case 400:
        return ApiException.invalidInput("Bad request");
      default:
        return ErrorMapper.toApiException(new IllegalStateException("Request failed with status " + status));
    }
  }
}
