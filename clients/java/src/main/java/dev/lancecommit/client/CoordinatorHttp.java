package dev.lancecommit.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lancecommit.client.ErrorResponses.ErrorBody;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.util.Timeout;

/**
 * The coordinator's REST surface as this client calls it, with the retry policy's resubmission rules. Thread-safe:
 * every call keeps its state on its own stack; the HTTP client and its pool of kept-alive connections are shared.
 *
 * <p>HTTP is Apache HttpClient 5, classic and blocking (the client stock Lance's REST namespace uses, so it is on the
 * classpath anyway), not the JDK's {@code java.net.http}: a request through the JDK client's asynchronous machinery
 * cost about 0.3-0.4 ms more on a warm two-core machine, most of a commit's non-storage time. The HTTP client neither
 * retries nor follows redirects: every resubmission is this class's decision, under the retry policy.
 */
final class CoordinatorHttp implements AutoCloseable {
  /** Kept-alive connections per instance: enough for a writer pool sharing one client. */
  static final int MAX_CONNECTIONS_PER_INSTANCE = 64;
  private static final Timeout CONNECT_TIMEOUT = Timeout.ofSeconds(10);
  private static final ContentType PROTOBUF = ContentType.create("application/x-protobuf");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String baseUrl;
  private final Optional<String> apiKey;
  private final Optional<String> bearerToken;
  private final RetryPolicy policy;
  private final Pacing pacing;
  private final CloseableHttpClient http;
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
    Timeout requestTimeout = Timeout.of(policy.requestTimeout());
    this.http = HttpClients.custom()
        .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
            .setMaxConnPerRoute(MAX_CONNECTIONS_PER_INSTANCE)
            .setMaxConnTotal(4 * MAX_CONNECTIONS_PER_INSTANCE) // a cluster: the configured URL and the owners
            .setDefaultConnectionConfig(ConnectionConfig.custom()
                .setConnectTimeout(CONNECT_TIMEOUT)
                .setSocketTimeout(requestTimeout)
                // a connection idle this long is checked before reuse: its instance may have restarted meanwhile
                .setValidateAfterInactivity(Timeout.ofMilliseconds(500))
                .build())
            .build())
        .setDefaultRequestConfig(RequestConfig.custom().setResponseTimeout(requestTimeout).build())
        .disableAutomaticRetries()
        .disableRedirectHandling()
        .disableContentCompression()
        .disableCookieManagement()
        .build();
  }

  /** One answer: status, body text, and the headers this client reads. */
  private record Answer(int status, String body, Optional<String> retryAfter, Optional<String> servedBy) {}

  private Answer send(HttpPost request) throws IOException {
    return http.execute(request, response -> new Answer(response.getCode(),
        response.getEntity() == null ? "" : EntityUtils.toString(response.getEntity(), StandardCharsets.UTF_8),
        header(response.getFirstHeader("Retry-After")), header(response.getFirstHeader(TableOwners.SERVED_BY))));
  }

  private static Optional<String> header(Header header) {
    return header == null ? Optional.empty() : Optional.ofNullable(header.getValue());
  }

  @Override
  public void close() {
    try {
      http.close();
    } catch (IOException e) {
      throw new UncheckedIOException("Could not close the HTTP client", e);
    }
  }

  /**
   * A namespace call with a JSON body. 429 is retried within the budget (the request was not processed); 5xx and
   * no answer only when {@code idempotent}.
   */
  JsonNode post(String call, String path, ObjectNode body, boolean idempotent) {
    byte[] json = body.toString().getBytes(StandardCharsets.UTF_8);
    Attempts attempts = new Attempts();
    while (true) {
      Answer response;
      try {
        response = send(request(baseUrl, path, json, ContentType.APPLICATION_JSON));
      } catch (IOException e) {
        if (idempotent && attempts.waitBeforeRetry(Optional.empty())) {
          continue;
        }
        throw new ServiceUnavailableException(call + " failed: no answer from " + baseUrl + " (" + e + ")", e);
      }
      int status = response.status();
      if (status == 200) {
        return parse(call, response.body());
      }
      boolean retry = status == 429 || status >= 500 && idempotent;
      if (retry && attempts.waitBeforeRetry(Pacing.retryAfter(response.retryAfter(), Instant.now()))) {
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
      Answer response;
      try {
        response = send(commitRequest(target, table, commit));
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
      }
      int status = response.status();
      owners.answered(table, target, response.servedBy());
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
            body.path("manifest_path").asText(""), body.path("operation").asText(""),
            body.path("group_size").asInt(1), fragmentIds(body.path("new_fragment_ids")));
      }
      ErrorBody error = ErrorBody.parse(response.body());
      if (status == 429) {
        if (attempts.waitBeforeRetry(Pacing.retryAfter(response.retryAfter(), Instant.now()))) {
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
        if (attempts.waitBeforeRetry(Pacing.retryAfter(response.retryAfter(), Instant.now()))) {
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

  private HttpPost commitRequest(String target, TableId table, CommitRequest commit) {
    String path = "/v1/table/" + encode(table) + "/commit";
    byte[] transaction = commit.transaction().toByteArray();
    Optional<byte[]> affectedRows = commit.affectedRows();
    if (affectedRows.isEmpty()) {
      return request(target, path, transaction, PROTOBUF);
    }
    ObjectNode body = JSON.createObjectNode()
        .put("transaction", Base64.getEncoder().encodeToString(transaction))
        .put("affected_rows", Base64.getEncoder().encodeToString(affectedRows.get()));
    return request(target, path, body.toString().getBytes(StandardCharsets.UTF_8), ContentType.APPLICATION_JSON);
  }

  private HttpPost request(String target, String path, byte[] body, ContentType type) {
    HttpPost request = new HttpPost(URI.create(target + path));
    apiKey.ifPresent(key -> request.setHeader("x-api-key", key));
    bearerToken.ifPresent(token -> request.setHeader("Authorization", "Bearer " + token));
    request.setEntity(new ByteArrayEntity(body, type));
    return request;
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

  private static java.util.List<Long> fragmentIds(com.fasterxml.jackson.databind.JsonNode ids) {
    java.util.List<Long> list = new java.util.ArrayList<>(ids.size());
    ids.forEach(id -> list.add(id.asLong()));
    return list;
  }
}
