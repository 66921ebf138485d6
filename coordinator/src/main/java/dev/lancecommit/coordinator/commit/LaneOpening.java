package dev.lancecommit.coordinator.commit;

/**
 * Work a table's lane does once, holding itself, right after it is made and before it serves any commit or hold. In
 * cluster mode a lane is made when this instance takes a table over (or after the lane was idle): it first settles
 * the atomic batches another instance may have left holding the table's next version
 * ({@code batch.LaneTakeover}). A single coordinator does nothing ({@link #NONE}).
 */
@FunctionalInterface
public interface LaneOpening {
  LaneOpening NONE = lane -> lane.release(true);

  /**
   * Runs on a lane worker, the lane held; releases it when done (handing over the events of what it wrote), also when
   * it fails. Blocking.
   *
   * @throws RuntimeException the lane must not serve: every commit and hold waiting for it fails with this failure
   *     (a store failure: 503/17) and the next one makes the lane again
   */
  void open(HeldLane lane);
}
