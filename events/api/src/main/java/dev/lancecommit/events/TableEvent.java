package dev.lancecommit.events;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One catalog change of a table (declared, registered, deregistered, renamed, dropped, created), as published to
 * downstream consumers next to the commit events.
 *
 * <p>{@link Type#CREATED} is not emitted by the coordinator: a table's first version is the commit event
 * ({@value CommitEvents#TYPE}) with version 1 (read_version 0, normally operation Overwrite). The type and its
 * schema exist so other producers (e.g. a future CreateTable route) can use them.
 *
 * @param type what happened
 * @param tableId the identifier parts, namespace first, table name last; for RENAMED the new identifier
 * @param tableUuid the stable uuid the catalog gave the table
 * @param location the table root URI
 * @param actor who made the change, {@link CommitEvent#ANONYMOUS} when unknown
 * @param time when the change was made (the event id carries it in epoch milliseconds)
 * @param previousTableId for RENAMED the identifier before the rename; {@code null} for every other type
 * @param trace the W3C trace context of the request, may be {@code null}
 */
public record TableEvent(
    Type type,
    List<String> tableId,
    String tableUuid,
    String location,
    String actor,
    Instant time,
    List<String> previousTableId,
    TraceContext trace) {

  /** The kinds of catalog change; {@link #wireName()} is the last segment of the CloudEvent type. */
  public enum Type {
    CREATED,
    DECLARED,
    REGISTERED,
    DEREGISTERED,
    RENAMED,
    DROPPED;

    /** Lower case name, e.g. {@code declared}. */
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** The CloudEvent type, e.g. {@code dev.lancecommit.table.declared}. */
    public String cloudEventType() {
      return TableEvents.TYPE_PREFIX + wireName();
    }

    /** Classpath resource of the JSON Schema of this type's {@code data} object. */
    public String schemaResource() {
      return "/schemas/table-" + wireName() + "-v1.json";
    }

    /** The type whose {@link #cloudEventType()} is {@code cloudEventType}, or null. */
    public static Type fromCloudEventType(String cloudEventType) {
      if (cloudEventType == null) {
        return null;
      }
      for (Type type : values()) {
        if (type.cloudEventType().equals(cloudEventType)) {
          return type;
        }
      }
      return null;
    }
  }

  public TableEvent {
    Objects.requireNonNull(type, "type");
    tableId = checkedId(tableId, "tableId");
    requireText(tableUuid, "tableUuid");
    requireText(location, "location");
    actor = actor == null || actor.isBlank() ? CommitEvent.ANONYMOUS : actor;
    Objects.requireNonNull(time, "time");
    if (type == Type.RENAMED) {
      previousTableId = checkedId(previousTableId, "previousTableId");
      if (previousTableId.equals(tableId)) {
        throw new IllegalArgumentException("a rename needs a different previous id, got " + tableId + " twice");
      }
    } else if (previousTableId != null) {
      throw new IllegalArgumentException("previousTableId is only allowed for RENAMED, not " + type);
    }
  }

  /** An event of any type but RENAMED. */
  public static TableEvent of(
      Type type, List<String> tableId, String tableUuid, String location, String actor, Instant time) {
    return new TableEvent(type, tableId, tableUuid, location, actor, time, null, null);
  }

  /** A RENAMED event: {@code tableId} is the new identifier. */
  public static TableEvent renamed(
      List<String> previousTableId, List<String> tableId, String tableUuid, String location, String actor,
      Instant time) {
    return new TableEvent(Type.RENAMED, tableId, tableUuid, location, actor, time, previousTableId, null);
  }

  /** This event in the trace {@code value} (null for none). */
  public TableEvent withTrace(TraceContext value) {
    return new TableEvent(type, tableId, tableUuid, location, actor, time, previousTableId, value);
  }

  /** The trace id of the request's trace, or null. */
  public String traceId() {
    return trace == null ? null : trace.traceId();
  }

  /**
   * The deterministic event id, {@code tableUuid:type:epochMillis}: republishing the same change gives the same id,
   * so consumers can drop duplicates.
   */
  public String id() {
    return tableUuid + ":" + type.wireName() + ":" + time.toEpochMilli();
  }

  /** All id parts but the last; empty for a table at the root namespace. */
  public List<String> namespace() {
    return tableId.subList(0, tableId.size() - 1);
  }

  /** The table id joined with {@code $}: the Kafka record key and the CloudEvent subject. */
  public String tableKey() {
    return String.join(CommitEvent.ID_DELIMITER, tableId);
  }

  private static List<String> checkedId(List<String> id, String name) {
    Objects.requireNonNull(id, name);
    if (id.isEmpty()) {
      throw new IllegalArgumentException(name + " must have at least one part");
    }
    for (String part : id) {
      if (part == null || part.isEmpty()) {
        throw new IllegalArgumentException(name + " parts must be non-empty: " + id);
      }
    }
    return List.copyOf(id);
  }

  private static void requireText(String value, String name) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(name + " must be non-blank");
    }
  }
}
