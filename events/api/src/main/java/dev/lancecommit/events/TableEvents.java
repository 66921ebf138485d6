package dev.lancecommit.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cloudevents.CloudEvent;
import io.cloudevents.CloudEventData;
import io.cloudevents.SpecVersion;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.jackson.JsonCloudEventData;
import io.cloudevents.jackson.JsonFormat;
import java.io.IOException;
import java.net.URI;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Maps {@link TableEvent} to CloudEvents 1.0 and back.
 *
 * <p>Envelope, as for commit events ({@link CommitEvents}): type {@code dev.lancecommit.table.<kind>} (declared,
 * registered, deregistered, renamed, dropped, created), id {@code tableUuid:kind:epochMillis}, source (default
 * {@code /lance-commit-coordinator}), subject = table id joined with {@code $} (the new id for a rename), time, data
 * content type {@code application/json}, extensions {@value CommitEvents#EXT_TABLE_ID}, {@value
 * CommitEvents#EXT_NAMESPACE} (omitted for a root-level table), {@value CommitEvents#EXT_ACTOR}, and the
 * distributed-tracing extension ({@code traceparent}, {@code tracestate}; omitted without a trace context). The {@code data} object of each kind is described by
 * {@code schemas/table-<kind>-v1.json} ({@link TableEvent.Type#schemaResource()}) and is authoritative when reading
 * back.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class TableEvents {
  public static final String TYPE_PREFIX = "dev.lancecommit.table.";

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final JsonFormat FORMAT = new JsonFormat();
  private static final TableEvents DEFAULT = new TableEvents(CommitEvents.DEFAULT_SOURCE);

  private final URI source;

  public TableEvents(URI source) {
    this.source = Objects.requireNonNull(source, "source");
    if (source.toString().isEmpty()) {
      throw new IllegalArgumentException("CloudEvents source must be a non-empty URI reference");
    }
  }

  /** The mapper with source {@code /lance-commit-coordinator}. */
  public static TableEvents defaults() {
    return DEFAULT;
  }

  public URI source() {
    return source;
  }

  /** True when {@code cloudEventType} is one of the table event types (not the commit event type). */
  public static boolean isTableEventType(String cloudEventType) {
    return TableEvent.Type.fromCloudEventType(cloudEventType) != null;
  }

  /** True when {@code record} is a structured-mode JSON CloudEvent of a table event type (valid or not). */
  public static boolean isTableEvent(byte[] record) {
    if (record == null) {
      return false;
    }
    try {
      return isTableEventType(MAPPER.readTree(record).path("type").asText(""));
    } catch (java.io.IOException e) {
      return false;
    }
  }

  public CloudEvent toCloudEvent(TableEvent event) {
    Objects.requireNonNull(event, "event");
    CloudEventBuilder builder =
        CloudEventBuilder.v1()
            .withId(event.id())
            .withSource(source)
            .withType(event.type().cloudEventType())
            .withSubject(event.tableKey())
            .withTime(OffsetDateTime.ofInstant(event.time(), ZoneOffset.UTC))
            .withData(CommitEvents.DATA_CONTENT_TYPE, JsonCloudEventData.wrap(toData(event)))
            .withExtension(CommitEvents.EXT_TABLE_ID, event.tableKey())
            .withExtension(CommitEvents.EXT_ACTOR, event.actor());
    if (!event.namespace().isEmpty()) {
      builder.withExtension(CommitEvents.EXT_NAMESPACE, String.join(CommitEvent.ID_DELIMITER, event.namespace()));
    }
    CommitEvents.withTrace(builder, event.trace());
    return builder.build();
  }

  /** The structured-mode JSON encoding of the event: the Kafka record value. */
  public byte[] toStructuredJson(TableEvent event) {
    return FORMAT.serialize(toCloudEvent(event));
  }

  /** The {@code data} object of the event (snake_case keys); {@code previous_table_id} only for a rename. */
  public static ObjectNode toData(TableEvent event) {
    ObjectNode data = JsonNodeFactory.instance.objectNode();
    addId(data.putArray("table_id"), event.tableId());
    data.put("table_uuid", event.tableUuid());
    data.put("location", event.location());
    data.put("actor", event.actor());
    data.put("occurred_at", event.time().toString());
    if (event.previousTableId() != null) {
      addId(data.putArray("previous_table_id"), event.previousTableId());
    }
    return data;
  }

  /** Parses a structured-mode JSON CloudEvent (e.g. a Kafka record value) into a table event. */
  public static TableEvent fromStructuredJson(byte[] bytes) {
    return fromCloudEvent(CommitEvents.parseStructuredJson(bytes));
  }

  /**
   * Reads a table event back from its CloudEvent. The {@code data} object is authoritative; the envelope must agree
   * with it (type, id, subject) and the trace context comes from the distributed-tracing extension.
   *
   * @throws InvalidTableEventException naming what is wrong, also for a commit event or any other type
   */
  public static TableEvent fromCloudEvent(CloudEvent cloudEvent) {
    Objects.requireNonNull(cloudEvent, "cloudEvent");
    if (cloudEvent.getSpecVersion() != SpecVersion.V1) {
      throw new InvalidTableEventException("expected CloudEvents 1.0, got " + cloudEvent.getSpecVersion());
    }
    TableEvent.Type type = TableEvent.Type.fromCloudEventType(cloudEvent.getType());
    if (type == null) {
      throw new InvalidTableEventException(
          "not a table event: type '" + cloudEvent.getType() + "', expected " + TYPE_PREFIX + "{created, declared,"
              + " registered, deregistered, renamed, dropped}");
    }
    String contentType = cloudEvent.getDataContentType();
    if (contentType != null && !isJson(contentType)) {
      throw new InvalidTableEventException(
          "table event data must be " + CommitEvents.DATA_CONTENT_TYPE + ", got " + contentType);
    }
    TableEvent event = fromData(type, dataNode(cloudEvent.getData(), cloudEvent.getId()),
        CommitEvents.traceOf(cloudEvent));
    if (!event.id().equals(cloudEvent.getId())) {
      throw new InvalidTableEventException(
          "CloudEvent id '" + cloudEvent.getId() + "' does not match its data (expected '" + event.id() + "')");
    }
    if (cloudEvent.getSubject() != null && !cloudEvent.getSubject().equals(event.tableKey())) {
      throw new InvalidTableEventException(
          "CloudEvent subject '" + cloudEvent.getSubject() + "' does not match table id " + event.tableId());
    }
    return event;
  }

  /** Reads the {@code data} object of a table event of {@code type}; {@code trace} may be null. */
  public static TableEvent fromData(TableEvent.Type type, JsonNode data, TraceContext trace) {
    Objects.requireNonNull(type, "type");
    if (data == null || !data.isObject()) {
      throw new InvalidTableEventException("table event data must be a JSON object");
    }
    JsonNode previous = data.get("previous_table_id");
    if (type == TableEvent.Type.RENAMED && previous == null) {
      throw new InvalidTableEventException("renamed table event data lacks 'previous_table_id'");
    }
    if (type != TableEvent.Type.RENAMED && previous != null) {
      throw new InvalidTableEventException(type.wireName() + " table event data must not have 'previous_table_id'");
    }
    Instant time;
    try {
      time = Instant.parse(text(data, "occurred_at"));
    } catch (DateTimeParseException e) {
      throw new InvalidTableEventException("occurred_at is not an ISO-8601 instant: " + e.getMessage(), e);
    }
    try {
      return new TableEvent(type, id(data.get("table_id"), "table_id"), text(data, "table_uuid"),
          text(data, "location"), text(data, "actor"), time,
          previous == null ? null : id(previous, "previous_table_id"), trace);
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new InvalidTableEventException("invalid table event data: " + e.getMessage(), e);
    }
  }

  private static void addId(ArrayNode array, List<String> id) {
    id.forEach(array::add);
  }

  private static List<String> id(JsonNode node, String field) {
    if (node == null) {
      throw new InvalidTableEventException("table event data lacks '" + field + "'");
    }
    if (!node.isArray()) {
      throw new InvalidTableEventException(field + " must be an array of strings");
    }
    List<String> parts = new ArrayList<>();
    for (JsonNode part : node) {
      if (!part.isTextual()) {
        throw new InvalidTableEventException(field + " must be an array of strings");
      }
      parts.add(part.asText());
    }
    return parts;
  }

  private static String text(JsonNode data, String field) {
    JsonNode node = data.get(field);
    if (node == null) {
      throw new InvalidTableEventException("table event data lacks '" + field + "'");
    }
    if (!node.isTextual()) {
      throw new InvalidTableEventException(field + " must be a string");
    }
    return node.asText();
  }

  private static JsonNode dataNode(CloudEventData data, String eventId) {
    if (data == null) {
      throw new InvalidTableEventException("table event " + eventId + " has no data");
    }
    if (data instanceof JsonCloudEventData json) {
      return json.getNode();
    }
    try {
      return MAPPER.readTree(data.toBytes());
    } catch (IOException e) {
      throw new InvalidTableEventException("table event " + eventId + " data is not JSON: " + e.getMessage(), e);
    }
  }

  private static boolean isJson(String contentType) {
    String mediaType = contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    return mediaType.equals("application/json") || mediaType.endsWith("+json");
  }
}
