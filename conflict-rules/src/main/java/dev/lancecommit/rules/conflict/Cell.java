package dev.lancecommit.rules.conflict;

import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.conflict.ConflictCondition.Verdict;
import dev.lancecommit.rules.conflict.ConflictOutcome.Kind;
import java.util.Objects;

/** One cell of the {@link ConflictMatrix}: a constant C / R / X, or a named {@link ConflictCondition}. */
public sealed interface Cell permits Cell.Constant, Cell.Conditional {

  /** What the matrix shows: "C", "R", "X" or the condition id. */
  String symbol();

  Verdict evaluate(Transaction ours, Transaction theirs, RebaseInputs context);

  /**
   * A fixed answer.
   *
   * @param kind COMPATIBLE, RETRYABLE or INCOMPATIBLE
   * @param rule the cell's stable name, e.g. "append-vs-overwrite"
   * @param note why, when the cell departs from the Nov-2025 matrix or was chosen conservatively; empty otherwise
   */
  record Constant(Kind kind, String rule, String note) implements Cell {
    public Constant {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(rule, "rule");
      Objects.requireNonNull(note, "note");
      if (kind == Kind.REBASE || kind == Kind.ALREADY_COMMITTED) {
        throw new IllegalArgumentException("A constant cell is C, R or X, not " + kind);
      }
    }

    @Override
    public String symbol() {
      return switch (kind) {
        case COMPATIBLE -> "C";
        case RETRYABLE -> "R";
        case INCOMPATIBLE -> "X";
        default -> throw new IllegalStateException(kind.toString());
      };
    }

    @Override
    public Verdict evaluate(Transaction ours, Transaction theirs, RebaseInputs context) {
      String detail = !note.isEmpty() ? note : switch (kind) {
        case COMPATIBLE -> "these operations commute";
        case RETRYABLE -> "Lance always asks the writer to re-run this operation on the newer version";
        default -> "Lance never applies this operation on top of that one";
      };
      return new Verdict(kind, detail, null);
    }
  }

  /** An answer computed by a condition. */
  record Conditional(ConflictCondition condition) implements Cell {
    public Conditional {
      Objects.requireNonNull(condition, "condition");
    }

    @Override
    public String symbol() {
      return condition.name();
    }

    @Override
    public Verdict evaluate(Transaction ours, Transaction theirs, RebaseInputs context) {
      return condition.evaluate(ours, theirs, context);
    }
  }
}
