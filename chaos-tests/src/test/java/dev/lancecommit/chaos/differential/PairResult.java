package dev.lancecommit.chaos.differential;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What stock Lance and the coordinator did with one pair (or one operation alone), and what SPEC.md says the
 * coordinator should answer to the second.
 */
public record PairResult(LanceOperation first, Optional<LanceOperation> second, SideResult lance,
    SideResult coordinator, Optional<Outcome.Kind> specVerdict, Optional<String> specRule) {

  public String lanceClass() {
    return lance.outcomeClass();
  }

  public String coordinatorClass() {
    return coordinator.outcomeClass();
  }

  public boolean classesAgree() {
    return lanceClass().equals(coordinatorClass());
  }

  /** Differences of the tables Lance reads back, one line per component, when both sides committed everything. */
  public List<String> contentDifferences() {
    if (lance.snapshot().isEmpty() || coordinator.snapshot().isEmpty()) {
      return List.of();
    }
    return lance.snapshot().get().differences(coordinator.snapshot().get());
  }

  /** The names of the differing components of the read-back tables. */
  public Set<String> differingComponents() {
    if (lance.snapshot().isEmpty() || coordinator.snapshot().isEmpty()) {
      return Set.of();
    }
    return lance.snapshot().get().differingComponents(coordinator.snapshot().get());
  }

  /**
   * Where the coordinator committed {@code first}, its answer to {@code second} must be the conflict its own
   * specification gives, and it may answer a conflict only where the specification does. Empty when consistent.
   */
  public Optional<String> specInconsistency() {
    if (!coordinator.first().committed() || coordinator.second().isEmpty() || specVerdict.isEmpty()) {
      return Optional.empty();
    }
    Outcome answered = coordinator.second().get();
    Outcome.Kind spec = specVerdict.get();
    boolean answeredConflict = answered.kind() == Outcome.Kind.RETRYABLE || answered.kind() == Outcome.Kind.INCOMPATIBLE;
    boolean specConflict = spec == Outcome.Kind.RETRYABLE || spec == Outcome.Kind.INCOMPATIBLE;
    if ((answeredConflict || specConflict) && answered.kind() != spec) {
      return Optional.of("SPEC.md gives " + spec + " (rule " + specRule.orElse("?") + ") but the coordinator answered "
          + answered);
    }
    return Optional.empty();
  }

  /** The coordinator must leave the table exactly at the last version it acknowledged, whatever it refused. */
  public Optional<String> coordinatorSideEffect() {
    if (coordinator.latestVersion() == coordinator.acknowledgedVersion()) {
      return Optional.empty();
    }
    return Optional.of("the coordinator acknowledged up to version " + coordinator.acknowledgedVersion()
        + " but the table is at version " + coordinator.latestVersion());
  }

  public String pairName() {
    return first + second.map(s -> " then " + s).orElse(" alone");
  }

  public String describe() {
    return pairName() + ": Lance " + lance + "; coordinator " + coordinator
        + specVerdict.map(v -> "; SPEC.md " + v + " (rule " + specRule.orElse("?") + ")").orElse("");
  }
}
