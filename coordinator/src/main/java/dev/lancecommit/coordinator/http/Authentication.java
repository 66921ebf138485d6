package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.auth.AccessControl;
import dev.lancecommit.coordinator.auth.Credentials;
import dev.lancecommit.coordinator.auth.Principal;
import io.vertx.ext.web.RoutingContext;

/**
 * The first handler of every request: reads {@code x-api-key} and {@code Authorization: Bearer}, asks the
 * {@link AccessControl} who the caller is and keeps the principal on the routing context. Refusals become 401/16.
 */
final class Authentication {
  private static final String PRINCIPAL = "lancecommit.principal";

  private final AccessControl access;

  Authentication(AccessControl access) {
    this.access = access;
  }

  void handle(RoutingContext ctx) {
    Principal principal;
    if (access.isEnabled()) {
      Credentials credentials = Credentials.fromHeaders(
          ctx.request().headers().getAll(Credentials.API_KEY_HEADER),
          ctx.request().headers().getAll(Credentials.AUTHORIZATION_HEADER));
      principal = access.authenticate(credentials);
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
