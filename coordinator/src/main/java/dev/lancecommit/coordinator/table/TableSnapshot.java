package dev.lancecommit.coordinator.table;

import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.Transaction;
import java.util.Map;
import java.util.TreeMap;

/**
 * A table as {@link TableOperations} last knew it: the latest version (none yet for a declared table), the oldest
 * version present and the manifest naming scheme. Immutable: a commit makes a new snapshot, a refresh another one.
 *
 * <p>Snapshots that descend from one refresh share a memo of the transactions of recent versions (the facts of
 * versions that landed never change), so conflict checks rarely read {@code _versions/} again; a refresh starts a
 * new memo, so nothing read before it is trusted after it.
 */
public final class TableSnapshot {
  private final TableState latest;
  private final long firstVersion;
  private final ManifestNaming.Scheme scheme;
  final RecentTransactions recent;

  TableSnapshot(TableState latest, long firstVersion, ManifestNaming.Scheme scheme, RecentTransactions recent) {
    this.latest = latest;
    this.firstVersion = firstVersion;
    this.scheme = scheme;
    this.recent = recent;
  }

  /** The latest version, or null when the table has none yet. */
  public TableState latest() {
    return latest;
  }

  /** The latest version number, 0 when the table has none yet. */
  public long latestVersion() {
    return latest == null ? 0 : latest.version();
  }

  /** The oldest version the table had when it was listed (0 while it has none). */
  public long firstVersion() {
    return firstVersion;
  }

  /** The naming scheme of the table's manifests (for a table without versions: the one its first will use). */
  public ManifestNaming.Scheme scheme() {
    return scheme;
  }

  /** The table once {@code next}, made by {@code txn}, landed on top of this. */
  TableSnapshot advance(TableState next, Transaction txn) {
    long first = latest == null ? next.version() : firstVersion;
    recent.remember(next.version(), txn);
    return new TableSnapshot(next, first, scheme, recent);
  }

  /** Transactions of recent versions by version, bounded; shared by the snapshots of one refresh. Thread-safe. */
  static final class RecentTransactions {
    private final TreeMap<Long, Transaction> byVersion = new TreeMap<>();
    private final int limit;

    RecentTransactions(int limit) {
      this.limit = limit;
    }

    synchronized Transaction get(long version) {
      return byVersion.get(version);
    }

    synchronized void remember(long version, Transaction txn) {
      byVersion.put(version, txn);
      while (byVersion.size() > limit) {
        Map.Entry<Long, Transaction> oldest = byVersion.firstEntry();
        byVersion.remove(oldest.getKey());
      }
    }
  }
}
