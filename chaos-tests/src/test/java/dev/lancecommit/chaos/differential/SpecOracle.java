package dev.lancecommit.chaos.differential;

import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.conflict.ConflictOutcome;
import dev.lancecommit.rules.conflict.ConflictResolver;
import dev.lancecommit.rules.conflict.RebaseInputs;

/**
 * What SPEC.md (the conflict matrix the coordinator runs, {@link ConflictResolver}) says about {@code second}
 * arriving after {@code first} was committed on its read version, as an outcome class. The coordinator must answer
 * a conflict exactly where its own specification says so; a transaction it refuses for any other reason (400) where
 * the specification says retry or incompatible sends the writer the wrong signal.
 */
public final class SpecOracle {
  private SpecOracle() {}

  /** The class the specification gives: COMMITTED, RETRYABLE or INCOMPATIBLE. */
  public static Outcome.Kind verdict(Transaction first, Transaction second) {
    // Raw protobuf carries no affected rows, so a Delete/Update overlap is never rebased: REBASE cannot come back.
    ConflictOutcome outcome = ConflictResolver.check(second, first, first.getReadVersion() + 1,
        RebaseInputs.defaults());
    return switch (outcome.kind()) {
      case COMPATIBLE -> Outcome.Kind.COMMITTED;
      case REBASE, RETRYABLE -> Outcome.Kind.RETRYABLE;
      case INCOMPATIBLE -> Outcome.Kind.INCOMPATIBLE;
      case ALREADY_COMMITTED -> throw new IllegalStateException("two staged operations share a uuid");
    };
  }

  /** The rule the specification applied, for reports. */
  public static String rule(Transaction first, Transaction second) {
    return ConflictResolver.check(second, first, first.getReadVersion() + 1, RebaseInputs.defaults()).rule();
  }
}
