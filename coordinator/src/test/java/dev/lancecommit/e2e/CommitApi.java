package dev.lancecommit.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lancecommit.coordinator.cluster.ForwardSigner;
import dev.lancecommit.format.pb.Transaction;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
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
 * A plain HTTP/1.1 client of the coordinator's REST API, as any writer outside the JVM would use it: Apache
 * HttpClient 5 (classic, blocking, pooled keep-alive connections), which stock Lance's REST namespace client uses too.
 * Not the JDK's {@code java.net.http} client: on the benchmark's two cores its asynchronous machinery added about
 * 0.3-0.4 ms to every request against 0.05 ms for the same request on a plain socket (BENCHMARK.md). Nothing is retried
 * or redirected: every answer reaches the caller as it came.
 */
public final class CommitApi {
  public static final String PROTOBUF = "application/x-protobuf";
  public static final String JSON = "application/json";

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Timeout TIMEOUT = Timeout.ofSeconds(60);
  private static final Timeout CONNECT_TIMEOUT = Timeout.ofSeconds(10);
  private static final int MAX_CONNECTIONS = 256;

  private final String baseUrl;
  private final CloseableHttpClient http;

  public CommitApi(String baseUrl) {
    this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    this.http = HttpClients.custom()
        .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
            .setMaxConnTotal(MAX_CONNECTIONS)
            .setMaxConnPerRoute(MAX_CONNECTIONS)
            .setDefaultConnectionConfig(ConnectionConfig.custom()
                .setConnectTimeout(CONNECT_TIMEOUT)
                .setSocketTimeout(TIMEOUT)
                // a kept-alive connection idle this long is checked before use (an instance may have restarted)
                .setValidateAfterInactivity(Timeout.ofMilliseconds(500))
                .build())
            .build())
        .setDefaultRequestConfig(RequestConfig.custom().setResponseTimeout(TIMEOUT).build())
        .disableAutomaticRetries()
        .disableRedirectHandling()
        .disableContentCompression()
        .disableCookieManagement()
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
    return commitBytes(tableId, body.toString().getBytes(StandardCharsets.UTF_8), JSON);
  }

  public Response commitBytes(List<String> tableId, byte[] body, String contentType) {
    return post("/v1/table/" + joined(tableId) + "/commit", body, contentType);
  }

  public Response postJson(String path, String json) {
    return post(path, json.getBytes(StandardCharsets.UTF_8), JSON);
  }

  public Response post(String path, byte[] body, String contentType) {
    HttpPost request = new HttpPost(baseUrl + path);
    request.setEntity(new ByteArrayEntity(body, ContentType.parse(contentType)));
    try {
      return http.execute(request, response -> {
        String text = response.getEntity() == null ? ""
            : EntityUtils.toString(response.getEntity(), StandardCharsets.UTF_8);
        Header servedBy = response.getFirstHeader(ForwardSigner.SERVED_BY);
        return new Response(response.getCode(), parse(text), text, servedBy == null ? null : servedBy.getValue());
      });
    } catch (IOException e) {
      throw new UncheckedIOException("POST " + path + " failed", e);
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
