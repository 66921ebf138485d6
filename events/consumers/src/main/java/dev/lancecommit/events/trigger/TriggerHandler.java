package dev.lancecommit.events.trigger;

import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.consumer.CommitHandler;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs maintenance for each delivered commit. Each evaluation looks at the table's latest manifest, so an event of a
 * version at or below one already evaluated is skipped (a lagging consumer does not re-read the same manifest for
 * every old event). Maintenance is best effort: a failure is logged and the next commit of the table evaluates again;
 * it never holds the event stream back. Versions of Lance branches are left alone: maintenance runs on the main
 * branch, which the planner reads.
 */
public final class TriggerHandler implements CommitHandler {
  private static final Logger LOG = LoggerFactory.getLogger(TriggerHandler.class);

  private final MaintenanceRunner runner;
  private final Map<String, Long> evaluated = new ConcurrentHashMap<>();
  private final Map<String, Boolean> unsupported = new ConcurrentHashMap<>();

  public TriggerHandler(MaintenanceRunner runner) {
    this.runner = runner;
  }

  @Override
  public void onCommit(CommitEvent event) {
    if (event.branch() != null) {
      return;
    }
    Long last = evaluated.get(event.tableUuid());
    if (last != null && event.version() <= last) {
      return;
    }
    try {
      evaluated.put(event.tableUuid(), runner.run(event));
    } catch (UnsupportedOperationException e) {
      if (unsupported.putIfAbsent(event.tableUuid(), Boolean.TRUE) == null) {
        LOG.warn("table {}: {}", event.tableKey(), e.getMessage());
      }
    } catch (RuntimeException e) {
      LOG.warn("table {} v{}: maintenance evaluation failed: {}", event.tableKey(), event.version(), e.toString(), e);
    }
  }
}
