package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.auth.Credentials;
import dev.lancecommit.coordinator.cluster.ForwardSigner;
import io.netty.channel.ConnectTimeoutException;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.net.ConnectException;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Sends a request on to the instance that owns its table, over pooled keep-alive connections, and relays the answer
 * as it came (status, headers, body). The caller's credentials stay here: the owner learns the principal this
 * instance authenticated, in a header it trusts only with a valid signature ({@link ForwardSigner}). Every other
 * header travels as it is, the W3C trace context ({@code traceparent}, {@code tracestate}) included.
 */
final class RequestForwarder implements AutoCloseable {
  /** Hop-by-hop headers (RFC 9110 7.6.1) and the ones the client computes itself. */
  private static final Set<String> NOT_COPIED = Set.of("connection", "keep-alive", "proxy-authenticate",
      "proxy-authorization", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "host",
      "content-length");

  /** How a forward ended when no answer was relayed. */
  enum Failure {
    /** Nothing reached the owner (no connection): the request can go elsewhere as it is. */
    NOT_SENT,
    /** The request may have reached the owner but no answer came back. */
    NO_ANSWER,
    /** No answer within the forward timeout; the owner may still be working on it. */
    TIMED_OUT
  }

  /** A forward that ended without an answer to relay. */
  static final class ForwardFailedException extends RuntimeException {
    private final Failure failure;

    ForwardFailedException(Failure failure, String owner, Throwable cause) {
      super(failure + " forwarding to " + owner + ": " + cause, cause, false, false);
      this.failure = failure;
    }

    Failure failure() {
      return failure;
    }
  }

  private final WebClient client;
  private final ForwardSigner signer;
  private final long timeoutMillis;

  RequestForwarder(Vertx vertx, ClusterOptions options) {
    this.client = client(vertx, options);
    this.signer = options.signer();
    this.timeoutMillis = options.forwardTimeout().toMillis();
  }

  /** A client for calls to other instances: keep-alive pools of {@code cluster.forward-pool-size} per instance. */
  static WebClient client(Vertx vertx, ClusterOptions options) {
    return WebClient.create(vertx, new WebClientOptions()
        .setKeepAlive(true)
        .setMaxPoolSize(options.poolSize())
        .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, options.connectTimeout().toMillis()))
        .setIdleTimeout(60)
        .setFollowRedirects(false)
        .setTryUseCompression(false)
        .setDecompressionSupported(false)
        .setUserAgentEnabled(false));
  }

  /** Sets the headers that carry {@code call} and its signature over the POST of {@code body} to {@code uri}. */
  static void sign(MultiMap headers, ForwardSigner signer, String uri, ForwardSigner.Forwarded call, byte[] body) {
    long timestamp = signer.now();
    headers.set(ForwardSigner.PRINCIPAL, call.principal());
    headers.set(ForwardSigner.HOPS, Integer.toString(call.hops()));
    headers.set(ForwardSigner.WAIT_MS, Long.toString(call.waitMillis()));
    headers.set(ForwardSigner.GENERATION, Integer.toString(call.generation()));
    headers.set(ForwardSigner.SENDER, call.sender());
    headers.set(ForwardSigner.TIMESTAMP, Long.toString(timestamp));
    headers.set(ForwardSigner.SIGNATURE, signer.sign("POST", uri, call, timestamp, body));
  }

  /**
   * Forwards the request {@code ctx} holds to {@code ownerUrl}; the future holds the owner's answer ({@link #relay}
   * passes it on), or fails with {@link ForwardFailedException} when there is none.
   */
  Future<HttpResponse<Buffer>> forward(RoutingContext ctx, String ownerUrl, ForwardSigner.Forwarded call) {
    String uri = ctx.request().uri();
    Buffer body = ctx.body().buffer() == null ? Buffer.buffer() : ctx.body().buffer();
    HttpRequest<Buffer> request = client.requestAbs(HttpMethod.POST, ownerUrl + uri).timeout(timeoutMillis);
    MultiMap headers = request.headers();
    for (Map.Entry<String, String> header : ctx.request().headers()) {
      String name = header.getKey().toLowerCase(Locale.ROOT);
      if (!NOT_COPIED.contains(name) && !name.equals(Credentials.API_KEY_HEADER.toLowerCase(Locale.ROOT))
          && !name.equals(Credentials.AUTHORIZATION_HEADER.toLowerCase(Locale.ROOT)) && !name.startsWith("x-lcc-")) {
        headers.add(header.getKey(), header.getValue());
      }
    }
    sign(headers, signer, uri, call, body.getBytes());
    return request.sendBuffer(body)
        .recover(cause -> Future.failedFuture(new ForwardFailedException(classify(cause), ownerUrl, cause)));
  }

  /** Answers the caller with the owner's answer, as it came (unless the caller has been answered already). */
  static void relay(RoutingContext ctx, String ownerUrl, HttpResponse<Buffer> answer) {
    if (ctx.response().ended() || ctx.response().closed()) {
      return; // the caller went away meanwhile
    }
    ctx.response().setStatusCode(answer.statusCode());
    for (Map.Entry<String, String> header : answer.headers()) {
      if (!NOT_COPIED.contains(header.getKey().toLowerCase(Locale.ROOT))) {
        ctx.response().headers().add(header.getKey(), header.getValue());
      }
    }
    if (!answer.headers().contains(ForwardSigner.SERVED_BY)) {
      ctx.response().putHeader(ForwardSigner.SERVED_BY, ownerUrl);
    }
    Buffer body = answer.body();
    ctx.response().end(body == null ? Buffer.buffer() : body);
  }

  private static Failure classify(Throwable cause) {
    if (cause instanceof ConnectException || cause instanceof ConnectTimeoutException) {
      return Failure.NOT_SENT;
    }
    if (cause instanceof java.util.concurrent.TimeoutException
        || cause instanceof io.netty.handler.timeout.TimeoutException) {
      return Failure.TIMED_OUT;
    }
    return Failure.NO_ANSWER;
  }

  @Override
  public void close() {
    client.close();
  }
}
