package dev.lancecommit.chaos.harness;

import java.util.List;
import java.util.Random;

/**
 * One writer thread: until the run stops, picks a table and an operation, reads the latest version from the
 * coordinator (DescribeTable), builds the transaction with Lance on that version and commits it through CommitTable.
 *
 * <p>The commit protocol a careful writer follows: 200 is final; 409/14 means not committed, so the transaction is
 * rebuilt on a fresh read version under a new uuid; 429 and every unknown outcome (503/17, another 5xx, no answer
 * because the coordinator died) mean the very same transaction is sent again, until a definite answer comes; other
 * 4xx answers are final failures.
 */
final class ChaosWriter implements Runnable {
  private static final int MAX_APPEND_REBUILDS = 50;
  private static final int MAX_OTHER_REBUILDS = 8;

  private final List<ChaosTable> tables;
  private final CoordinatorClient client;
  private final Ledger ledger;
  private final Random random;
  private final TransactionPlanner planner;
  private final RunControl control;

  ChaosWriter(List<ChaosTable> tables, CoordinatorClient client, Ledger ledger, Random random, RunControl control) {
    this.tables = tables;
    this.client = client;
    this.ledger = ledger;
    this.random = random;
    this.planner = new TransactionPlanner(random);
    this.control = control;
  }

  @Override
  public void run() {
    while (!control.stopping()) {
      ChaosTable table = tables.get(random.nextInt(tables.size()));
      OperationType type = OperationType.pick(random);
      if (type == OperationType.CREATE) {
        continue;
      }
      long readVersion = readVersion(table, false);
      if (readVersion < 0) {
        return;
      }
      PlannedCommit planned;
      long start = System.nanoTime();
      try {
        planned = planner.plan(type, table, readVersion);
        ledger.planTime(type, System.nanoTime() - start);
      } catch (RuntimeException e) {
        ledger.planFailed(type, e);
        pause(200);
        continue;
      }
      if (planned == null) {
        ledger.planSkipped(type);
        continue;
      }
      commitUntilDefinite(planned);
    }
  }

  private void commitUntilDefinite(PlannedCommit first) {
    PlannedCommit current = first;
    ledger.sent(current);
    int rebuilds = 0;
    int unknownStreak = 0;
    long sentAt = System.nanoTime();
    while (true) {
      if (control.pastSettleDeadline()) {
        ledger.unresolved(current);
        return;
      }
      CommitOutcome outcome = client.commit(current.table().id(), current.transaction(), current.affectedRows());
      switch (outcome.kind()) {
        case COMMITTED -> {
          ledger.acknowledged(current, outcome.version());
          ledger.commitTime(current.type(), System.nanoTime() - sentAt);
          return;
        }
        case REJECTED -> {
          ledger.failed(current, outcome);
          ledger.commitTime(current.type(), System.nanoTime() - sentAt);
          return;
        }
        case THROTTLED -> {
          ledger.throttled();
          pause(100 + random.nextInt(400));
        }
        case UNKNOWN -> {
          ledger.unknown(outcome);
          pause(Math.min(2000, 100L << Math.min(unknownStreak++, 5)) + random.nextInt(100));
        }
        case RETRYABLE_CONFLICT -> {
          ledger.failed(current, outcome);
          ledger.commitTime(current.type(), System.nanoTime() - sentAt);
          int limit = current.type() == OperationType.APPEND ? MAX_APPEND_REBUILDS : MAX_OTHER_REBUILDS;
          if (control.stopping() || ++rebuilds > limit) {
            return;
          }
          long readVersion = readVersion(current.table(), true);
          if (readVersion < 0) {
            return;
          }
          PlannedCommit next;
          long start = System.nanoTime();
          try {
            next = planner.rebuild(current, readVersion);
            ledger.planTime(current.type(), System.nanoTime() - start);
          } catch (RuntimeException e) {
            ledger.planFailed(current.type(), e);
            return;
          }
          if (next == null) {
            ledger.planSkipped(current.type());
            return;
          }
          current = next;
          ledger.sent(current);
          unknownStreak = 0;
          sentAt = System.nanoTime();
        }
      }
    }
  }

  /**
   * The latest version per DescribeTable, retried while the coordinator is down; -1 once the run is stopping (or,
   * for a retry in flight, past the settle deadline).
   */
  private long readVersion(ChaosTable table, boolean finishingCommit) {
    int failures = 0;
    while (finishingCommit ? !control.pastSettleDeadline() : !control.stopping()) {
      long version = client.latestVersion(table.id());
      if (version > 0) {
        return version;
      }
      ledger.describeFailed();
      pause(Math.min(2000, 100L << Math.min(failures++, 5)));
    }
    return -1;
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
