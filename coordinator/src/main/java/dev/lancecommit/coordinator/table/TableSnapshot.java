package dev.lancecommit.coordinator.table;

import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.Transaction;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A table as {@link TableOperations} last knew it: the latest version (none yet for a declared table), the oldest
 * version present and the manifest naming scheme. Immutable: a commit makes a new snapshot, a refresh another one.
 *
 * <p>Snapshots that descend from one refresh share a memo of the transactions of recent versions (the facts of
 * versions that landed never change), so conflict checks rarely read {@code _versions/} again; a refresh starts a
 * new memo, so nothing read before it is trusted after it.
 *
 * <p>A snapshot can also be speculative: the table as it will be once a version being written lands
 * ({@link StagedVersion#after()}), so that the next version is built while the write is in flight. It knows the
 * transaction of that version itself until the version has landed and entered the memo.
 */
public final class TableSnapshot {
  private final TableState latest;
  private final long firstVersion;
  private final ManifestNaming.Scheme scheme;
  final RecentTransactions recent;
  /** Transactions of versions of this snapshot not (known to be) landed: at most its own and its parent's latest. */
  private final Map<Long, Transaction> unlanded;

  TableSnapshot(TableState latest, long firstVersion, ManifestNaming.Scheme scheme, RecentTransactions recent) {
    this(latest, firstVersion, scheme, recent, Map.of());
  }

  private TableSnapshot(TableState latest, long firstVersion, ManifestNaming.Scheme scheme,
      RecentTransactions recent, Map<Long, Transaction> unlanded) {
    this.latest = latest;
    this.firstVersion = firstVersion;
    this.scheme = scheme;
    this.recent = recent;
    this.unlanded = unlanded;
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

  /**
   * The table once {@code next}, made by {@code txn}, has landed on top of this; nothing is remembered until it has
   * ({@link TableOperations#commit(StagedVersion)} remembers it).
   */
  TableSnapshot speculate(TableState next, Transaction txn) {
    long first = latest == null ? next.version() : firstVersion;
    Map<Long, Transaction> pending = new TreeMap<>();
    Transaction mine = unlanded.get(latestVersion());
    if (mine != null && recent.get(latestVersion()) == null) {
      pending.put(latestVersion(), mine); // this snapshot is itself still being written
    }
    pending.put(next.version(), txn);
    return new TableSnapshot(next, first, scheme, recent, Map.copyOf(pending));
  }

  /** The transaction of {@code version} if this snapshot knows it without reading: not landed yet, or memoized. */
  Transaction knownTransaction(long version) {
    Transaction pending = unlanded.get(version);
    return pending != null ? pending : recent.get(version);
  }

  /** True when {@code other} is the same state of the table as seen from the same listing (possibly speculated). */
  boolean sameStateAs(TableSnapshot other) {
    return other != null && other.recent == recent && other.latestVersion() == latestVersion()
        && Objects.equals(other.knownTransaction(latestVersion()), knownTransaction(latestVersion()));
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
