package dev.lancecommit.coordinator.observe;

import dev.lancecommit.coordinator.commit.CommitResult;
import dev.lancecommit.coordinator.commit.CommitThrottledException;
import dev.lancecommit.coordinator.commit.InvalidCommitRequestException;
import dev.lancecommit.coordinator.commit.VersionConflictException;
import dev.lancecommit.coordinator.storage.StoreException;
import dev.lancecommit.coordinator.table.CommitStateUnknownException;
import dev.lancecommit.format.UnsupportedFeatureException;
import dev.lancecommit.rules.InvalidTransactionException;
import dev.lancecommit.rules.SchemaContractException;
import dev.lancecommit.rules.UnsupportedOperationTypeException;
import dev.lancecommit.rules.conflict.CommitConflictException;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;

/**
 * The {@code outcome} label of a commit, one per kind of answer of ARCHITECTURE.md's error table: {@code committed},
 * {@code already_committed}, {@code conflict_retryable} (409/14), {@code conflict_incompatible} (409/19),
 * {@code invalid} (400), {@code throttled} (429), {@code unavailable} (503/17, store down), {@code state_unknown}
 * (503/17, the manifest write's outcome unknown), and {@code error} for a failure the table does not name (a 500: a
 * bug or a corrupt file).
 */
public final class CommitOutcomes {
  public static final List<String> ALL = List.of("committed", "already_committed", "conflict_retryable",
      "conflict_incompatible", "invalid", "throttled", "unavailable", "state_unknown", "error");

  private CommitOutcomes() {}

  static String of(CommitResult result, boolean alreadyCommitted, Throwable failure) {
    if (failure == null) {
      return alreadyCommitted ? "already_committed" : "committed";
    }
    Throwable t = unwrap(failure);
    if (t instanceof CommitConflictException conflict) {
      return conflict.retryable() ? "conflict_retryable" : "conflict_incompatible";
    }
    if (t instanceof VersionConflictException) {
      return "conflict_retryable";
    }
    if (t instanceof UnsupportedFeatureException) {
      return "conflict_incompatible";
    }
    if (t instanceof InvalidTransactionException || t instanceof SchemaContractException
        || t instanceof UnsupportedOperationTypeException || t instanceof InvalidCommitRequestException) {
      return "invalid";
    }
    if (t instanceof CommitThrottledException) {
      return "throttled";
    }
    if (t instanceof CommitStateUnknownException) {
      return "state_unknown";
    }
    if (t instanceof StoreException || t instanceof RejectedExecutionException) {
      return "unavailable";
    }
    return "error";
  }

  /** The conflict that refused the commit, or null. */
  static CommitConflictException conflict(Throwable failure) {
    return failure != null && unwrap(failure) instanceof CommitConflictException c ? c : null;
  }

  static Throwable unwrap(Throwable failure) {
    Throwable t = failure;
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }
}
