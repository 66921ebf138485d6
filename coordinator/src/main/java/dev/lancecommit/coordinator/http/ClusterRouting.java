package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.cluster.ForwardSigner;
import dev.lancecommit.coordinator.cluster.OwnershipChanges;
import dev.lancecommit.coordinator.cluster.Route;
import dev.lancecommit.coordinator.cluster.TableOwnership;
import dev.lancecommit.coordinator.commit.TableNotOwnedException;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cluster mode: the requests that change a table go to the instance that owns it. Runs in front of the routes of
 * commits, CreateTableVersion, the semantic-types upgrade, the table-scoped catalog writes (so a table's events,
 * commit and catalog ones, come from its owner), the metadata-only schema changes and the changes of tags,
 * branches, restore and version records. For each request:
 *
 * <ul>
 *   <li>owned here: the route runs as on a single coordinator;
 *   <li>owned by another instance: the request is forwarded there ({@link RequestForwarder}) and its answer relayed;
 *   <li>no owner yet (a rebalance, a killed owner whose session has not run out, an owner that cannot be reached):
 *       the request waits for the ownership to change and tries again, until {@code cluster.owner-wait.ms} is up
 *       (then 503/17 naming why).
 * </ul>
 *
 * A forwarded request carries its hop count, what is left of its wait and the generation it was forwarded by: an
 * instance that received it by an older map than the sender's waits for its own to catch up, and past
 * {@code cluster.forward-max-hops} it waits instead of forwarding again, so requests never circle. A commit whose
 * lane finds it has lost the table ({@link TableNotOwnedException}, nothing written) is sent to the new owner the same
 * way, so is a commit whose forward got no answer (the same transaction is answered at most once: a resubmit that
 * already landed is answered with its version). Other requests that got no answer are answered 503/17.
 */
final class ClusterRouting {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterRouting.class);
  private static final long WAIT_SLICE_MS = 250;
  /** How long a forward may still answer after its target lost the table, before the request goes elsewhere. */
  private static final long MOVED_OWNER_GRACE_MS = 1000;
  static final String COMMIT_PATH = "/v1/table/:id/commit";
  /** Routes that change a table, all owned by the table's owner. */
  static final List<String> ROUTED = List.of(COMMIT_PATH, "/v1/table/:id/version/create",
      "/v1/table/:id/semantic-types/upgrade", "/v1/table/:id/declare", "/v1/table/:id/register",
      "/v1/table/:id/deregister", "/v1/table/:id/drop", "/v1/table/:id/rename",
      // tags, branches, restore and version records: their per-table permits (RefLocks) and the removal log that
      // guards the retention cleanup live in the owner's process; a branch's first version and a restore are commits
      "/v1/table/:id/branches/create", "/v1/table/:id/branches/delete", "/v1/table/:id/tags/create",
      "/v1/table/:id/tags/update", "/v1/table/:id/tags/delete", "/v1/table/:id/restore",
      "/v1/table/:id/version/delete",
      // the metadata-only schema changes: each is a commit through the table's lane
      "/v1/table/:id/schema_metadata/update", "/v1/table/:id/update_field_metadata", "/v1/table/:id/alter_columns",
      "/v1/table/:id/drop_columns");
  /**
   * Atomic batches: their tables are named in the body; sent to the owner when one other instance owns all of them,
   * else coordinated here.
   */
  static final List<String> BATCHES = List.of("/v1/table/version/batch-create", "/v1/table/batch-commit");
  private static final String ATTEMPT = "lancecommit.cluster.attempt";

  private final ClusterOptions options;
  private final TableOwnership ownership;
  private final OwnershipChanges changes;
  private final RequestForwarder forwarder;

  ClusterRouting(Vertx vertx, ClusterOptions options) {
    this.options = options;
    this.ownership = options.ownership();
    this.changes = new OwnershipChanges(ownership);
    this.forwarder = new RequestForwarder(vertx, options);
  }

  /** Mounts in front of the routes: call before they are mounted. */
  void mount(Router router) {
    for (String path : ROUTED) {
      router.post(path).handler(this::route).failureHandler(this::onFailure);
    }
    for (String path : BATCHES) {
      router.post(path).handler(this::routeBatch).failureHandler(this::onFailure);
    }
  }

  void close() {
    forwarder.close();
  }

  /** One request's journey: what it is, where it came from, how long it may still wait. */
  private static final class Attempt {
    final String key;
    /** A batch's other tables (empty for a one-table request): all must be owned where the request is served. */
    final List<String> others;
    final int hops;
    final int senderGeneration;
    final long deadlineNanos;
    final boolean resendable;
    boolean handedBack;

    Attempt(String key, int hops, int senderGeneration, long deadlineNanos, boolean resendable) {
      this(key, List.of(), hops, senderGeneration, deadlineNanos, resendable);
    }

    Attempt(String key, List<String> others, int hops, int senderGeneration, long deadlineNanos,
        boolean resendable) {
      this.key = key;
      this.others = List.copyOf(others);
      this.hops = hops;
      this.senderGeneration = senderGeneration;
      this.deadlineNanos = deadlineNanos;
      this.resendable = resendable;
    }

    long remainingMillis() {
      return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()));
    }
  }

  private void route(RoutingContext ctx) {
    List<String> id = RequestIds.fromPath(ctx);
    if (id.isEmpty()) {
      ctx.next(); // the route refuses the root namespace as a table id
      return;
    }
    ForwardSigner.Forwarded received = Authentication.forwarded(ctx);
    long wait = options.ownerWait().toMillis();
    if (received != null) {
      wait = Math.min(wait, received.waitMillis());
    }
    Attempt attempt = new Attempt(String.join("$", id), received == null ? 0 : received.hops(),
        received == null ? 0 : received.generation(), System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(wait),
        ctx.currentRoute().getPath().equals(COMMIT_PATH));
    ctx.put(ATTEMPT, attempt);
    dispatch(ctx, attempt);
  }

  /**
   * An atomic batch ({@code BatchCreateTableVersions}, {@code BatchCommitTables}) whose tables one instance owns is
   * served there: here, or forwarded to it (no lane is then held across instances). A batch whose tables are owned by
   * different instances is coordinated here, the instance that received it: its members' lanes are held on their
   * owners ({@link ClusterLanes}). While one of its tables has no owner it waits, bounded, as any request does. A
   * body that names no tables goes on to the route, which answers what is wrong with it.
   */
  private void routeBatch(RoutingContext ctx) {
    List<String> keys = batchTables(ctx);
    if (keys.isEmpty()) {
      ctx.next();
      return;
    }
    ForwardSigner.Forwarded received = Authentication.forwarded(ctx);
    long wait = options.ownerWait().toMillis();
    if (received != null) {
      wait = Math.min(wait, received.waitMillis());
    }
    Attempt attempt = new Attempt(keys.get(0), keys.subList(1, keys.size()), received == null ? 0 : received.hops(),
        received == null ? 0 : received.generation(), System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(wait), false);
    ctx.put(ATTEMPT, attempt);
    dispatch(ctx, attempt);
  }

  /** The joined ids of the tables a batch names (entries[].id or operations[].create_table_version.id), in order. */
  private static List<String> batchTables(RoutingContext ctx) {
    JsonObject body;
    try {
      body = ctx.body().asJsonObject();
    } catch (RuntimeException e) {
      return List.of();
    }
    if (body == null) {
      return List.of();
    }
    Object entries = body.getValue(ctx.currentRoute().getPath().endsWith("batch-create") ? "entries" : "operations");
    if (!(entries instanceof JsonArray list)) {
      return List.of();
    }
    Set<String> keys = new LinkedHashSet<>();
    for (Object item : list) {
      if (!(item instanceof JsonObject entry)) {
        continue;
      }
      Object member = entry.getValue("create_table_version");
      JsonObject target = member instanceof JsonObject create ? create : entry;
      if (target.getValue("id") instanceof JsonArray id && !id.isEmpty()) {
        List<String> parts = new ArrayList<>();
        id.forEach(part -> parts.add(String.valueOf(part)));
        keys.add(String.join("$", parts));
      }
    }
    return List.copyOf(keys);
  }

  /**
   * Where the attempt goes: its table's route; for a batch, that route only if every other table's is the same
   * (one owner for all), else the first table without an owner, or here ({@link Route.Local}) when they are owned by
   * different instances: this instance coordinates the batch.
   */
  private Route routeOf(Attempt attempt) {
    Route first = ownership.route(attempt.key);
    if (attempt.others.isEmpty() || first instanceof Route.Unowned) {
      return first;
    }
    boolean mixed = false;
    for (String other : attempt.others) {
      Route route = ownership.route(other);
      if (route instanceof Route.Unowned) {
        return route;
      }
      boolean same = route instanceof Route.Local && first instanceof Route.Local
          || route instanceof Route.Remote r && first instanceof Route.Remote f && r.url().equals(f.url());
      if (!same) {
        mixed = true;
      }
    }
    return mixed ? new Route.Local(first.partition()) : first;
  }

  /** A route failed: a commit this instance turned out not to own is sent to the owner, the rest answered. */
  private void onFailure(RoutingContext ctx) {
    Attempt attempt = ctx.get(ATTEMPT);
    if (attempt != null && !attempt.handedBack && !ctx.response().ended()
        && ErrorMapper.unwrap(ctx.failure()) instanceof TableNotOwnedException) {
      attempt.handedBack = true;
      LOG.debug("Table {} was handed over while its request was here; sending it to the owner", attempt.key);
      dispatch(ctx, attempt);
      return;
    }
    ctx.next();
  }

  private void dispatch(RoutingContext ctx, Attempt attempt) {
    if (ctx.response().ended() || ctx.response().closed()) {
      return;
    }
    Route route = routeOf(attempt);
    if (route instanceof Route.Local) {
      if (!attempt.handedBack) {
        ctx.next(); // the route runs here
        return;
      }
      // The route already ran once and found the table gone; it cannot run twice on one request: go round again.
      forwardTo(ctx, attempt, ownership.self());
      return;
    }
    if (route instanceof Route.Remote remote) {
      if (attempt.senderGeneration > remote.generation()) {
        await(ctx, attempt, "this instance has not seen generation " + attempt.senderGeneration
            + " of the cluster yet, which sent the request here");
        return;
      }
      forwardTo(ctx, attempt, remote.url());
      return;
    }
    await(ctx, attempt, ((Route.Unowned) route).reason());
  }

  private void forwardTo(RoutingContext ctx, Attempt attempt, String url) {
    if (attempt.hops >= options.maxHops()) {
      await(ctx, attempt, "the request was forwarded " + attempt.hops + " times already");
      return;
    }
    ForwardSigner.Forwarded call = new ForwardSigner.Forwarded(Authentication.principal(ctx).name(),
        attempt.hops + 1, attempt.remainingMillis(), ownership.generation(), ownership.self());
    AtomicBoolean settled = new AtomicBoolean();
    AtomicReference<Runnable> stopWatching = new AtomicReference<>(() -> { });
    forwarder.forward(ctx, url, call).onComplete(done -> {
      stopWatching.get().run();
      if (!settled.compareAndSet(false, true)) {
        return; // given up on while it was under way: the request went on elsewhere
      }
      if (done.succeeded()) {
        RequestForwarder.relay(ctx, url, done.result());
      } else {
        onForwardFailed(ctx, attempt, url, done.cause());
      }
    });
    watchOwner(ctx, attempt, url, settled, stopWatching);
  }

  /**
   * While a forward is under way, watches the table's ownership: when another instance (or this one) takes the
   * table over from {@code url}, the owner the request waits for was killed or paused (a live owner gives a table up
   * only once the commits under way are done). A commit is then sent to the new owner (a transaction is answered
   * at most once: if the old owner wrote it, the new one answers it as already committed); any other request is
   * answered 503/17, since it cannot be repeated blindly.
   */
  private void watchOwner(RoutingContext ctx, Attempt attempt, String url, AtomicBoolean settled,
      AtomicReference<Runnable> stopWatching) {
    Context context = ctx.vertx().getOrCreateContext();
    // Listen first, then look: a change between the look and the listening would otherwise go unseen, and the request
    // would wait for the forward's timeout on an owner that is gone (the membership signals a new map and the
    // partitions it assigns here one after the other).
    stopWatching.set(changes.next(() -> context.runOnContext(v -> {
      if (!settled.get()) {
        watchOwner(ctx, attempt, url, settled, stopWatching);
      }
    })));
    if (settled.get()) {
      stopWatching.get().run(); // answered before the watch began
      return;
    }
    if (movedAway(attempt, url)) {
      stopWatching.get().run();
      // An owner that handed the table over properly answers in a moment (it sends the request on itself); one that
      // was killed or paused does not. Give it that moment before sending the request elsewhere.
      ctx.vertx().setTimer(MOVED_OWNER_GRACE_MS, id -> giveUp(ctx, attempt, url, settled));
    }
  }

  /** Whether the table's owner is no longer {@code url}: this instance or another took it over. */
  private boolean movedAway(Attempt attempt, String url) {
    Route now = ownership.route(attempt.key);
    String owner = now instanceof Route.Local ? ownership.self() : now instanceof Route.Remote r ? r.url() : null;
    return owner != null && !owner.equals(url);
  }

  private void giveUp(RoutingContext ctx, Attempt attempt, String url, AtomicBoolean settled) {
    if (!settled.compareAndSet(false, true)) {
      return;
    }
    if (attempt.resendable) {
      LOG.info("Table {} moved away from {} while a commit waited for it there; sending it to the new owner",
          attempt.key, url);
      dispatch(ctx, attempt);
    } else {
      fail(ctx, outcomeUnknown(attempt, url, "it lost the table while the request was there"));
    }
  }

  private void onForwardFailed(RoutingContext ctx, Attempt attempt, String url, Throwable cause) {
    RequestForwarder.Failure failure = cause instanceof RequestForwarder.ForwardFailedException f
        ? f.failure() : RequestForwarder.Failure.NO_ANSWER;
    if (failure == RequestForwarder.Failure.NOT_SENT
        || failure == RequestForwarder.Failure.NO_ANSWER && attempt.resendable) {
      LOG.debug("Owner {} of table {} did not answer ({}); waiting for the cluster", url, attempt.key, cause);
      await(ctx, attempt, "the owner " + url + " cannot be reached (" + cause.getMessage() + ")");
    } else {
      fail(ctx, outcomeUnknown(attempt, url,
          "it did not answer (" + failure.name().toLowerCase(Locale.ROOT).replace('_', ' ') + ")"));
    }
  }

  private static ApiException outcomeUnknown(Attempt attempt, String url, String what) {
    return new ApiException(503, ErrorCode.SERVICE_UNAVAILABLE, "Outcome unknown",
        "The request was forwarded to " + url + ", the coordinator owning table " + attempt.key + ", and " + what
            + ". It may or may not have been applied; resubmitting the same request is safe.");
  }

  /** Waits for the ownership to change (or a short slice to pass) and dispatches again, until the deadline. */
  private void await(RoutingContext ctx, Attempt attempt, String reason) {
    long remaining = attempt.remainingMillis();
    if (remaining <= 0) {
      fail(ctx, new ApiException(503, ErrorCode.SERVICE_UNAVAILABLE, "No coordinator serves this table right now",
          "Table " + attempt.key + ": " + reason + ". Waited " + options.ownerWait().toMillis()
              + " ms (cluster.owner-wait.ms) for an owner; resubmitting the same request is safe."));
      return;
    }
    Vertx vertx = ctx.vertx();
    Context context = vertx.getOrCreateContext();
    AtomicBoolean resumed = new AtomicBoolean();
    AtomicLong timer = new AtomicLong(-1);
    Runnable cancel = changes.next(() -> context.runOnContext(v -> {
      if (resumed.compareAndSet(false, true)) {
        vertx.cancelTimer(timer.get());
        dispatch(ctx, attempt);
      }
    }));
    timer.set(vertx.setTimer(Math.max(1, Math.min(remaining, WAIT_SLICE_MS)), id -> {
      cancel.run();
      if (resumed.compareAndSet(false, true)) {
        dispatch(ctx, attempt);
      }
    }));
  }

  private static void fail(RoutingContext ctx, ApiException error) {
    if (!ctx.response().ended()) {
      Responses.error(ctx, error);
    }
  }
}
