package dev.lancecommit.events.audit;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lancecommit.events.CommitEvent;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One recorded commit: who committed what to which table and when.
 *
 * @param event the commit event as it was first recorded
 * @param recordedAt when the audit log stored it
 */
public record AuditEntry(CommitEvent event, Instant recordedAt) {

  public AuditEntry {
    Objects.requireNonNull(event, "event");
    Objects.requireNonNull(recordedAt, "recordedAt");
  }

  public List<String> tableId() {
    return event.tableId();
  }

  public long version() {
    return event.version();
  }

  /** A flat JSON object (snake_case, as in the event's data) plus {@code recorded_at}. */
  public ObjectNode toJson() {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("table", event.tableKey());
    node.put("table_uuid", event.tableUuid());
    if (event.branch() != null) {
      node.put("branch", event.branch());
    }
    node.put("version", event.version());
    node.put("read_version", event.readVersion());
    node.put("operation", event.operation());
    node.put("actor", event.actor());
    node.put("committed_at", event.committedAt().toString());
    node.put("rows_added", event.rowsAdded());
    node.put("rows_removed", event.rowsRemoved());
    node.put("fragments_added", event.fragmentsAdded());
    node.put("fragments_removed", event.fragmentsRemoved());
    node.put("governed", event.governed());
    node.put("transaction_uuid", event.transactionUuid());
    node.put("manifest_path", event.manifestPath());
    node.put("location", event.location());
    node.put("trace_id", event.traceId());
    node.put("recorded_at", recordedAt.toString());
    return node;
  }
}
