package dev.lancecommit.rules.conflict;

import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.conflict.ConflictOutcome.Kind;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/** A condition whose decision is a named function. */
record SimpleCondition(String name, String description, Set<Kind> outcomes, boolean symmetric, Rule rule)
    implements ConflictCondition {

  @FunctionalInterface
  interface Rule {
    Verdict apply(Transaction ours, Transaction theirs, RebaseInputs context);
  }

  SimpleCondition {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(rule, "rule");
    if (outcomes.isEmpty()) {
      throw new IllegalArgumentException("Condition " + name + " must name its outcomes");
    }
    outcomes = Collections.unmodifiableSet(EnumSet.copyOf(outcomes));
  }

  @Override
  public Verdict evaluate(Transaction ours, Transaction theirs, RebaseInputs context) {
    Verdict verdict = rule.apply(ours, theirs, context);
    if (!outcomes.contains(verdict.kind())) {
      throw new IllegalStateException("Condition " + name + " answered " + verdict.kind() + ", outside " + outcomes);
    }
    return verdict.decidedBy(name);
  }

  @Override
  public String toString() {
    return name;
  }
}
