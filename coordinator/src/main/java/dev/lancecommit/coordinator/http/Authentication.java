package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.auth.AccessControl;
import dev.lancecommit.coordinator.auth.Credentials;
import dev.lancecommit.coordinator.auth.Principal;
import dev.lancecommit.coordinator.auth.UnauthenticatedException;
import dev.lancecommit.coordinator.observe.Observability;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.ext.web.RoutingContext;

/**
 * The first handler of every request: reads {@code x-api-key} and {@code Authorization: Bearer}, asks the
 * {@link AccessControl} who the caller is and keeps the principal on the routing context. Refusals become 401/16.
 */
final class Authentication {
  private static final String PRINCIPAL = "lancecommit.principal";

  private final AccessControl access;
  private final Meter.MeterProvider<Counter> failures;

  Authentication(AccessControl access, MeterRegistry registry) {
    this.access = access;
    this.failures = failureCounter(registry);
  }

  /** {@code lance_auth_failures_total{reason}}: missing, malformed, invalid (401) and forbidden (403). */
  static Meter.MeterProvider<Counter> failureCounter(MeterRegistry registry) {
    return Counter.builder(Observability.AUTH_FAILURES).description("Requests refused by authentication or grants, by reason")
        .withRegistry(registry);
  }

  void handle(RoutingContext ctx) {
    Principal principal;
    if (access.isEnabled()) {
      Credentials credentials;
      try {
        credentials = Credentials.fromHeaders(
            ctx.request().headers().getAll(Credentials.API_KEY_HEADER),
            ctx.request().headers().getAll(Credentials.AUTHORIZATION_HEADER));
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

  /** The caller; {@link Principal#ANONYMOUS} when authentication is off. */
  static Principal principal(RoutingContext ctx) {
    Principal principal = ctx.get(PRINCIPAL);
    return principal == null ? Principal.ANONYMOUS : principal;
  }
}
