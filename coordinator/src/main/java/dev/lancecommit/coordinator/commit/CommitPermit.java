package dev.lancecommit.coordinator.commit;

import dev.lancecommit.coordinator.table.TableRef;

/**
 * Asked by a commit lane right before each manifest write: may this instance write the table's next version now? A
 * single coordinator always may. In cluster mode only the owner of the table's partition may; an instance that has
 * lost it (or is giving it up) hands the commit back, unwritten, to be sent to the new owner. This is about who
 * writes, not about safety: the write itself is put-if-absent whoever makes it.
 */
@FunctionalInterface
public interface CommitPermit {
  CommitPermit ALWAYS = table -> { };

  /**
   * Returns when the write may go ahead; must be cheap (no I/O).
   *
   * @throws TableNotOwnedException when another instance owns the table: nothing of this commit was written
   */
  void check(TableRef table);
}
