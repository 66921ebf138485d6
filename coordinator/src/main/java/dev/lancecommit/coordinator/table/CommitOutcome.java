package dev.lancecommit.coordinator.table;

/** What {@link TableOperations#commit} did: the version landed, or another writer holds it now. */
public sealed interface CommitOutcome {

  /** The manifest is written; {@code snapshot} is the table with it, now {@link TableOperations#current()}. */
  record Landed(TableSnapshot snapshot) implements CommitOutcome {}

  /**
   * Another writer's manifest holds {@code version}: the base was stale. The operations refresh on the next
   * {@link TableOperations#current()}.
   */
  record Taken(long version) implements CommitOutcome {}
}
