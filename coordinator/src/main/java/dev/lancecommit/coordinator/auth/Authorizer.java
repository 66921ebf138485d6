package dev.lancecommit.coordinator.auth;

import java.util.List;

/**
 * Decides what a principal may do. Resources are identifiers (namespace parts, then the table name for tables); the
 * empty list is the root namespace. Called on a Vert.x event loop: must not block.
 */
public interface Authorizer {
  /** True when the principal may do what {@code permission} covers on {@code resource}. */
  boolean allows(Principal principal, Permission permission, List<String> resource);

  /**
   * True when the namespace or table should appear to the principal in listings and existence checks: it holds a
   * grant on it, on a namespace above it, or on something below it (so it can navigate down to what it was
   * granted).
   */
  boolean canSee(Principal principal, List<String> resource);
}
