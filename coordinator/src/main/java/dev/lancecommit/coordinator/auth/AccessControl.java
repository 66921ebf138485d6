package dev.lancecommit.coordinator.auth;

import java.util.List;
import java.util.Objects;

/**
 * Authentication plus authorization as the REST server uses them. {@link #disabled()} is the open mode: every
 * request acts as {@link Principal#ANONYMOUS} and is allowed everything.
 */
public final class AccessControl {
  private static final AccessControl DISABLED = new AccessControl(null, null);

  private final Authenticator authenticator;
  private final Authorizer authorizer;

  private AccessControl(Authenticator authenticator, Authorizer authorizer) {
    this.authenticator = authenticator;
    this.authorizer = authorizer;
  }

  public static AccessControl disabled() {
    return DISABLED;
  }

  public static AccessControl enabled(Authenticator authenticator, Authorizer authorizer) {
    return new AccessControl(Objects.requireNonNull(authenticator, "authenticator"),
        Objects.requireNonNull(authorizer, "authorizer"));
  }

  public boolean isEnabled() {
    return authenticator != null;
  }

  /**
   * @throws UnauthenticatedException when enabled and the credentials are missing or invalid
   */
  public Principal authenticate(Credentials credentials) {
    if (!isEnabled()) {
      return Principal.ANONYMOUS;
    }
    Principal principal = authenticator.authenticate(credentials);
    if (principal == null) {
      throw new UnauthenticatedException("Credentials not accepted");
    }
    return principal;
  }

  public boolean allows(Principal principal, Permission permission, List<String> resource) {
    return !isEnabled() || authorizer.allows(principal, permission, resource);
  }

  /** @throws PermissionDeniedException unless {@link #allows} */
  public void require(Principal principal, Permission permission, List<String> resource) {
    if (!allows(principal, permission, resource)) {
      throw new PermissionDeniedException(principal, permission, resource);
    }
  }

  public boolean canSee(Principal principal, List<String> resource) {
    return !isEnabled() || authorizer.canSee(principal, resource);
  }

  /** @throws PermissionDeniedException unless {@link #canSee} */
  public void requireVisible(Principal principal, List<String> resource) {
    if (!canSee(principal, resource)) {
      throw new PermissionDeniedException(principal, Permission.READ, resource);
    }
  }
}
