package dev.lancecommit.rules.conflict;

import dev.lancecommit.rules.OperationKind;
import java.util.Collections;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The answer to "can our transaction commit on top of what was committed since its read version?".
 *
 * @param kind the verdict
 * @param rule the stable name of the rule that decided: a condition id from SPEC.md (e.g. "k1", "du"; in an "a+b"
 *     cell the part that answered R, X or REBASE, the whole "a+b" when it answered C), a constant cell's name (e.g.
 *     "append-vs-overwrite"), or one of "no-rebase", "already-committed", "uuid-reuse", "up-to-date",
 *     "compatible-with-all"
 * @param theirVersion the committed version that decided (for a combined answer: the newest version checked; when
 *     nothing was committed since: our read version)
 * @param theirOperation the operation committed at {@code theirVersion}; null only when nothing was committed since
 *     our read version
 * @param reason a sentence for the caller naming our operation and read version and the committed version and
 *     operation
 * @param rebaseFragments for {@link Kind#REBASE}: the fragment ids whose deletion vectors must be merged (current
 *     deletion vector of the latest version OR our affected rows) before our transaction can be written; empty
 *     otherwise
 */
public record ConflictOutcome(
    Kind kind, String rule, long theirVersion, OperationKind theirOperation, String reason,
    Set<Long> rebaseFragments) {

  /** What the coordinator should do with the transaction. */
  public enum Kind {
    /** Commit as is (only {@code read_version} moves to the latest version). */
    COMPATIBLE,
    /**
     * Compatible after a server-side rebase of ours: merge the deletion vectors of {@link #rebaseFragments()} with
     * our affected rows (Lance's {@code TransactionRebase::finish}); a row both sides touched makes it retryable.
     */
    REBASE,
    /** The writer must re-run its operation on the newer version (HTTP 409, code 14). */
    RETRYABLE,
    /** The transaction can never apply on top of the committed version (HTTP 409, code 19). */
    INCOMPATIBLE,
    /** A committed version carries this very transaction (same uuid): answer idempotently with that version. */
    ALREADY_COMMITTED
  }

  public ConflictOutcome {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(rule, "rule");
    Objects.requireNonNull(reason, "reason");
    rebaseFragments = rebaseFragments == null
          ? Collections.emptySortedSet() : Collections.unmodifiableSortedSet(new TreeSet<>(rebaseFragments));
    if (kind == Kind.REBASE && rebaseFragments.isEmpty()) {
      throw new IllegalArgumentException("A REBASE outcome must name the fragments to rebase");
    }
    if (kind != Kind.REBASE && !rebaseFragments.isEmpty()) {
      throw new IllegalArgumentException("Only a REBASE outcome names fragments to rebase, not " + kind);
    }
  }

  /** An outcome that names no fragments to rebase. */
  public static ConflictOutcome of(
      Kind kind, String rule, long theirVersion, OperationKind theirOperation, String reason) {
    return new ConflictOutcome(kind, rule, theirVersion, theirOperation, reason, Set.of());
  }

  /** True for {@link Kind#RETRYABLE} and {@link Kind#INCOMPATIBLE}: the transaction cannot commit as is. */
  public boolean isConflict() {
    return kind == Kind.RETRYABLE || kind == Kind.INCOMPATIBLE;
  }

  /**
   * The exception the commit path throws for a conflict: retryable for {@link Kind#RETRYABLE}, not retryable for
   * {@link Kind#INCOMPATIBLE}.
   *
   * @throws IllegalStateException for any other kind, which is not a conflict
   */
  public CommitConflictException toException() {
    if (!isConflict()) {
      throw new IllegalStateException("A " + kind + " outcome is not a conflict: " + reason);
    }
    String operation = theirOperation == null ? "unknown" : theirOperation.lanceName();
    return new CommitConflictException(kind == Kind.RETRYABLE, theirVersion, operation, rule, reason);
  }
}
