package dev.lancecommit.rules.conflict;

import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.conflict.ConflictOutcome.Kind;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Conditions checked in order, as Lance runs its pre-checks before the per-operation rule: the first R or X
 * decides; REBASE verdicts are collected; C only when every part says C. Named "a+b".
 */
record SequenceCondition(List<ConflictCondition> parts, String name) implements ConflictCondition {

  /** The name is kept, not joined again: every check of a cell of this condition names it. */
  SequenceCondition(List<ConflictCondition> parts) {
    this(parts, nameOf(parts));
  }

  SequenceCondition {
    parts = List.copyOf(parts);
    if (parts.size() < 2) {
      throw new IllegalArgumentException("A sequence needs at least two conditions");
    }
    if (!name.equals(nameOf(parts))) {
      throw new IllegalArgumentException("A sequence of " + nameOf(parts) + " is not named " + name);
    }
  }

  private static String nameOf(List<ConflictCondition> parts) {
    return parts.stream().map(ConflictCondition::name).collect(Collectors.joining("+"));
  }

  @Override
  public String description() {
    return "checks " + parts.stream().map(ConflictCondition::name).collect(Collectors.joining(", then "))
        + "; the first R or X decides";
  }

  @Override
  public Set<Kind> outcomes() {
    EnumSet<Kind> kinds = EnumSet.noneOf(Kind.class);
    parts.forEach(p -> kinds.addAll(p.outcomes()));
    return Collections.unmodifiableSet(kinds);
  }

  @Override
  public boolean symmetric() {
    return parts.stream().allMatch(ConflictCondition::symmetric);
  }

  @Override
  public Verdict evaluate(Transaction ours, Transaction theirs, RebaseInputs context) {
    List<String> rebaseDetails = new ArrayList<>();
    TreeSet<Long> rebaseFragments = new TreeSet<>();
    List<String> compatibleDetails = new ArrayList<>();
    String firstRebase = null;
    for (ConflictCondition part : parts) {
      Verdict verdict = part.evaluate(ours, theirs, context);
      switch (verdict.kind()) {
        case RETRYABLE, INCOMPATIBLE -> {
          return verdict;
        }
        case REBASE -> {
          rebaseDetails.add(verdict.detail());
          rebaseFragments.addAll(verdict.rebaseFragments());
          firstRebase = firstRebase == null ? verdict.decidedBy() : firstRebase;
        }
        default -> compatibleDetails.add(verdict.detail());
      }
    }
    if (!rebaseFragments.isEmpty()) {
      return Verdict.rebase(String.join("; ", rebaseDetails), rebaseFragments).decidedBy(firstRebase);
    }
    return Verdict.compatible(String.join("; ", compatibleDetails));
  }

  @Override
  public String toString() {
    return name();
  }
}
