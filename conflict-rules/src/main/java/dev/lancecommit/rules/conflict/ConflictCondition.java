package dev.lancecommit.rules.conflict;

import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.conflict.ConflictOutcome.Kind;
import java.util.Collections;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * A matrix cell whose answer depends on the content of both transactions (the lowercase ids of SPEC.md). Ours is
 * the transaction being committed, theirs the one already committed; the context carries what the writer told us
 * besides the transaction.
 */
public interface ConflictCondition {

  /** The condition id, e.g. "k1"; stable, shown in SPEC.md and used as {@link ConflictOutcome#rule()}. */
  String name();

  /** What the condition checks and what it answers, in the words SPEC.md prints. */
  String description();

  /** The kinds this condition can answer, for SPEC.md. */
  Set<Kind> outcomes();

  /** True when swapping ours and theirs never changes the answer (where the condition is used both ways). */
  boolean symmetric();

  /** The verdict with the detail that explains it. */
  Verdict evaluate(Transaction ours, Transaction theirs, RebaseInputs context);

  default Kind decide(Transaction ours, Transaction theirs, RebaseInputs context) {
    return evaluate(ours, theirs, context).kind();
  }

  /**
   * One decision: the kind, a detail clause for the outcome's reason (e.g. "both touch fragments [3]"), for
   * {@link Kind#REBASE} the fragments whose deletion vectors must be merged, and the id of the condition that
   * decided (null until a named condition stamps it; inside an "a+b" cell it names the part that decided).
   */
  record Verdict(Kind kind, String detail, Set<Long> rebaseFragments, String decidedBy) {
    public Verdict(Kind kind, String detail, Set<Long> rebaseFragments) {
      this(kind, detail, rebaseFragments, null);
    }

    public Verdict {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(detail, "detail");
      if (kind == Kind.ALREADY_COMMITTED) {
        throw new IllegalArgumentException("A condition never decides ALREADY_COMMITTED");
      }
      rebaseFragments = rebaseFragments == null
          ? Collections.emptySortedSet() : Collections.unmodifiableSortedSet(new TreeSet<>(rebaseFragments));
      if ((kind == Kind.REBASE) == rebaseFragments.isEmpty()) {
        throw new IllegalArgumentException("Exactly REBASE verdicts name fragments to rebase");
      }
    }

    /** This verdict attributed to {@code condition}, unless a more specific condition already claimed it. */
    public Verdict decidedBy(String condition) {
      return decidedBy != null ? this : new Verdict(kind, detail, rebaseFragments, condition);
    }

    public static Verdict compatible(String detail) {
      return new Verdict(Kind.COMPATIBLE, detail, Set.of());
    }

    public static Verdict retryable(String detail) {
      return new Verdict(Kind.RETRYABLE, detail, Set.of());
    }

    public static Verdict incompatible(String detail) {
      return new Verdict(Kind.INCOMPATIBLE, detail, Set.of());
    }

    public static Verdict rebase(String detail, Set<Long> fragments) {
      return new Verdict(Kind.REBASE, detail, fragments);
    }
  }
}
