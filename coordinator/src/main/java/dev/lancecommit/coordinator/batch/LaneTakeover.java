package dev.lancecommit.coordinator.batch;

import dev.lancecommit.coordinator.commit.CheckedCommit;
import dev.lancecommit.coordinator.commit.CommitRequest;
import dev.lancecommit.coordinator.commit.HeldLane;
import dev.lancecommit.coordinator.commit.LaneOpening;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.storage.StoreException;
import dev.lancecommit.coordinator.storage.StoreUnavailableException;
import dev.lancecommit.coordinator.table.CommitStateUnknownException;
import dev.lancecommit.coordinator.table.TableRef;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cluster mode: what a table's new lane does before it serves anything. The previous owner may have died (or be
 * paused) holding the table's lane for an atomic batch another instance coordinates, its member checked and not
 * written: the batch's next step would then take the version a commit reaching this new owner first could take. So
 * the lane first settles every batch that may hold the table's next version ({@link BatchLog#inFlight}: one listing of
 * {@code _catalog/batches/}), each decided by a put-if-absent as {@link LeasedHolds} decides an expired hold:
 *
 * <ul>
 *   <li>recorded and unfinished: the batch happens, so the member is written here now, from the transaction in the
 *       record, with the batch id on its event (a member already written, or whose version someone else took, is
 *       left as it is);
 *   <li>announced ({@link BatchIntent}) and neither recorded nor aborted: an abort is written at the record's key
 *       with put-if-absent ({@link BatchLog#abort}). If it lands, the record can never be written: the coordinating
 *       instance's put-if-absent finds the abort and answers that nothing was applied (503/17), and an old owner still
 *       holding the lane (paused, not dead) never gets to apply, since the coordinator applies only after its record.
 *       If the record landed first, the member is written here as above.
 * </ul>
 *
 * Why that is enough against an old owner that is paused rather than dead, its lease still running: after the abort
 * the coordinating instance's record finds it, so nobody applies anything; after a roll forward the old owner's late
 * apply finds the version taken by this very transaction (put-if-absent, then the read-back) and answers it as landed,
 * writing nothing. A batch announced before its first remote hold (see {@link BatchCoordinator}) is always seen here,
 * since a hold is granted only by an owner and this ownership began after that grant.
 *
 * <p>A store that cannot answer fails the opening: the table's commits answer 503/17 and the next one tries again.
 */
public final class LaneTakeover implements LaneOpening {
  private static final Logger LOG = LoggerFactory.getLogger(LaneTakeover.class);

  private final BatchLog log;
  private final PendingBatches pending;
  private final Clock clock;
  private final String self;

  /**
   * @param warehouse where batch records and intents live
   * @param pending hides a member version here while it is written (namespace readers, the reconciler)
   * @param self this instance's advertised URL, written into aborts
   */
  public LaneTakeover(StorageLocation warehouse, PendingBatches pending, Clock clock, String self) {
    this.log = new BatchLog(warehouse);
    this.pending = Objects.requireNonNull(pending, "pending");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.self = Objects.requireNonNull(self, "self");
  }

  @Override
  public void open(HeldLane lane) {
    TableRef table = lane.table();
    List<Long> hidden = new ArrayList<>();
    try {
      if (table.branch() != null) {
        return; // batches commit the main branch only
      }
      for (BatchLog.InFlight batch : log.inFlight(table)) {
        Optional<BatchRecord> record = batch.record();
        if (record.isEmpty()) {
          record = log.abort(batch.batchId(), clock.instant(), self);
          if (record.isEmpty()) {
            LOG.warn("Table {} taken over: batch {} was announced and not recorded; fenced (aborted) before the "
                + "lane serves", table.joinedId(), batch.batchId());
            continue;
          }
        }
        rollForward(lane, table, record.get(), hidden);
      }
    } catch (StoreException | CommitStateUnknownException e) {
      throw new StoreUnavailableException("The atomic batches that may hold the next version of table "
          + table.joinedId() + " could not be settled after this coordinator took the table over (" + e.getMessage()
          + "); nothing of this request was applied. Retry it.", e);
    } finally {
      // the events first: the reconciler must not publish a member version without its batch id
      lane.release(true);
      hidden.forEach(version -> pending.show(table.location(), version));
    }
  }

  private void rollForward(HeldLane lane, TableRef table, BatchRecord record, List<Long> hidden) {
    BatchRecord.Member member = record.members().stream().filter(m -> m.location().equals(table.location())
        && Objects.equals(m.tableUuid(), table.tableUuid())).findFirst().orElseThrow();
    CheckedCommit checked;
    try {
      checked = lane.check(new CommitRequest(member.transaction(), Optional.empty(), member.rebase(),
          record.actor()));
    } catch (StoreException | CommitStateUnknownException e) {
      throw e;
    } catch (RuntimeException e) {
      LOG.error("Batch {}: member {} (table {}) cannot be written by the new owner: {}", record.batchId(),
          member.index(), table.joinedId(), e.toString());
      return;
    }
    if (checked.alreadyCommitted()) {
      return; // written before (by the old owner, or by the coordinating instance)
    }
    if (checked.version() != member.version()) {
      LOG.error("Batch {}: member {} (table {}) was to make version {} but the table's next version is {}; the "
          + "batch cannot be completed", record.batchId(), member.index(), table.joinedId(), member.version(),
          checked.version());
      return;
    }
    pending.hide(table.location(), member.version());
    hidden.add(member.version());
    try {
      lane.apply(checked, record.batchId());
      LOG.warn("Table {} taken over: member {} of recorded batch {} written at version {} (roll forward)",
          table.joinedId(), member.index(), record.batchId(), member.version());
    } catch (StoreException | CommitStateUnknownException e) {
      throw e;
    } catch (RuntimeException e) {
      LOG.error("Batch {}: member {} (table {}) cannot be written by the new owner: {}", record.batchId(),
          member.index(), table.joinedId(), e.toString());
    }
  }
}
