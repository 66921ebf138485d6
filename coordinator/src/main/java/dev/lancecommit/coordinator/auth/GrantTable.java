package dev.lancecommit.coordinator.auth;

import java.util.List;
import java.util.Map;

/** The {@link Authorizer} of a fixed set of grants per principal name. A principal with no grants sees nothing. */
public final class GrantTable implements Authorizer {
  private final Map<String, List<Grant>> grants;

  public GrantTable(Map<String, List<Grant>> grants) {
    this.grants = Map.copyOf(grants.entrySet().stream()
        .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, e -> List.copyOf(e.getValue()))));
  }

  public List<Grant> grantsOf(String principal) {
    return grants.getOrDefault(principal, List.of());
  }

  @Override
  public boolean allows(Principal principal, Permission permission, List<String> resource) {
    for (Grant grant : grantsOf(principal.name())) {
      if (grant.permission().implies(permission) && grant.covers(resource)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public boolean canSee(Principal principal, List<String> resource) {
    for (Grant grant : grantsOf(principal.name())) {
      if (grant.reveals(resource)) {
        return true;
      }
    }
    return false;
  }
}
