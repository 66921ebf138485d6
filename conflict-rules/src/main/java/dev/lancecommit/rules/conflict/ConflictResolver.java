package dev.lancecommit.rules.conflict;

import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.OperationKind;
import dev.lancecommit.rules.conflict.ConflictCondition.Verdict;
import dev.lancecommit.rules.conflict.ConflictOutcome.Kind;
import dev.lancecommit.rules.group.GroupMembers;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/**
 * Decides whether a transaction can commit on top of the versions committed since its read version, by the
 * {@link ConflictMatrix#standard() standard matrix}. Pure: no I/O, no state.
 */
public final class ConflictResolver {
  private ConflictResolver() {}

  /**
   * Checks ours against one committed transaction.
   *
   * <p>Order: a committed transaction with our uuid, or a committed group commit naming our uuid among its members
   * ({@link GroupMembers}) -> ALREADY_COMMITTED (same operation) or INCOMPATIBLE "uuid-reuse" (a different operation
   * under our uuid); then, when rebasing is not allowed, RETRYABLE "no-rebase"
   * whatever the matrix says; else the matrix cell.
   *
   * @throws IllegalArgumentException when {@code theirVersion} is not after our read version
   * @throws dev.lancecommit.rules.InvalidTransactionException when either transaction carries no operation
   */
  public static ConflictOutcome check(Transaction ours, Transaction theirs, long theirVersion, RebaseInputs inputs) {
    Objects.requireNonNull(ours, "ours");
    Objects.requireNonNull(theirs, "theirs");
    Objects.requireNonNull(inputs, "inputs");
    OperationKind ourKind = OperationKind.of(ours);
    OperationKind theirKind = OperationKind.of(theirs);
    if (theirVersion <= ours.getReadVersion()) {
      throw new IllegalArgumentException("Committed version " + theirVersion + " is not after read version "
          + ours.getReadVersion() + " of transaction " + ours.getUuid());
    }
    String subject = ourKind.lanceName() + " at read version " + ours.getReadVersion();
    String object = theirKind.lanceName() + " committed at version " + theirVersion;

    if (GroupMembers.madeBy(theirs, ours.getUuid())) {
      if (ourKind == theirKind) {
        boolean member = !ours.getUuid().equals(theirs.getUuid());
        return ConflictOutcome.of(Kind.ALREADY_COMMITTED, "already-committed", theirVersion, theirKind,
            "Transaction " + ours.getUuid() + " (" + ourKind.lanceName() + ") was already committed as version "
                + theirVersion + (member ? ", in group commit " + theirs.getUuid() : ""));
      }
      return ConflictOutcome.of(Kind.INCOMPATIBLE, "uuid-reuse", theirVersion, theirKind,
          subject + " reuses uuid " + ours.getUuid() + " of the " + object + "; a new transaction needs a new uuid");
    }

    Cell cell = ConflictMatrix.standard().cell(ourKind, theirKind);
    Verdict verdict = cell.evaluate(ours, theirs, inputs);
    String cellRule = cell instanceof Cell.Constant constant ? constant.rule() : cell.symbol();
    // In an "a+b" cell the part that said R, X or REBASE is the rule; a compatible answer names the whole cell.
    String rule = verdict.kind() != Kind.COMPATIBLE && verdict.decidedBy() != null ? verdict.decidedBy() : cellRule;

    if (!inputs.rebaseAllowed()) {
      return ConflictOutcome.of(Kind.RETRYABLE, "no-rebase", theirVersion, theirKind,
          subject + " was not committed because rebasing is disabled and " + object + " landed after its read"
              + " version (the matrix, rule " + rule + ", says " + describe(verdict.kind()) + ": " + verdict.detail()
              + "); rebuild the transaction on version " + theirVersion + " or later and retry");
    }
    return switch (verdict.kind()) {
      case COMPATIBLE -> ConflictOutcome.of(Kind.COMPATIBLE, rule, theirVersion, theirKind,
          subject + " is compatible with " + object + ": " + verdict.detail());
      case REBASE -> new ConflictOutcome(Kind.REBASE, rule, theirVersion, theirKind,
          subject + " can be rebased over " + object + ": " + verdict.detail(), verdict.rebaseFragments());
      case RETRYABLE -> ConflictOutcome.of(Kind.RETRYABLE, rule, theirVersion, theirKind,
          subject + " conflicts with " + object + ": " + verdict.detail() + "; rebuild the transaction on version "
              + theirVersion + " or later and retry");
      case INCOMPATIBLE -> ConflictOutcome.of(Kind.INCOMPATIBLE, rule, theirVersion, theirKind,
          subject + " is incompatible with " + object + ": " + verdict.detail());
      case ALREADY_COMMITTED -> throw new IllegalStateException("A matrix cell decided ALREADY_COMMITTED");
    };
  }

  /**
   * Checks ours against every version committed since its read version, in version order.
   *
   * <p>First, if any of them carries our uuid (as its own, or as a member of a group commit), that decides (ALREADY_COMMITTED, or "uuid-reuse"). Otherwise the
   * first RETRYABLE or INCOMPATIBLE outcome in version order is returned. Otherwise the result is combined: REBASE
   * (rule of the first rebase, fragments of all rebases) if any version needs a rebase, else COMPATIBLE
   * ("compatible-with-all"); both name the newest version. With nothing committed since: COMPATIBLE "up-to-date",
   * theirVersion = our read version, theirOperation = null.
   *
   * @throws IllegalArgumentException when a version repeats or is not after our read version
   */
  public static ConflictOutcome checkAll(Transaction ours, List<CommittedTransaction> since, RebaseInputs inputs) {
    Objects.requireNonNull(ours, "ours");
    Objects.requireNonNull(since, "since");
    Objects.requireNonNull(inputs, "inputs");
    OperationKind ourKind = OperationKind.of(ours);
    List<CommittedTransaction> ordered = new ArrayList<>(since);
    ordered.forEach(c -> Objects.requireNonNull(c, "committed transaction"));
    ordered.sort(Comparator.comparingLong(CommittedTransaction::version));
    for (int i = 0; i < ordered.size(); i++) {
      long version = ordered.get(i).version();
      if (version <= ours.getReadVersion()) {
        throw new IllegalArgumentException("Committed version " + version + " is not after read version "
            + ours.getReadVersion() + " of transaction " + ours.getUuid());
      }
      if (i > 0 && ordered.get(i - 1).version() == version) {
        throw new IllegalArgumentException("Committed version " + version + " is listed twice");
      }
    }
    String subject = ourKind.lanceName() + " at read version " + ours.getReadVersion();
    if (ordered.isEmpty()) {
      return ConflictOutcome.of(Kind.COMPATIBLE, "up-to-date", ours.getReadVersion(), null,
          subject + " is on the latest version; nothing was committed since");
    }
    if (!ours.getUuid().isEmpty()) {
      for (CommittedTransaction committed : ordered) {
        if (GroupMembers.madeBy(committed.txn(), ours.getUuid())) {
          return check(ours, committed.txn(), committed.version(), inputs);
        }
      }
    }

    TreeSet<Long> rebaseFragments = new TreeSet<>();
    List<String> rebaseReasons = new ArrayList<>();
    String firstRebaseRule = null;
    for (CommittedTransaction committed : ordered) {
      ConflictOutcome outcome = check(ours, committed.txn(), committed.version(), inputs);
      switch (outcome.kind()) {
        case RETRYABLE, INCOMPATIBLE, ALREADY_COMMITTED -> {
          return outcome;
        }
        case REBASE -> {
          rebaseFragments.addAll(outcome.rebaseFragments());
          rebaseReasons.add(outcome.reason());
          firstRebaseRule = firstRebaseRule == null ? outcome.rule() : firstRebaseRule;
        }
        case COMPATIBLE -> { }
      }
    }
    CommittedTransaction newest = ordered.get(ordered.size() - 1);
    OperationKind newestKind = OperationKind.of(newest.txn());
    String versions = ordered.size() == 1
        ? "version " + newest.version()
        : ordered.size() + " versions up to " + newest.version();
    if (!rebaseFragments.isEmpty()) {
      return new ConflictOutcome(Kind.REBASE, firstRebaseRule, newest.version(), newestKind,
          subject + " can be rebased over " + versions + " once the deletion vectors of fragments " + rebaseFragments
              + " are merged (" + String.join("; ", rebaseReasons) + ")", rebaseFragments);
    }
    return ConflictOutcome.of(Kind.COMPATIBLE, "compatible-with-all", newest.version(), newestKind,
        subject + " is compatible with " + versions + " (newest: " + newestKind.lanceName() + ")");
  }

  private static String describe(Kind kind) {
    return switch (kind) {
      case COMPATIBLE -> "compatible";
      case REBASE -> "compatible after a rebase";
      case RETRYABLE -> "retryable";
      case INCOMPATIBLE -> "incompatible";
      case ALREADY_COMMITTED -> "already committed";
    };
  }
}
