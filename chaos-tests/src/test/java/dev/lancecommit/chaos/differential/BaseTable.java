package dev.lancecommit.chaos.differential;

import dev.lancecommit.testing.lance.LanceTables;
import java.nio.file.Path;
import java.util.Map;
import org.lance.operation.UpdateConfig;
import org.lance.operation.UpdateMap;

/**
 * The table every pair starts from, written by stock Lance: at {@link #READ_VERSION} it has fragment 0 (ids 0..39;
 * large enough that compaction leaves it alone), fragments 1 (ids 40..49) and 2 (ids 50..59), and config
 * {@code base.k = 1}. Values are {@code "v" + id}.
 */
public final class BaseTable {
  /** The read version V of every operation of the suite. */
  public static final long READ_VERSION = 4;
  /** The version Restore goes back to: fragments 0 and 1, no config. */
  public static final long RESTORE_TARGET = 2;

  private BaseTable() {}

  public static void create(Path dir) {
    try (LanceTables table = LanceTables.local(dir)) {
      table.createWithLance(0, 40);
      table.appendWithLance(40, 10);
      table.appendWithLance(50, 10);
      table.commitWithLance(3, UpdateConfig.builder()
          .configUpdates(UpdateMap.builder().updates(Map.of("base.k", "1")).replace(false).build())
          .build());
      if (table.latestVersion() != READ_VERSION) {
        throw new IllegalStateException("base table ended at version " + table.latestVersion());
      }
    }
  }
}
