package dev.lancecommit.chaos.differential;

import static dev.lancecommit.chaos.differential.BaseTable.READ_VERSION;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** What Lance and the coordinator did with one pair (or one operation alone). */
public record PairResult(LanceOperation first, Optional<LanceOperation> second,
    Outcome lanceFirst, Optional<Outcome> lanceSecond,
    Outcome coordinatorFirst, Optional<Outcome> coordinatorSecond,
    Optional<TableSnapshot> lanceSnapshot, Optional<TableSnapshot> coordinatorSnapshot,
    long coordinatorLatestVersion, Optional<Outcome.Kind> specVerdict, Optional<String> specRule) {

  /** The compared class of one side: the second's outcome, or the first's prefixed with "first " when it failed. */
  public static String classOf(Outcome first, Optional<Outcome> second) {
    if (!first.committed()) {
      return "first " + first.kind();
    }
    return second.map(o -> o.kind().name()).orElse(first.kind().name());
  }

  public String lanceClass() {
    return classOf(lanceFirst, lanceSecond);
  }

  public String coordinatorClass() {
    return classOf(coordinatorFirst, coordinatorSecond);
  }

  public boolean classesAgree() {
    return lanceClass().equals(coordinatorClass());
  }

  /** Differences of the tables Lance reads back, when both sides committed everything. */
  public List<String> contentDifferences() {
    if (lanceSnapshot.isEmpty() || coordinatorSnapshot.isEmpty()) {
      return List.of();
    }
    return lanceSnapshot.get().differences(coordinatorSnapshot.get());
  }

  /** The components of the read-back tables that differ, when both sides committed everything. */
  public java.util.Set<String> differingComponents() {
    if (lanceSnapshot.isEmpty() || coordinatorSnapshot.isEmpty()) {
      return java.util.Set.of();
    }
    return lanceSnapshot.get().differingComponents(coordinatorSnapshot.get());
  }

  /**
   * Where the coordinator committed {@code first}, its answer to {@code second} must be the conflict its own
   * specification gives, and it may answer a conflict only where the specification does. Empty when consistent.
   */
  public Optional<String> specInconsistency() {
    if (!coordinatorFirst.committed() || coordinatorSecond.isEmpty() || specVerdict.isEmpty()) {
      return Optional.empty();
    }
    Outcome.Kind answered = coordinatorSecond.get().kind();
    Outcome.Kind spec = specVerdict.get();
    boolean answeredConflict = answered == Outcome.Kind.RETRYABLE || answered == Outcome.Kind.INCOMPATIBLE;
    boolean specConflict = spec == Outcome.Kind.RETRYABLE || spec == Outcome.Kind.INCOMPATIBLE;
    if ((answeredConflict || specConflict) && answered != spec) {
      return Optional.of("SPEC.md gives " + spec + " (rule " + specRule.orElse("?") + ") but the coordinator answered "
          + coordinatorSecond.get());
    }
    return Optional.empty();
  }

  /** The coordinator must leave the table exactly at the last version it acknowledged, whatever it refused. */
  public List<String> coordinatorSideEffects() {
    long acknowledged = READ_VERSION;
    if (coordinatorFirst.committed()) {
      acknowledged++;
      if (coordinatorSecond.map(Outcome::committed).orElse(false)) {
        acknowledged++;
      }
    }
    List<String> out = new ArrayList<>();
    if (coordinatorLatestVersion != acknowledged) {
      out.add("coordinator acknowledged up to version " + acknowledged + " but the table is at version "
          + coordinatorLatestVersion);
    }
    return out;
  }

  public String pairName() {
    return first + second.map(s -> " then " + s).orElse(" alone");
  }

  public String describe() {
    return pairName() + ": Lance " + lanceFirst + lanceSecond.map(o -> " / " + o).orElse("")
        + "; coordinator " + coordinatorFirst + coordinatorSecond.map(o -> " / " + o).orElse("")
        + specVerdict.map(v -> "; SPEC.md " + v + " (rule " + specRule.orElse("?") + ")").orElse("");
  }
}
