package dev.lancecommit.events.trigger;

import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Manifest;
import java.util.List;
import java.util.Optional;

/**
 * Writes the data and index files maintenance needs, without committing ({@link LanceMaintenance} with lance-core).
 * Kept apart from the runner so that the runner and the planner load without lance-core on the classpath.
 */
public interface MaintenanceWorker extends AutoCloseable {

  /** New uncommitted fragments holding the live rows of {@code plan}'s fragments as of {@code version}. */
  List<DataFragment> compact(String location, long version, CompactionPlan plan, Optional<String> fileVersion);

  /** An uncommitted index over {@code fragmentIds} of {@code version}, replacing {@code plan}'s segments. */
  IndexMetadata rebuildIndex(String location, long version, Manifest manifest, IndexRefreshPlan plan,
      List<Long> fragmentIds);

  @Override
  void close();
}
