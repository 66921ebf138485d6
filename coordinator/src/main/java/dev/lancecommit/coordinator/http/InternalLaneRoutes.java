package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.batch.LeasedHolds;
import dev.lancecommit.coordinator.cluster.TableOwnership;
import dev.lancecommit.coordinator.commit.CheckedCommit;
import dev.lancecommit.coordinator.commit.CommitRequest;
import dev.lancecommit.coordinator.commit.CommitResult;
import dev.lancecommit.coordinator.commit.TableNotOwnedException;
import dev.lancecommit.coordinator.table.TableRef;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * Cluster mode, between instances only: the lanes of the tables this instance owns, held for an atomic batch another
 * instance coordinates ({@link LeasedHolds}; the caller is {@link ClusterLanes}). Every call must be signed with the
 * cluster secret ({@link dev.lancecommit.coordinator.cluster.ForwardSigner}); a client gets 401.
 *
 * <ul>
 *   <li>{@code POST /v1/internal/lanes/hold} {@code {"table_id", "location", "table_uuid", "branch", "batch_id"}}:
 *       waits for the lane's turn; {@code {"hold_id", "lease_ms"}};
 *   <li>{@code POST /v1/internal/lanes/{hold}/check} with the member's commit request: {@code {"version",
 *       "already_committed"}}, or the error a single commit would get;
 *   <li>{@code POST /v1/internal/lanes/{hold}/apply} {@code {"batch_id"}}: the commit result;
 *   <li>{@code POST /v1/internal/lanes/{hold}/renew}, {@code POST /v1/internal/lanes/{hold}/release}
 *       {@code {"hand_over_events"}}: 204 (release is idempotent).
 * </ul>
 *
 * A failure that means the hold is gone (it ended, or this instance does not own the table) carries
 * {@value #LANE_LOST}: the caller then goes through the table's current owner.
 */
final class InternalLaneRoutes {
  static final String PREFIX = "/v1/internal/lanes";
  /** On an error answer: the hold is gone or the table is not owned here; nothing of the call was done. */
  static final String LANE_LOST = "x-lcc-lane-lost";

  private final LeasedHolds holds;
  private final TableOwnership ownership;
  private final Blocking blocking;

  InternalLaneRoutes(LeasedHolds holds, TableOwnership ownership, Blocking blocking) {
    this.holds = holds;
    this.ownership = ownership;
    this.blocking = blocking;
  }

  void mount(Router router) {
    router.post(PREFIX + "/hold").handler(this::hold);
    // Every handler checks the caller before it starts anything: a check or an apply must never run for a client.
    router.post(PREFIX + "/:hold/check").handler(ctx -> {
      requireInstance(ctx);
      answer(ctx, blocking.run(() -> {
        CheckedCommit checked = holds.check(ctx.pathParam("hold"), request(body(ctx)));
        return new JsonObject().put("version", checked.version())
            .put("already_committed", checked.alreadyCommitted());
      }));
    });
    router.post(PREFIX + "/:hold/apply").handler(ctx -> {
      requireInstance(ctx);
      answer(ctx, blocking.run(() -> result(holds.apply(ctx.pathParam("hold"), body(ctx).getString("batch_id")))));
    });
    router.post(PREFIX + "/:hold/renew").handler(ctx -> {
      requireInstance(ctx);
      holds.renew(ctx.pathParam("hold"));
      ctx.response().setStatusCode(204).end();
    });
    router.post(PREFIX + "/:hold/release").handler(ctx -> {
      requireInstance(ctx);
      boolean handOver = body(ctx).getBoolean("hand_over_events", false);
      // on a worker: it waits for a check or write under way on the hold to finish
      blocking.run(() -> {
        holds.release(ctx.pathParam("hold"), handOver);
        return null;
      }).onSuccess(ignored -> ctx.response().setStatusCode(204).end()).onFailure(ctx::fail);
    });
  }

  private void hold(RoutingContext ctx) {
    requireInstance(ctx);
    JsonObject body = body(ctx);
    List<String> id = new ArrayList<>();
    JsonArray parts = body.getJsonArray("table_id", new JsonArray());
    parts.forEach(p -> id.add(String.valueOf(p)));
    String batchId = body.getString("batch_id");
    if (id.isEmpty() || body.getString("location") == null || batchId == null) {
      throw ApiException.invalidInput("A lane hold needs table_id, location and batch_id");
    }
    TableRef table = new TableRef(id, body.getString("location"), body.getString("table_uuid"),
        body.getString("branch"));
    if (!ownership.serves(table.joinedId())) {
      throw new TableNotOwnedException("This coordinator does not own table " + table.joinedId());
    }
    answer(ctx, Future.fromCompletionStage(holds.hold(table, batchId), ctx.vertx().getOrCreateContext())
        .map(holdId -> new JsonObject().put("hold_id", holdId).put("lease_ms", holds.lease().toMillis())));
  }

  private static void answer(RoutingContext ctx, Future<JsonObject> work) {
    work.onSuccess(json -> Responses.json(ctx, json)).onFailure(failure -> {
      if (ErrorMapper.unwrap(failure) instanceof TableNotOwnedException) {
        ctx.response().putHeader(LANE_LOST, "true");
      }
      ctx.fail(failure);
    });
  }

  /** Only another instance of the cluster (a request signed with the cluster secret) holds lanes. */
  private static void requireInstance(RoutingContext ctx) {
    if (Authentication.forwarded(ctx) == null) {
      throw new dev.lancecommit.coordinator.auth.UnauthenticatedException(
          "Internal lane routes answer only other instances of the cluster");
    }
  }

  private static JsonObject body(RoutingContext ctx) {
    try {
      JsonObject json = ctx.body().asJsonObject();
      return json == null ? new JsonObject() : json;
    } catch (RuntimeException e) {
      throw ApiException.invalidInput("Malformed JSON body");
    }
  }

  // ------------------------------------------------------------------------------------------- wire format

  static JsonObject request(CommitRequest request) {
    Base64.Encoder b64 = Base64.getEncoder();
    return new JsonObject()
        .put("transaction", b64.encodeToString(request.transaction()))
        .put("affected_rows", request.affectedRows().map(b64::encodeToString).orElse(null))
        .put("rebase", request.rebase())
        .put("actor", request.actor())
        .put("rebase_over_appends_only", request.rebaseOverAppendsOnly())
        .put("groupable", request.groupable())
        .put("lands_as", request.landsAs())
        .put("transaction_file", request.transactionFile().name())
        // what an instance of an earlier build reads instead (it then reads the file once more)
        .put("transaction_file_written", request.transactionFile() != CommitRequest.TransactionFile.NOT_WRITTEN);
  }

  static CommitRequest request(JsonObject json) {
    Base64.Decoder b64 = Base64.getDecoder();
    String transaction = json.getString("transaction");
    if (transaction == null) {
      throw ApiException.invalidInput("A lane check needs 'transaction'");
    }
    return new CommitRequest(b64.decode(transaction),
        Optional.ofNullable(json.getString("affected_rows")).map(b64::decode), json.getBoolean("rebase", false),
        json.getString("actor", "anonymous"), json.getBoolean("rebase_over_appends_only", false),
        json.getBoolean("groupable", false), json.getLong("lands_as", 0L),
        transactionFile(json));
  }

  /** An instance of an earlier build sends only whether the writer wrote the file. */
  private static CommitRequest.TransactionFile transactionFile(JsonObject json) {
    String named = json.getString("transaction_file");
    if (named != null) {
      try {
        return CommitRequest.TransactionFile.valueOf(named);
      } catch (IllegalArgumentException e) {
        // a kind of a later build: the flag says what this build can use of it
      }
    }
    return json.getBoolean("transaction_file_written", false)
        ? CommitRequest.TransactionFile.WRITTEN : CommitRequest.TransactionFile.NOT_WRITTEN;
  }

  /** The owner's answer as CommitTable gives it; {@link #result(JsonObject)} reads it back. */
  static JsonObject result(CommitResult result) {
    JsonObject json = CommitRoute.toJson(result);
    result.written().ifPresent(written -> json
        .put("written_manifest_size", written.size())
        .put("written_timestamp", written.timestamp().toString()));
    return json;
  }

  static CommitResult result(JsonObject json) {
    Long size = json.getLong("written_manifest_size");
    String timestamp = json.getString("written_timestamp");
    Optional<CommitResult.WrittenManifest> written = size == null || timestamp == null ? Optional.empty()
        : Optional.of(new CommitResult.WrittenManifest(size, java.time.Instant.parse(timestamp)));
    return new CommitResult(json.getLong("version"), json.getLong("read_version"), json.getString("transaction_uuid"),
        json.getString("manifest_path"), json.getString("operation"), json.getInteger("group_size", 1),
        fragmentIds(json.getJsonArray("new_fragment_ids")), written);
  }

  private static java.util.List<Long> fragmentIds(io.vertx.core.json.JsonArray ids) {
    if (ids == null) {
      return java.util.List.of();
    }
    java.util.List<Long> list = new java.util.ArrayList<>(ids.size());
    for (int i = 0; i < ids.size(); i++) {
      list.add(ids.getLong(i));
    }
    return list;
  }
}
