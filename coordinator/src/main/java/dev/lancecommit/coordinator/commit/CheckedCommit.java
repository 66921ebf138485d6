package dev.lancecommit.coordinator.commit;

import dev.lancecommit.format.pb.Transaction;

/**
 * A commit checked under a {@link HeldLane}: the version it makes (or made already), nothing written yet. A check
 * made on another instance (a remote hold) is kept there; here it is only its outcome, with no built version.
 */
public final class CheckedCommit {
  private final Built built;
  private final Transaction transaction;
  private final String actor;
  private final long version;
  private final boolean alreadyCommitted;

  CheckedCommit(Built built, Transaction transaction, String actor) {
    this.built = built;
    this.transaction = transaction;
    this.actor = actor;
    this.version = built instanceof Built.Ready ready ? ready.version() : ((Built.AlreadyCommitted) built).version();
    this.alreadyCommitted = built instanceof Built.AlreadyCommitted;
  }

  private CheckedCommit(Transaction transaction, String actor, long version, boolean alreadyCommitted) {
    this.built = null;
    this.transaction = transaction;
    this.actor = actor;
    this.version = version;
    this.alreadyCommitted = alreadyCommitted;
  }

  /** The outcome of a check another instance made under its hold of the lane (it keeps the built version). */
  public static CheckedCommit checkedElsewhere(CommitRequest request, long version, boolean alreadyCommitted) {
    return new CheckedCommit(TransactionDecoding.decode(request.transaction()), request.actor(), version,
        alreadyCommitted);
  }

  /** The version the commit makes, or made when {@link #alreadyCommitted()}. */
  public long version() {
    return version;
  }

  /** True when the transaction already made {@link #version()}: applying it writes nothing. */
  public boolean alreadyCommitted() {
    return alreadyCommitted;
  }

  public Transaction transaction() {
    return transaction;
  }

  Built built() {
    if (built == null) {
      throw new IllegalStateException("A commit checked on another instance is applied there");
    }
    return built;
  }

  String actor() {
    return actor;
  }
}
