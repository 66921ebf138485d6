package dev.lancecommit.events.trigger;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.List;

/**
 * One maintenance decision or result, as recorded and logged.
 *
 * @param at when it was recorded
 * @param table the table id joined with {@code $}
 * @param tableUuid the table uuid
 * @param planVersion the version the plan was made on
 * @param kind what maintenance
 * @param status what happened
 * @param committedVersion the version the coordinator committed, -1 when none
 * @param fragmentIds the fragments involved (compacted, or not covered by the index)
 * @param rows the rows involved (compacted, or not covered by the index)
 * @param detail a human-readable explanation
 */
public record MaintenanceAction(Instant at, String table, String tableUuid, long planVersion, Kind kind,
    Status status, long committedVersion, List<Long> fragmentIds, long rows, String detail) {

  public enum Kind {
    COMPACTION,
    INDEX_REFRESH
  }

  public enum Status {
    /** Committed through the coordinator. */
    COMMITTED,
    /** Due, and not done by this consumer (e.g. an index kind it cannot rebuild): someone should act. */
    DUE,
    /** Was due, but a concurrent commit made it unnecessary. */
    ABANDONED,
    /** Refused by the coordinator, failed in Lance, or still conflicting after the last attempt. */
    FAILED,
    /** The coordinator did not answer; the commit may or may not have landed (the next event will tell). */
    UNKNOWN
  }

  public MaintenanceAction {
    fragmentIds = List.copyOf(fragmentIds);
  }

  public ObjectNode toJson() {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("at", at.toString());
    node.put("table", table);
    node.put("table_uuid", tableUuid);
    node.put("plan_version", planVersion);
    node.put("kind", kind.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
    node.put("status", status.name().toLowerCase(java.util.Locale.ROOT));
    if (committedVersion >= 0) {
      node.put("committed_version", committedVersion);
    }
    fragmentIds.forEach(node.putArray("fragment_ids")::add);
    node.put("rows", rows);
    node.put("detail", detail);
    return node;
  }
}
