package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.cluster.ForwardSigner;
import dev.lancecommit.coordinator.cluster.Route;
import dev.lancecommit.coordinator.cluster.TableOwnership;
import dev.lancecommit.coordinator.commit.CheckedCommit;
import dev.lancecommit.coordinator.commit.CommitRequest;
import dev.lancecommit.coordinator.commit.CommitResult;
import dev.lancecommit.coordinator.commit.HeldLane;
import dev.lancecommit.coordinator.commit.TableLanes;
import dev.lancecommit.coordinator.commit.TableNotOwnedException;
import dev.lancecommit.coordinator.storage.StoreOutcomeUnknownException;
import dev.lancecommit.coordinator.storage.StoreUnavailableException;
import dev.lancecommit.coordinator.table.TableRef;
import io.netty.channel.ConnectTimeoutException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.net.ConnectException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cluster mode: the lanes an atomic batch holds, wherever their tables are owned. A table owned here is held on this
 * instance's own lane, exactly as on a single coordinator; a table owned by another instance is held there, over the
 * internal lane routes ({@link InternalLaneRoutes}, signed with the cluster secret), and checked and applied by that
 * owner, which keeps the built version. So the instance that received a batch coordinates it whoever owns its
 * tables. While a table has no owner (a rebalance), its hold waits for one, at most {@code cluster.owner-wait.ms}.
 *
 * <p>A remote hold has a lease on its owner, renewed from here every third of it; the owner's answer to a call on a
 * hold that ended (lease run out, owner restarted, table moved) is a lost lane ({@link TableNotOwnedException}),
 * which the batch answers before its record as a member failure (nothing written) and after it by completing the
 * recorded batch through the tables' current owners. The calls of a {@link HeldLane} block: they are made on the
 * batch's worker thread, never on an event loop (release alone is asynchronous, so it may be called anywhere).
 */
public final class ClusterLanes implements TableLanes, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterLanes.class);
  private static final long WAIT_SLICE_MS = 250;
  /** Whom internal calls act as on the owner (no caller's grants are checked there: the batch checked them). */
  private static final String PRINCIPAL = "lance-commit-cluster";

  private final Vertx vertx;
  private final TableLanes local;
  private final TableOwnership ownership;
  private final ForwardSigner signer;
  private final WebClient client;
  private final long ownerWaitMillis;
  private final long callTimeoutMillis;

  public ClusterLanes(Vertx vertx, ClusterOptions options, TableLanes local) {
    this.vertx = Objects.requireNonNull(vertx, "vertx");
    this.local = Objects.requireNonNull(local, "local");
    this.ownership = options.ownership();
    this.signer = options.signer();
    this.ownerWaitMillis = options.ownerWait().toMillis();
    this.callTimeoutMillis = options.forwardTimeout().toMillis();
    this.client = RequestForwarder.client(vertx, options);
  }

  @Override
  public CompletableFuture<HeldLane> hold(TableRef table) {
    return hold(table, UUID.randomUUID().toString());
  }

  @Override
  public CompletableFuture<HeldLane> hold(TableRef table, String batchId) {
    CompletableFuture<HeldLane> held = new CompletableFuture<>();
    attempt(table, batchId, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ownerWaitMillis), held, "");
    return held;
  }

  @Override
  public boolean ownedHere(java.util.Collection<TableRef> tables) {
    return tables.stream().allMatch(table -> ownership.route(table.joinedId()) instanceof Route.Local);
  }

  private void attempt(TableRef table, String batchId, long deadline, CompletableFuture<HeldLane> held,
      String lastReason) {
    Route route = ownership.route(table.joinedId());
    if (route instanceof Route.Local) {
      local.hold(table).whenComplete((lane, failure) -> {
        if (failure == null) {
          held.complete(lane);
        } else {
          held.completeExceptionally(failure);
        }
      });
      return;
    }
    if (route instanceof Route.Remote remote) {
      JsonObject body = new JsonObject().put("table_id", new JsonArray(table.id())).put("location", table.location())
          .put("table_uuid", table.tableUuid()).put("branch", table.branch()).put("batch_id", batchId);
      call(remote.url(), InternalLaneRoutes.PREFIX + "/hold", body).onComplete(done -> {
        if (done.succeeded()) {
          JsonObject answer = done.result();
          held.complete(new RemoteHeldLane(remote.url(), table, answer.getString("hold_id"),
              answer.getLong("lease_ms")));
        } else if (done.cause() instanceof TableNotOwnedException lost) {
          waitThenAttempt(table, batchId, deadline, held, lost.getMessage());
        } else {
          held.completeExceptionally(done.cause());
        }
      });
      return;
    }
    waitThenAttempt(table, batchId, deadline, held, ((Route.Unowned) route).reason());
  }

  private void waitThenAttempt(TableRef table, String batchId, long deadline, CompletableFuture<HeldLane> held,
      String reason) {
    long remaining = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
    if (remaining <= 0) {
      held.completeExceptionally(new StoreUnavailableException("No coordinator could hold the lane of table "
          + table.joinedId() + " within cluster.owner-wait.ms (" + ownerWaitMillis + " ms): " + reason
          + "; resubmitting the same request is safe", null));
      return;
    }
    AtomicBoolean resumed = new AtomicBoolean();
    long timer = vertx.setTimer(Math.max(1, Math.min(remaining, WAIT_SLICE_MS)), id -> {
      if (resumed.compareAndSet(false, true)) {
        attempt(table, batchId, deadline, held, reason);
      }
    });
    ownership.changed().whenComplete((ignored, error) -> {
      if (resumed.compareAndSet(false, true)) {
        vertx.cancelTimer(timer);
        attempt(table, batchId, deadline, held, reason);
      }
    });
  }

  /**
   * One signed call to another instance. Fails with {@link TableNotOwnedException} when the hold is gone there (or
   * the instance cannot be reached at all: its holds went with it), with the owner's error otherwise
   * ({@link #failure}), and with {@link StoreOutcomeUnknownException} when no answer came.
   */
  private Future<JsonObject> call(String url, String path, JsonObject body) {
    try {
      return send(url, path, body);
    } catch (RuntimeException e) {
      // the client is closed (this instance is stopping): nothing was sent, and its holds end with their leases
      return Future.failedFuture(new TableNotOwnedException("Not sent to coordinator " + url + ": " + e));
    }
  }

  private Future<JsonObject> send(String url, String path, JsonObject body) {
    Buffer bytes = body.toBuffer();
    ForwardSigner.Forwarded call = new ForwardSigner.Forwarded(PRINCIPAL, 1, 0, ownership.generation(),
        ownership.self());
    HttpRequest<Buffer> request = client.postAbs(url + path).timeout(callTimeoutMillis)
        .putHeader("content-type", "application/json");
    RequestForwarder.sign(request.headers(), signer, path, call, bytes.getBytes());
    return request.sendBuffer(bytes)
        .recover(cause -> Future.failedFuture(cause instanceof ConnectException
            || cause instanceof ConnectTimeoutException
            ? new TableNotOwnedException("Coordinator " + url + " cannot be reached (" + cause.getMessage() + ")")
            : new StoreOutcomeUnknownException("No answer from coordinator " + url + " to " + path + ": " + cause,
                cause)))
        .compose(answer -> {
          if (answer.statusCode() == 204) {
            return Future.succeededFuture(new JsonObject());
          }
          if (answer.statusCode() == 200) {
            return Future.succeededFuture(answer.bodyAsJsonObject());
          }
          return Future.failedFuture(failure(url, answer));
        });
  }

  /** The owner's error as the same answer here: a lost lane, a store failure (retried), or its status and code. */
  private static RuntimeException failure(String url, HttpResponse<Buffer> answer) {
    JsonObject error;
    try {
      error = answer.bodyAsJsonObject();
    } catch (RuntimeException e) {
      error = null;
    }
    if (error == null) {
      error = new JsonObject();
    }
    String message = error.getString("error", "HTTP " + answer.statusCode() + " from " + url);
    String detail = error.getString("detail", message);
    if (answer.getHeader(InternalLaneRoutes.LANE_LOST) != null) {
      return new TableNotOwnedException(detail);
    }
    if (answer.statusCode() == 503) {
      return new StoreUnavailableException(message + ": " + detail + " (at " + url + ")", null);
    }
    Map<String, Object> fields = new LinkedHashMap<>();
    error.forEach(member -> {
      if (!ApiException.SPEC_MEMBERS.contains(member.getKey()) && member.getValue() != null
          && !(member.getValue() instanceof JsonObject) && !(member.getValue() instanceof JsonArray)) {
        fields.put(member.getKey(), member.getValue());
      }
    });
    return new ApiException(answer.statusCode(), error.getInteger("code", ErrorCode.INTERNAL.code()), message,
        detail).withFields(fields);
  }

  private <T> T await(Future<T> future) {
    try {
      return future.toCompletionStage().toCompletableFuture().get(callTimeoutMillis + 5_000, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException re ? re : new IllegalStateException(e.getCause());
    } catch (TimeoutException e) {
      throw new StoreOutcomeUnknownException("No answer from another coordinator in time", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreUnavailableException("Interrupted while waiting for another coordinator", e);
    }
  }

  @Override
  public void close() {
    client.close();
  }

  /** A lane held on the table's owner: check and apply are calls there; the lease is renewed from here. */
  private final class RemoteHeldLane implements HeldLane {
    private final String owner;
    private final TableRef table;
    private final String holdId;
    private final long renewTimer;
    private final AtomicBoolean released = new AtomicBoolean();
    private volatile String lost;

    RemoteHeldLane(String owner, TableRef table, String holdId, long leaseMillis) {
      this.owner = owner;
      this.table = table;
      this.holdId = holdId;
      this.renewTimer = vertx.setPeriodic(Math.max(10, leaseMillis / 3), id -> renew());
    }

    private String path(String call) {
      return InternalLaneRoutes.PREFIX + "/" + holdId + "/" + call;
    }

    private void renew() {
      if (released.get()) {
        return;
      }
      call(owner, path("renew"), new JsonObject()).onFailure(failure -> {
        if (failure instanceof TableNotOwnedException) {
          lost = failure.getMessage();
          vertx.cancelTimer(renewTimer);
        }
        LOG.debug("Renewing hold {} of table {} at {} failed: {}", holdId, table.joinedId(), owner, failure.toString());
      });
    }

    private void requireHeld() {
      if (released.get()) {
        throw new IllegalStateException("The lane of " + table.joinedId() + " was released");
      }
      if (lost != null) {
        throw new TableNotOwnedException(lost);
      }
    }

    @Override
    public TableRef table() {
      return table;
    }

    @Override
    public boolean elsewhere() {
      return true;
    }

    @Override
    public CheckedCommit check(CommitRequest request) {
      requireHeld();
      JsonObject answer = await(call(owner, path("check"), InternalLaneRoutes.request(request)));
      return CheckedCommit.checkedElsewhere(request, answer.getLong("version"),
          answer.getBoolean("already_committed", false));
    }

    @Override
    public CommitResult apply(CheckedCommit checked, String batchId) {
      requireHeld();
      return InternalLaneRoutes.result(await(call(owner, path("apply"), new JsonObject().put("batch_id", batchId))));
    }

    @Override
    public void release(boolean handOverEvents) {
      if (!released.compareAndSet(false, true)) {
        return;
      }
      vertx.cancelTimer(renewTimer);
      JsonObject body = new JsonObject().put("hand_over_events", handOverEvents);
      call(owner, path("release"), body).onFailure(first -> call(owner, path("release"), body).onFailure(failure ->
          // the owner's lease ends the hold (deciding the batch first) when the release is lost
          LOG.warn("Releasing hold {} of table {} at {} failed: {}", holdId, table.joinedId(), owner,
              failure.toString())));
    }
  }
}
