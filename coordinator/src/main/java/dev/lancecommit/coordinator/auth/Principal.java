package dev.lancecommit.coordinator.auth;

import java.util.Objects;

/**
 * Who a request acts as. The name is recorded as the actor of commits (and so in commit events); with
 * authentication disabled every request acts as {@link #ANONYMOUS}.
 */
public record Principal(String name) {
  public static final Principal ANONYMOUS = new Principal("anonymous");

  public Principal {
    Objects.requireNonNull(name, "name");
    if (name.isBlank()) {
      throw new IllegalArgumentException("A principal name must not be blank");
    }
  }
}
