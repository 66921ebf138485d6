package dev.lancecommit.chaos.differential;

import static dev.lancecommit.chaos.differential.BaseTable.READ_VERSION;

import dev.lancecommit.testing.lance.LanceTables;
import dev.lancecommit.testing.lance.StockLanceFiles;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Set;
import java.util.Map;

/**
 * Produces every {@link LanceOperation} in both {@link Slot}s with stock Lance, each on its own scratch copy of the
 * base table, and gathers the files they wrote (data, deletion and index files, never versions) into one
 * {@link #pool()} directory: the base table plus every operation's files, uncommitted. A copy of the pool is the
 * table at version V on which any pair can be committed, by Lance or by the coordinator.
 */
public final class OperationStage {
  private final Path pool;
  private final Map<LanceOperation, Map<Slot, StagedOperation>> staged = new EnumMap<>(LanceOperation.class);

  private OperationStage(Path pool) {
    this.pool = pool;
  }

  /** Builds the base table and stages every operation under {@code workDir}. */
  public static OperationStage build(Path workDir) {
    return build(workDir, EnumSet.allOf(LanceOperation.class), EnumSet.allOf(Slot.class));
  }

  /** Builds the base table and stages {@code operations} in {@code slots} only. */
  public static OperationStage build(Path workDir, Set<LanceOperation> operations, Set<Slot> slots) {
    Path base = workDir.resolve("base.lance");
    BaseTable.create(base);
    Path pool = workDir.resolve("pool.lance");
    TableFiles.copyTree(base, pool);
    OperationStage stage = new OperationStage(pool);
    for (LanceOperation op : operations) {
      for (Slot slot : slots) {
        Path scratch = workDir.resolve("scratch").resolve(op.name() + "-" + slot.name() + ".lance");
        TableFiles.copyTree(base, scratch);
        stage.staged.computeIfAbsent(op, k -> new EnumMap<>(Slot.class)).put(slot, stage(op, slot, scratch));
        TableFiles.copyNewFiles(base, scratch, pool);
      }
    }
    return stage;
  }

  private static StagedOperation stage(LanceOperation op, Slot slot, Path scratch) {
    try (LanceTables table = LanceTables.local(scratch)) {
      op.perform(table, slot);
      long committed = table.latestVersion();
      if (committed != READ_VERSION + 1) {
        throw new IllegalStateException(op + " took stock Lance from version " + READ_VERSION + " to " + committed
            + "; each operation must be exactly one commit");
      }
      String txnFile = StockLanceFiles.manifest(scratch, committed).getTransactionFile();
      byte[] bytes = TableFiles.read(scratch.resolve("_transactions").resolve(txnFile));
      StagedOperation out = new StagedOperation(op, slot, bytes, scratch);
      if (out.parsed().getReadVersion() != READ_VERSION) {
        throw new IllegalStateException(op + " was recorded with read version " + out.parsed().getReadVersion());
      }
      return out;
    }
  }

  public Path pool() {
    return pool;
  }

  public StagedOperation get(LanceOperation op, Slot slot) {
    return staged.get(op).get(slot);
  }
}
