package dev.lancecommit.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lancecommit.coordinator.cluster.ForwardSigner;
import dev.lancecommit.format.pb.Transaction;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

/** A plain {@code java.net.http} client of the coordinator's REST API, as any writer outside the JVM would use it. */
public final class CommitApi {
  public static final String PROTOBUF = "application/x-protobuf";
  public static final String JSON = "application/json";

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private final String baseUrl;
  private final HttpClient http;

  public CommitApi(String baseUrl) {
    this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    this.http = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(10))
        .build();
  }

  /**
   * The HTTP answer: status, JSON body ({@code null} when the body is not JSON), and the instance that served it when
   * another than the one asked ({@code x-lcc-served-by} of a cluster's forwarded answer; {@code null} otherwise).
   */
  public record Response(int status, JsonNode body, String raw, String servedBy) {
    /** The namespace-spec error code of an error answer, or -1. */
    public int code() {
      return body != null && body.has("code") ? body.get("code").asInt() : -1;
    }

    public long version() {
      return body.get("version").asLong();
    }

    public String transactionUuid() {
      return body.path("transaction_uuid").asText(null);
    }

    public boolean ok() {
      return status == 200;
    }

    @Override
    public String toString() {
      return status + " " + raw;
    }
  }

  public static String joined(List<String> tableId) {
    return String.join("$", tableId);
  }

  /** Creates the namespace; an existing one is fine. */
  public void createNamespace(String namespace) {
    Response r = postJson("/v1/namespace/" + namespace + "/create", "{}");
    if (r.status() != 200 && r.status() != 409) {
      throw new IllegalStateException("CreateNamespace " + namespace + " failed: " + r);
    }
  }

  /** Declares the table and returns the location the coordinator chose for it. */
  public String declareTable(List<String> tableId) {
    Response r = postJson("/v1/table/" + joined(tableId) + "/declare", "{}");
    if (r.status() != 200) {
      throw new IllegalStateException("DeclareTable " + tableId + " failed: " + r);
    }
    return r.body().get("location").asText();
  }

  public Response register(List<String> tableId, String location) {
    ObjectNode body = MAPPER.createObjectNode().put("location", location);
    return postJson("/v1/table/" + joined(tableId) + "/register", body.toString());
  }

  public Response describe(List<String> tableId) {
    return postJson("/v1/table/" + joined(tableId) + "/describe", "{}");
  }

  /** The latest version DescribeTable reports; 0 while the table has none. */
  public long latestVersion(List<String> tableId) {
    Response r = describe(tableId);
    if (r.status() != 200) {
      throw new IllegalStateException("DescribeTable " + tableId + " failed: " + r);
    }
    JsonNode version = r.body().get("version");
    return version == null || version.isNull() ? 0 : version.asLong();
  }

  /** CommitTable with the raw protobuf bytes of {@code txn}. */
  public Response commit(List<String> tableId, Transaction txn) {
    return commitBytes(tableId, txn.toByteArray(), PROTOBUF);
  }

  /** CommitTable with the JSON form {@code {"transaction": base64}}. */
  public Response commitJson(List<String> tableId, byte[] transaction) {
    ObjectNode body = MAPPER.createObjectNode().put("transaction", Base64.getEncoder().encodeToString(transaction));
    return commitBytes(tableId, body.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8), JSON);
  }

  public Response commitBytes(List<String> tableId, byte[] body, String contentType) {
    return post("/v1/table/" + joined(tableId) + "/commit", body, contentType);
  }

  public Response postJson(String path, String json) {
    return post(path, json.getBytes(java.nio.charset.StandardCharsets.UTF_8), JSON);
  }

  public Response post(String path, byte[] body, String contentType) {
    HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + path))
        .timeout(TIMEOUT)
        .header("Content-Type", contentType)
        .POST(HttpRequest.BodyPublishers.ofByteArray(body))
        .build();
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      return new Response(response.statusCode(), parse(response.body()), response.body(),
          response.headers().firstValue(ForwardSigner.SERVED_BY).orElse(null));
    } catch (IOException e) {
      throw new UncheckedIOException("POST " + path + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted during POST " + path, e);
    }
  }

  private static JsonNode parse(String body) {
    if (body == null || body.isBlank()) {
      return null;
    }
    try {
      return MAPPER.readTree(body);
    } catch (IOException e) {
      return null;
    }
  }
}
