package dev.lancecommit.coordinator.observe;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * What {@code GET /readyz} answers: named checks, each {@code up} or not, and whether the coordinator is ready (every
 * required check up). The coordinator registers {@code store} and {@code commits} (required) and {@code publication}
 * (reported only: commits do not wait for Kafka); cluster membership adds its own check here.
 */
public final class Readiness {
  /** The state of one check. */
  public record Check(String status, boolean required, String detail) {
    public static final String UP = "up";

    public Check {
      Objects.requireNonNull(status, "status");
    }

    public boolean up() {
      return status.equals(UP);
    }
  }

  /** A report: {@code ready} when every required check is up. */
  public record Report(boolean ready, Map<String, Check> checks) {}

  private final Map<String, Supplier<Check>> checks = new LinkedHashMap<>();

  /** Adds (or replaces) the check {@code name}; the supplier is called for every report, from an event loop. */
  public synchronized Readiness add(String name, Supplier<Check> check) {
    checks.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(check, "check"));
    return this;
  }

  /** Evaluates every check; a check that throws counts as down. Must not block: checks report cached state. */
  public synchronized Report report() {
    Map<String, Check> out = new LinkedHashMap<>();
    boolean ready = true;
    for (Map.Entry<String, Supplier<Check>> entry : checks.entrySet()) {
      Check check;
      try {
        check = entry.getValue().get();
      } catch (RuntimeException e) {
        check = new Check("down", true, "the check failed: " + e);
      }
      out.put(entry.getKey(), check);
      ready &= !check.required() || check.up();
    }
    return new Report(ready, out);
  }
}
