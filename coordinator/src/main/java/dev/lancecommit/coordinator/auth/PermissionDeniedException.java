package dev.lancecommit.coordinator.auth;

import java.util.List;

/** The principal holds no grant that allows the operation (HTTP 403, code 15). */
public class PermissionDeniedException extends RuntimeException {
  private final String principal;
  private final Permission permission;
  private final List<String> resource;

  public PermissionDeniedException(Principal principal, Permission permission, List<String> resource) {
    super("Principal '" + principal.name() + "' lacks " + permission.wireName() + " permission on "
        + (resource.isEmpty() ? "the root namespace" : "'" + String.join("$", resource) + "'"));
    this.principal = principal.name();
    this.permission = permission;
    this.resource = List.copyOf(resource);
  }

  public String principal() {
    return principal;
  }

  public Permission permission() {
    return permission;
  }

  public List<String> resource() {
    return resource;
  }
}
