package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.auth.AccessControl;
import dev.lancecommit.coordinator.auth.Credentials;
import dev.lancecommit.coordinator.auth.Principal;
import dev.lancecommit.coordinator.auth.UnauthenticatedException;
import dev.lancecommit.coordinator.cluster.ForwardSigner;
import dev.lancecommit.coordinator.observe.Observability;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;

/**
 * The first handler of every request: reads {@code x-api-key} and {@code Authorization: Bearer}, asks the
 * {@link AccessControl} who the caller is and keeps the principal on the routing context. Refusals become 401/16.
 *
 * <p>In cluster mode a request another instance forwarded names the principal that instance authenticated; it is
 * believed only once its signature, which covers the body, is checked ({@link #verifyForwarded}, after the body is
 * read). Without cluster mode such a request is refused outright.
 */
final class Authentication {
  private static final String PRINCIPAL = "lancecommit.principal";
  private static final String FORWARDED = "lancecommit.forwarded";
  private static final String FORWARD_PENDING = "lancecommit.forward-pending";

  private final AccessControl access;
  private final Meter.MeterProvider<Counter> failures;
  private final ForwardSigner signer;

  /** @param signer checks forwarded requests; null outside cluster mode (they are then refused) */
  Authentication(AccessControl access, MeterRegistry registry, ForwardSigner signer) {
    this.access = access;
    this.failures = failureCounter(registry);
    this.signer = signer;
  }

  /** {@code lance_auth_failures_total{reason}}: missing, malformed, invalid (401) and forbidden (403). */
  static Meter.MeterProvider<Counter> failureCounter(MeterRegistry registry) {
    return Counter.builder(Observability.AUTH_FAILURES).description("Requests refused by authentication or grants, by reason")
        .withRegistry(registry);
  }

  void handle(RoutingContext ctx) {
    HttpServerRequest request = ctx.request();
    if (request.headers().contains(ForwardSigner.SIGNATURE) || request.headers().contains(ForwardSigner.PRINCIPAL)) {
      if (signer == null) {
        failures.withTags("reason", "invalid").increment();
        throw new UnauthenticatedException("Forwarded requests are accepted only from instances of a cluster");
      }
      ctx.put(FORWARD_PENDING, Boolean.TRUE); // the principal is set once the signature is checked
      ctx.next();
      return;
    }
    Principal principal;
    if (access.isEnabled()) {
      Credentials credentials;
      try {
        credentials = Credentials.fromHeaders(
            request.headers().getAll(Credentials.API_KEY_HEADER),
            request.headers().getAll(Credentials.AUTHORIZATION_HEADER));
      } catch (UnauthenticatedException e) {
        failures.withTags("reason", "malformed").increment();
        throw e;
      }
      try {
        principal = access.authenticate(credentials);
      } catch (UnauthenticatedException e) {
        failures.withTags("reason", credentials.isEmpty() ? "missing" : "invalid").increment();
        throw e;
      }
    } else {
      principal = Principal.ANONYMOUS;
    }
    ctx.put(PRINCIPAL, principal);
    ctx.next();
  }

  /** After the body handler: a forwarded request's signature is checked before its principal is believed. */
  void verifyForwarded(RoutingContext ctx) {
    if (ctx.get(FORWARD_PENDING) == null) {
      ctx.next();
      return;
    }
    HttpServerRequest request = ctx.request();
    Buffer body = ctx.body().buffer();
    ForwardSigner.Forwarded forwarded;
    try {
      forwarded = signer.verify(request.method().name(), request.uri(), body == null ? new byte[0] : body.getBytes(),
          request.getHeader(ForwardSigner.PRINCIPAL), request.getHeader(ForwardSigner.HOPS),
          request.getHeader(ForwardSigner.WAIT_MS), request.getHeader(ForwardSigner.GENERATION),
          request.getHeader(ForwardSigner.SENDER), request.getHeader(ForwardSigner.TIMESTAMP),
          request.getHeader(ForwardSigner.SIGNATURE));
    } catch (IllegalArgumentException e) {
      failures.withTags("reason", "invalid").increment();
      throw new UnauthenticatedException("Forwarded request not accepted: " + e.getMessage());
    }
    Principal principal;
    try {
      principal = new Principal(forwarded.principal());
    } catch (IllegalArgumentException e) {
      throw new UnauthenticatedException("Forwarded request names no valid principal");
    }
    ctx.put(PRINCIPAL, principal);
    ctx.put(FORWARDED, forwarded);
    ctx.next();
  }

  /** The caller; {@link Principal#ANONYMOUS} when authentication is off. */
  static Principal principal(RoutingContext ctx) {
    Principal principal = ctx.get(PRINCIPAL);
    return principal == null ? Principal.ANONYMOUS : principal;
  }

  /** How another instance forwarded this request, or null when a client sent it here. */
  static ForwardSigner.Forwarded forwarded(RoutingContext ctx) {
    return ctx.get(FORWARDED);
  }
}
