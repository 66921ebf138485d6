package dev.lancecommit.chaos.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * When a warm-up run's tables are removed: late enough that no measured window opens right after a removal.
 *
 * <p>Removing a table of some 15,000 files right before a window charged every file created in it: ext4 looks for a
 * free inode past each one deleted in the last 30 seconds ({@code recently_deleted}), and in the 16-writer local cell a
 * fifth of the commit lanes' time went there (BENCHMARK.md). So each warm-up run's tables are removed at the end of
 * the run after it, except that the last warm-up run removes nothing: the last removal before the window is then at
 * least one warm-up run (one window's length) earlier, and the last two warm-up runs' tables go once the measured run
 * has ended. At most three runs' tables are on disk at once.
 */
final class WarmupTableRemoval {
  private final Consumer<String> removeTablesOf;
  private final List<String> kept = new ArrayList<>();

  WarmupTableRemoval(Consumer<String> removeTablesOf) {
    this.removeTablesOf = removeTablesOf;
  }

  /** A warm-up run named {@code run} has ended; {@code last}: no other warm-up run follows before the measured one. */
  void warmupEnded(String run, boolean last) {
    if (!last) {
      removeKept();
    }
    kept.add(run);
  }

  /** The measured run has ended: the warm-up runs' tables still kept are removed. */
  void measuredEnded() {
    removeKept();
  }

  private void removeKept() {
    kept.forEach(removeTablesOf);
    kept.clear();
  }
}
