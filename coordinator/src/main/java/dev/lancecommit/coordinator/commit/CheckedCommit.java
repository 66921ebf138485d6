package dev.lancecommit.coordinator.commit;

import dev.lancecommit.format.pb.Transaction;

/** A commit checked under a {@link HeldLane}: the version it makes (or made already), nothing written yet. */
public final class CheckedCommit {
  private final Built built;
  private final Transaction transaction;
  private final String actor;

  CheckedCommit(Built built, Transaction transaction, String actor) {
    this.built = built;
    this.transaction = transaction;
    this.actor = actor;
  }

  /** The version the commit makes, or made when {@link #alreadyCommitted()}. */
  public long version() {
    return built instanceof Built.Ready ready ? ready.version() : ((Built.AlreadyCommitted) built).version();
  }

  /** True when the transaction already made {@link #version()}: applying it writes nothing. */
  public boolean alreadyCommitted() {
    return built instanceof Built.AlreadyCommitted;
  }

  public Transaction transaction() {
    return transaction;
  }

  Built built() {
    return built;
  }

  String actor() {
    return actor;
  }
}
