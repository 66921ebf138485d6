package dev.lancecommit.chaos.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancecommit.format.pb.Transaction;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The writers' HTTP client of the coordinator: CommitTable with the raw Transaction protobuf, DescribeTable for the
 * latest version, and the namespace calls the setup needs. Never throws for a failed call: every answer, or the lack
 * of one, comes back as a value the caller decides on. Given several instances of a cluster, every request goes to
 * one picked at random (a resubmission too, so a retry after a killed instance reaches another).
 */
public final class CoordinatorClient {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);

  private final List<String> baseUrls;
  private final HttpClient http;

  public CoordinatorClient(String baseUrl) {
    this(List.of(baseUrl));
  }

  /** @param baseUrls the instances of a cluster; each request goes to one of them at random */
  public CoordinatorClient(List<String> baseUrls) {
    if (baseUrls.isEmpty()) {
      throw new IllegalArgumentException("no coordinator URL");
    }
    this.baseUrls = List.copyOf(baseUrls);
    this.http = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .build();
  }

  /** An HTTP answer (status -1 when none came) with its parsed JSON body (null when not JSON). */
  public record Answer(int status, JsonNode body, String raw) {
    int code() {
      return body != null && body.has("code") ? body.get("code").asInt() : -1;
    }

    @Override
    public String toString() {
      return status + " " + (raw.length() > 300 ? raw.substring(0, 300) + "..." : raw);
    }
  }

  public static String joined(List<String> tableId) {
    return String.join("$", tableId);
  }

  public CommitOutcome commit(List<String> tableId, Transaction txn) {
    return commit(tableId, txn, null);
  }

  /** CommitTable; with {@code affectedRows} (a Delete's or Update's row addresses) as JSON, else raw protobuf. */
  public CommitOutcome commit(List<String> tableId, Transaction txn, byte[] affectedRows) {
    String path = "/v1/table/" + joined(tableId) + "/commit";
    Answer answer = affectedRows == null
        ? post(path, txn.toByteArray(), "application/x-protobuf")
        : postJson(path, JSON.createObjectNode()
            .put("transaction", java.util.Base64.getEncoder().encodeToString(txn.toByteArray()))
            .put("affected_rows", java.util.Base64.getEncoder().encodeToString(affectedRows))
            .toString());
    int status = answer.status();
    if (status < 0) {
      return CommitOutcome.noAnswer(answer.raw());
    }
    if (status == 200) {
      JsonNode version = answer.body() == null ? null : answer.body().get("version");
      JsonNode uuid = answer.body() == null ? null : answer.body().get("transaction_uuid");
      if (version == null || uuid == null || !uuid.asText().equals(txn.getUuid())) {
        // A success that does not name our transaction would be a coordinator bug: report it, never trust it.
        return new CommitOutcome(CommitOutcome.Kind.REJECTED, -1, status, -1,
            "200 answer without our transaction uuid: " + answer);
      }
      return CommitOutcome.committed(version.asLong());
    }
    int code = answer.code();
    CommitOutcome.Kind kind;
    if (status == 409 && code == 14) {
      kind = CommitOutcome.Kind.RETRYABLE_CONFLICT;
    } else if (status == 429) {
      kind = CommitOutcome.Kind.THROTTLED;
    } else if (status >= 500) {
      kind = CommitOutcome.Kind.UNKNOWN;
    } else {
      kind = CommitOutcome.Kind.REJECTED;
    }
    return new CommitOutcome(kind, -1, status, code, answer.raw());
  }

  /** The latest version DescribeTable reports (0 while none), or -1 when the call failed. */
  public long latestVersion(List<String> tableId) {
    Answer answer = postJson("/v1/table/" + joined(tableId) + "/describe", "{}");
    if (answer.status() != 200 || answer.body() == null) {
      return -1;
    }
    JsonNode version = answer.body().get("version");
    return version == null || version.isNull() ? 0 : version.asLong();
  }

  public Answer postJson(String path, String json) {
    return post(path, json.getBytes(StandardCharsets.UTF_8), "application/json");
  }

  public Answer post(String path, byte[] body, String contentType) {
    String baseUrl = baseUrls.size() == 1 ? baseUrls.get(0)
        : baseUrls.get(ThreadLocalRandom.current().nextInt(baseUrls.size()));
    HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + path))
        .timeout(REQUEST_TIMEOUT)
        .header("Content-Type", contentType)
        .POST(HttpRequest.BodyPublishers.ofByteArray(body))
        .build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      return new Answer(response.statusCode(), parse(response.body()), response.body());
    } catch (IOException e) {
      return new Answer(-1, null, e.getClass().getSimpleName() + ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Answer(-1, null, "interrupted");
    }
  }

  private static JsonNode parse(String body) {
    if (body == null || body.isBlank()) {
      return null;
    }
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      return null;
    }
  }
}
