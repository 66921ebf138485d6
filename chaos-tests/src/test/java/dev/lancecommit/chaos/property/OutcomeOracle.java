package dev.lancecommit.chaos.property;

import dev.lancecommit.chaos.differential.Outcome;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which answers SPEC.md allows for a planned step, given what was committed since its read version. Exact where the
 * matrix needs nothing the model lacks (Append, UpdateConfig, Overwrite, and any step facing only operations it is
 * always compatible with); otherwise any conflict class is allowed, and the table invariants judge the result.
 */
final class OutcomeOracle {
  private OutcomeOracle() {}

  /** Committed operations each kind always commits on top of (the constant C cells of SPEC.md). */
  private static final Map<Step.Kind, Set<Step.Kind>> ALWAYS_COMPATIBLE = Map.of(
      Step.Kind.APPEND, EnumSet.of(Step.Kind.APPEND, Step.Kind.DELETE, Step.Kind.REWRITE, Step.Kind.UPDATE_CONFIG,
          Step.Kind.CREATE_INDEX),
      Step.Kind.DELETE, EnumSet.of(Step.Kind.APPEND, Step.Kind.UPDATE_CONFIG, Step.Kind.CREATE_INDEX),
      Step.Kind.REWRITE, EnumSet.of(Step.Kind.APPEND, Step.Kind.UPDATE_CONFIG),
      Step.Kind.CREATE_INDEX, EnumSet.of(Step.Kind.APPEND, Step.Kind.DELETE, Step.Kind.UPDATE_CONFIG),
      Step.Kind.UPDATE_CONFIG, EnumSet.of(Step.Kind.APPEND, Step.Kind.DELETE, Step.Kind.REWRITE,
          Step.Kind.CREATE_INDEX, Step.Kind.OVERWRITE),
      Step.Kind.OVERWRITE, EnumSet.of(Step.Kind.APPEND, Step.Kind.DELETE, Step.Kind.REWRITE,
          Step.Kind.CREATE_INDEX, Step.Kind.UPDATE_CONFIG));

  static Set<Outcome.Kind> allowed(PlannedCommit plan, List<TableModel.CommittedStep> since) {
    Step.Kind ours = plan.step().kind();
    if (ours == Step.Kind.UPDATE_CONFIG) {
      boolean keyConflict = since.stream().anyMatch(c -> c.kind() == Step.Kind.UPDATE_CONFIG && keysConflict(plan, c));
      return EnumSet.of(keyConflict ? Outcome.Kind.INCOMPATIBLE : Outcome.Kind.COMMITTED);
    }
    if (ours == Step.Kind.OVERWRITE) {
      // k4 [2026]: Overwrite after Overwrite is retryable (no config keys involved here)
      boolean overwritten = since.stream().anyMatch(c -> c.kind() == Step.Kind.OVERWRITE);
      return EnumSet.of(overwritten ? Outcome.Kind.RETRYABLE : Outcome.Kind.COMMITTED);
    }
    boolean onlyCompatible = since.stream().allMatch(c -> ALWAYS_COMPATIBLE.get(ours).contains(c.kind()));
    if (onlyCompatible) {
      return EnumSet.of(Outcome.Kind.COMMITTED);
    }
    if (ours == Step.Kind.APPEND) {
      return EnumSet.of(Outcome.Kind.INCOMPATIBLE); // only an Overwrite is left, and Append x Overwrite is X
    }
    return EnumSet.of(Outcome.Kind.COMMITTED, Outcome.Kind.RETRYABLE, Outcome.Kind.INCOMPATIBLE);
  }

  /** SPEC k1: a key one side upserts is upserted or deleted by the other. */
  private static boolean keysConflict(PlannedCommit ours, TableModel.CommittedStep theirs) {
    return intersects(ours.configUpserts(), theirs.configUpserts(), theirs.configDeletes())
        || intersects(theirs.configUpserts(), ours.configUpserts(), ours.configDeletes());
  }

  private static boolean intersects(Set<String> upserts, Set<String> otherUpserts, Set<String> otherDeletes) {
    Set<String> other = new HashSet<>(otherUpserts);
    other.addAll(otherDeletes);
    return upserts.stream().anyMatch(other::contains);
  }
}
