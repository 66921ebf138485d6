package dev.lancecommit.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lancecommit.client.ErrorResponses.ErrorBody;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;

/**
 * The coordinator's REST surface as this client calls it, with the retry policy's resubmission rules. Thread-safe:
 * every call keeps its state on its own stack; the JDK {@link HttpClient} is shared.
 */
final class CoordinatorHttp {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String baseUrl;
  private final Optional<String> apiKey;
  private final Optional<String> bearerToken;
  private final RetryPolicy policy;
  private final Pacing pacing;
  private final HttpClient http;
  private final TableOwners owners;

  CoordinatorHttp(URI baseUri, Optional<String> apiKey, Optional<String> bearerToken, RetryPolicy policy,
      boolean routeToOwner) {
    String base = baseUri.toString();
    this.baseUrl = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
    this.owners = new TableOwners(baseUrl, routeToOwner, java.time.InstantSource.system());
    this.apiKey = apiKey;
    this.bearerToken = bearerToken;
    this.policy = policy;
    this.pacing = new Pacing(policy);
    this.http = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(10))
        .build();
  }

  /**
   * A namespace call with a JSON body. 429 is retried within the budget (the request was not processed); 5xx and
   * no answer only when {@code idempotent}.
   */
  JsonNode post(String call, String path, ObjectNode body, boolean idempotent) {
    HttpRequest request = request(path).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build();
    Attempts attempts = new Attempts();
    while (true) {
      HttpResponse<String> response;
      try {
        response = http.send(request, HttpResponse.BodyHandlers.ofString());
      } catch (IOException e) {
        if (idempotent && attempts.waitBeforeRetry(Optional.empty())) {
          continue;
        }
        throw new ServiceUnavailableException(call + " failed: no answer from " + baseUrl + " (" + e + ")", e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ServiceUnavailableException(call + " interrupted", e);
      }
      int status = response.statusCode();
      if (status == 200) {
        return parse(call, response.body());
      }
      boolean retry = status == 429 || status >= 500 && idempotent;
      if (retry && attempts.waitBeforeRetry(Pacing.retryAfter(response.headers(), Instant.now()))) {
        continue;
      }
      throw ErrorResponses.failure(call, status, ErrorBody.parse(response.body()));
    }
  }

  /**
   * CommitTable. Resubmits the identical bytes after 429, 5xx or no answer until the retry budget is spent; any
   * other answer is definite.
   *
   * @throws CommitStateUnknownException when no definite answer came and an attempt may have landed
   * @throws RequestFailedException for a definite refusal (409/14 is {@link RetryableConflictException})
   */
  CommitResult commit(TableId table, CommitRequest commit) {
    String call = "CommitTable " + table;
    Attempts attempts = new Attempts();
    boolean uncertain = false;
    String lastProblem = "";
    int lastStatus = 0;
    int lastCode = -1;
    Throwable lastCause = null;
    while (true) {
      String target = owners.urlFor(table);
      HttpResponse<String> response;
      try {
        response = http.send(commitRequest(target, table, commit), HttpResponse.BodyHandlers.ofString());
      } catch (IOException e) {
        uncertain = true;
        lastProblem = "no answer from " + target + " (" + e + ")";
        lastStatus = 0;
        lastCode = -1;
        lastCause = e;
        if (!target.equals(baseUrl)) {
          // The table's owner as last heard of: the configured URL reaches whichever instance owns it now. Sent
          // again at once, the same transaction is answered at most once.
          owners.unreachable(table, target);
          continue;
        }
        if (attempts.waitBeforeRetry(Optional.empty())) {
          continue;
        }
        throw unknown(call, table, commit, attempts, lastProblem, lastStatus, lastCode, lastCause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw unknown(call, table, commit, attempts, "interrupted while waiting for the answer", 0, -1, e);
      }
      int status = response.statusCode();
      owners.answered(table, target, response.headers().firstValue(TableOwners.SERVED_BY));
      if (status == 200) {
        JsonNode body;
        try {
          body = parse(call, response.body());
        } catch (RequestFailedException e) {
          throw unknown(call, table, commit, attempts, e.getMessage(), 200, -1, e);
        }
        if (!body.has("version")) {
          throw unknown(call, table, commit, attempts, "answer 200 without a version: " + response.body(), 200,
              -1, null);
        }
        return new CommitResult(body.get("version").asLong(), body.path("read_version").asLong(
            commit.transaction().getReadVersion()), body.path("transaction_uuid").asText(commit.transaction().getUuid()),
            body.path("manifest_path").asText(""), body.path("operation").asText(""));
      }
      ErrorBody error = ErrorBody.parse(response.body());
      if (status == 429) {
        if (attempts.waitBeforeRetry(Pacing.retryAfter(response.headers(), Instant.now()))) {
          continue;
        }
        if (uncertain) {
          throw unknown(call, table, commit, attempts, lastProblem + "; then throttled (429)", lastStatus, lastCode,
              lastCause);
        }
        throw ErrorResponses.failure(call + " (throttled for " + attempts.elapsed() + ")", status, error);
      }
      if (status >= 500) {
        uncertain = true;
        lastProblem = error.message(call, status);
        lastStatus = status;
        lastCode = error.code();
        lastCause = null;
        if (attempts.waitBeforeRetry(Pacing.retryAfter(response.headers(), Instant.now()))) {
          continue;
        }
        throw unknown(call, table, commit, attempts, lastProblem, lastStatus, lastCode, null);
      }
      throw ErrorResponses.failure(call, status, error);
    }
  }

  private static CommitStateUnknownException unknown(String call, TableId table, CommitRequest commit,
      Attempts attempts, String problem, int status, int code, Throwable cause) {
    return new CommitStateUnknownException(call + ": outcome unknown after " + attempts.count() + " attempt(s) in "
        + attempts.elapsed() + ", last: " + problem + ". Resubmitting the same request (transaction "
        + commit.transaction().getUuid() + ") is safe and settles it.", status, code, problem, table, commit, cause);
  }

  private HttpRequest commitRequest(String target, TableId table, CommitRequest commit) {
    HttpRequest.Builder builder = request(target, "/v1/table/" + encode(table) + "/commit");
    byte[] transaction = commit.transaction().toByteArray();
    Optional<byte[]> affectedRows = commit.affectedRows();
    if (affectedRows.isEmpty()) {
      return builder.header("Content-Type", "application/x-protobuf")
          .POST(HttpRequest.BodyPublishers.ofByteArray(transaction)).build();
    }
    ObjectNode body = JSON.createObjectNode()
        .put("transaction", Base64.getEncoder().encodeToString(transaction))
        .put("affected_rows", Base64.getEncoder().encodeToString(affectedRows.get()));
    return builder.header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body.toString())).build();
  }

  HttpRequest.Builder request(String path) {
    return request(baseUrl, path);
  }

  private HttpRequest.Builder request(String target, String path) {
    HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(target + path))
        .timeout(policy.requestTimeout());
    apiKey.ifPresent(key -> builder.header("x-api-key", key));
    bearerToken.ifPresent(token -> builder.header("Authorization", "Bearer " + token));
    return builder;
  }

  /** The table id as a path segment: parts joined with {@code $}, everything else percent-encoded. */
  static String encode(TableId table) {
    return URLEncoder.encode(table.joined(), StandardCharsets.UTF_8).replace("+", "%20").replace("%24", "$");
  }

  private static JsonNode parse(String call, String body) {
    try {
      JsonNode node = JSON.readTree(body);
      if (node == null || !node.isObject()) {
        throw new IOException("not a JSON object");
      }
      return node;
    } catch (IOException e) {
      throw new RequestFailedException(call + ": unreadable answer (" + e.getMessage() + "): " + body, 200, -1,
          body);
    }
  }

  /** The attempts of one call: counts them and sleeps between them while the retry budget lasts. */
  private final class Attempts {
    private final Pacing.Call call = pacing.start();

    /** Sleeps before the next attempt; false (without sleeping) when the budget allows none. */
    boolean waitBeforeRetry(Optional<Duration> retryAfter) {
      Optional<Duration> pause = call.next(retryAfter);
      if (pause.isEmpty()) {
        return false;
      }
      try {
        Thread.sleep(pause.get().toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
      return true;
    }

    int count() {
      return call.attempts();
    }

    Duration elapsed() {
      return call.elapsed().truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
    }
  }
}
