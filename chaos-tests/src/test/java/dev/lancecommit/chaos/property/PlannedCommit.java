package dev.lancecommit.chaos.property;

import dev.lancecommit.format.pb.Transaction;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A transaction a writer built on its read version, ready for CommitTable, with what committing it does to the
 * {@link TableModel} and the config keys it touches.
 */
public record PlannedCommit(Step step, long readVersion, Transaction transaction, Optional<byte[]> affectedRows,
    Consumer<TableModel> effect, Set<String> configUpserts, Set<String> configDeletes, String description) {

  @Override
  public String toString() {
    return step + " on v" + readVersion + ": " + description;
  }
}
