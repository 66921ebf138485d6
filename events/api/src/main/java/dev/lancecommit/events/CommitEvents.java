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
import io.cloudevents.core.extensions.DistributedTracingExtension;
import io.cloudevents.core.provider.ExtensionProvider;
import io.cloudevents.core.format.EventDeserializationException;
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
 * Maps {@link CommitEvent} to CloudEvents 1.0 and back.
 *
 * <p>Envelope: type {@value #TYPE}, id {@code tableUuid:version}, source (configurable, default {@code
 * /lance-commit-coordinator}), subject = table id joined with {@code $}, time = committedAt, datacontenttype {@value
 * #DATA_CONTENT_TYPE}, extensions {@value #EXT_TABLE_ID}, {@value #EXT_NAMESPACE} (omitted for a root-level table),
 * {@value #EXT_ACTOR}, and the CloudEvents distributed-tracing extension ({@code traceparent}, {@code tracestate};
 * omitted when the event has no trace context), dataschema {@value #DATA_SCHEMA}. The {@code data} object is described
 * by {@code schemas/table-committed-v3.json} on the classpath ({@link #DATA_SCHEMA_RESOURCE}); it is the authoritative
 * content when reading back.
 *
 * <p>Schema versions only add fields. Version 2 adds {@code branch} (written for versions of a Lance branch, left out
 * for the main branch), {@code batch_id} (written for the versions of an atomic multi-table batch), {@code members} (the writers' transactions a version commits: uuid, read version, actor, trace
 * id) and {@code group_size}; every field of version 1 keeps its meaning, so a consumer of version 1 reads version 2
 * events unchanged (for a group commit, {@code transaction_uuid} is the group's own uuid and {@code actor} names its
 * members' actors). Version 3 adds {@code new_fragment_ids} to a member (the ids the version gave the fragments that
 * member's transaction added, as its CommitTable answer says), written when the member added fragments and they are
 * known; an event without them is a valid version 2 event. Events of version 1 are read as main-branch versions
 * without a member list, events of version 2 as members without fragment ids.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class CommitEvents {
  public static final String TYPE = "dev.lancecommit.table.committed";
  public static final URI DEFAULT_SOURCE = URI.create("/lance-commit-coordinator");
  public static final String DATA_CONTENT_TYPE = "application/json";
  /** Content type of a structured-mode JSON CloudEvent (the Kafka {@code content-type} header value). */
  public static final String STRUCTURED_CONTENT_TYPE = JsonFormat.CONTENT_TYPE + "; charset=UTF-8";
  /** Classpath resource of the JSON Schema of the {@code data} object (the current version, 3). */
  public static final String DATA_SCHEMA_RESOURCE = "/schemas/table-committed-v3.json";
  /** Classpath resource of version 2 of the schema, kept for consumers that validate against it. */
  public static final String DATA_SCHEMA_V2_RESOURCE = "/schemas/table-committed-v2.json";
  /** Classpath resource of version 1 of the schema, kept for consumers that validate against it. */
  public static final String DATA_SCHEMA_V1_RESOURCE = "/schemas/table-committed-v1.json";
  /** The {@code dataschema} attribute of every commit event: the {@code $id} of the current schema. */
  public static final String DATA_SCHEMA = "urn:lancecommit:schema:table-committed:v3";

  public static final String EXT_TABLE_ID = "tableid";
  public static final String EXT_NAMESPACE = "namespace";
  public static final String EXT_ACTOR = "actor";

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final JsonFormat FORMAT = new JsonFormat();
  private static final CommitEvents DEFAULT = new CommitEvents(DEFAULT_SOURCE);

  private final URI source;

  public CommitEvents(URI source) {
    this.source = Objects.requireNonNull(source, "source");
    if (source.toString().isEmpty()) {
      throw new IllegalArgumentException("CloudEvents source must be a non-empty URI reference");
    }
  }

  /** The mapper with source {@code /lance-commit-coordinator}. */
  public static CommitEvents defaults() {
    return DEFAULT;
  }

  public URI source() {
    return source;
  }

  public CloudEvent toCloudEvent(CommitEvent event) {
    Objects.requireNonNull(event, "event");
    CloudEventBuilder builder =
        CloudEventBuilder.v1()
            .withId(event.id())
            .withSource(source)
            .withType(TYPE)
            .withSubject(event.tableKey())
            .withTime(OffsetDateTime.ofInstant(event.committedAt(), ZoneOffset.UTC))
            .withDataSchema(URI.create(DATA_SCHEMA))
            .withData(DATA_CONTENT_TYPE, JsonCloudEventData.wrap(toData(event)))
            .withExtension(EXT_TABLE_ID, event.tableKey())
            .withExtension(EXT_ACTOR, event.actor());
    if (!event.namespace().isEmpty()) {
      builder.withExtension(EXT_NAMESPACE, String.join(CommitEvent.ID_DELIMITER, event.namespace()));
    }
    withTrace(builder, event.trace());
    return builder.build();
  }

  /** Adds the distributed-tracing extension for {@code trace}; nothing when it is null. */
  static void withTrace(CloudEventBuilder builder, TraceContext trace) {
    if (trace == null) {
      return;
    }
    DistributedTracingExtension extension = new DistributedTracingExtension();
    extension.setTraceparent(trace.traceParent());
    extension.setTracestate(trace.traceState());
    builder.withExtension(extension);
  }

  /**
   * The trace context of a CloudEvent's distributed-tracing extension; null when it has none or a malformed
   * {@code traceparent} (the event stays readable, only its trace is lost).
   */
  public static TraceContext traceOf(CloudEvent cloudEvent) {
    DistributedTracingExtension extension =
        ExtensionProvider.getInstance().parseExtension(DistributedTracingExtension.class, cloudEvent);
    if (extension == null) {
      return null;
    }
    return TraceContext.parse(extension.getTraceparent(), extension.getTracestate()).orElse(null);
  }

  /** The structured-mode JSON encoding of the event: the Kafka record value. */
  public byte[] toStructuredJson(CommitEvent event) {
    return FORMAT.serialize(toCloudEvent(event));
  }

  /** The {@code data} object of the event (snake_case keys). */
  public static ObjectNode toData(CommitEvent event) {
    ObjectNode data = JsonNodeFactory.instance.objectNode();
    ArrayNode id = data.putArray("table_id");
    event.tableId().forEach(id::add);
    data.put("table_uuid", event.tableUuid());
    data.put("location", event.location());
    data.put("version", event.version());
    data.put("read_version", event.readVersion());
    data.put("operation", event.operation());
    data.put("transaction_uuid", event.transactionUuid());
    data.put("manifest_path", event.manifestPath());
    data.put("fragments_added", event.fragmentsAdded());
    data.put("fragments_removed", event.fragmentsRemoved());
    data.put("rows_added", event.rowsAdded());
    data.put("rows_removed", event.rowsRemoved());
    data.put("committed_at", event.committedAt().toString());
    data.put("actor", event.actor());
    data.put("governed", event.governed());
    if (event.branch() != null) {
      data.put("branch", event.branch());
    }
    if (event.batchId() != null) {
      data.put("batch_id", event.batchId());
    }
    if (!event.members().isEmpty()) {
      ArrayNode members = data.putArray("members");
      for (CommitEvent.Member member : event.members()) {
        ObjectNode m = members.addObject();
        m.put("transaction_uuid", member.transactionUuid());
        m.put("read_version", member.readVersion());
        m.put("actor", member.actor());
        if (member.traceId() != null) {
          m.put("trace_id", member.traceId());
        }
        if (!member.newFragmentIds().isEmpty()) {
          ArrayNode ids = m.putArray("new_fragment_ids");
          member.newFragmentIds().forEach(ids::add);
        }
      }
      data.put("group_size", event.members().size());
    }
    return data;
  }

  /** Parses a structured-mode JSON CloudEvent (e.g. a Kafka record value) into a commit event. */
  public static CommitEvent fromStructuredJson(byte[] bytes) {
    return fromCloudEvent(parseStructuredJson(bytes));
  }

  /** Parses a structured-mode JSON CloudEvent without interpreting its data. */
  public static CloudEvent parseStructuredJson(byte[] bytes) {
    if (bytes == null || bytes.length == 0) {
      throw new InvalidCommitEventException("empty CloudEvent payload");
    }
    try {
      return FORMAT.deserialize(bytes);
    } catch (EventDeserializationException | IllegalStateException | IllegalArgumentException e) {
      throw new InvalidCommitEventException("not a JSON CloudEvent: " + e.getMessage(), e);
    }
  }

  /**
   * Reads a commit event back from its CloudEvent. The {@code data} object is authoritative; the envelope must agree
   * with it (id, subject) and the trace context comes from the distributed-tracing extension.
   */
  public static CommitEvent fromCloudEvent(CloudEvent cloudEvent) {
    Objects.requireNonNull(cloudEvent, "cloudEvent");
    if (cloudEvent.getSpecVersion() != SpecVersion.V1) {
      throw new InvalidCommitEventException("expected CloudEvents 1.0, got " + cloudEvent.getSpecVersion());
    }
    if (!TYPE.equals(cloudEvent.getType())) {
      throw new InvalidCommitEventException(
          "not a commit event: type '" + cloudEvent.getType() + "', expected '" + TYPE + "'");
    }
    String contentType = cloudEvent.getDataContentType();
    if (contentType != null && !isJson(contentType)) {
      throw new InvalidCommitEventException("commit event data must be " + DATA_CONTENT_TYPE + ", got " + contentType);
    }
    JsonNode data = dataNode(cloudEvent.getData(), cloudEvent.getId());
    CommitEvent event = fromData(data, traceOf(cloudEvent));
    if (!event.id().equals(cloudEvent.getId())) {
      throw new InvalidCommitEventException(
          "CloudEvent id '" + cloudEvent.getId() + "' does not match its data (expected '" + event.id() + "')");
    }
    if (cloudEvent.getSubject() != null && !cloudEvent.getSubject().equals(event.tableKey())) {
      throw new InvalidCommitEventException(
          "CloudEvent subject '" + cloudEvent.getSubject() + "' does not match table id " + event.tableId());
    }
    return event;
  }

  /** Reads the {@code data} object; {@code trace} is carried outside data (extension) and may be null. */
  public static CommitEvent fromData(JsonNode data, TraceContext trace) {
    try {
      return readData(data, trace);
    } catch (InvalidCommitEventException e) {
      throw e;
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new InvalidCommitEventException("invalid commit event data: " + e.getMessage(), e);
    }
  }

  private static CommitEvent readData(JsonNode data, TraceContext trace) {
    if (data == null || !data.isObject()) {
      throw new InvalidCommitEventException("commit event data must be a JSON object");
    }
    JsonNode ids = required(data, "table_id");
    if (!ids.isArray()) {
      throw new InvalidCommitEventException("table_id must be an array of strings");
    }
    List<String> tableId = new ArrayList<>();
    for (JsonNode part : ids) {
      if (!part.isTextual()) {
        throw new InvalidCommitEventException("table_id must be an array of strings");
      }
      tableId.add(part.asText());
    }
    Instant committedAt;
    try {
      committedAt = Instant.parse(text(data, "committed_at"));
    } catch (DateTimeParseException e) {
      throw new InvalidCommitEventException("committed_at is not an ISO-8601 instant: " + e.getMessage(), e);
    }
    JsonNode governed = required(data, "governed");
    if (!governed.isBoolean()) {
      throw new InvalidCommitEventException("governed must be a boolean");
    }
    JsonNode branch = data.get("branch");
    if (branch != null && !branch.isNull() && !branch.isTextual()) {
      throw new InvalidCommitEventException("branch must be a string");
    }
    JsonNode txn = required(data, "transaction_uuid");
    if (!txn.isNull() && !txn.isTextual()) {
      throw new InvalidCommitEventException("transaction_uuid must be a string or null");
    }
    return new CommitEvent(
        tableId,
        text(data, "table_uuid"),
        text(data, "location"),
        longValue(data, "version"),
        longValue(data, "read_version"),
        text(data, "operation"),
        txn.isNull() ? null : txn.asText(),
        text(data, "manifest_path"),
        intValue(data, "fragments_added"),
        intValue(data, "fragments_removed"),
        longValue(data, "rows_added"),
        longValue(data, "rows_removed"),
        committedAt,
        text(data, "actor"),
        governed.booleanValue(),
        trace,
        branch == null || branch.isNull() ? null : branch.asText(),
        optionalText(data, "batch_id"),
        members(data));
  }

  /** The member list of a version 2 event; empty for version 1. */
  private static List<CommitEvent.Member> members(JsonNode data) {
    JsonNode members = data.get("members");
    if (members == null || members.isNull()) {
      return List.of();
    }
    if (!members.isArray()) {
      throw new InvalidCommitEventException("members must be an array");
    }
    List<CommitEvent.Member> out = new ArrayList<>();
    for (JsonNode member : members) {
      if (!member.isObject()) {
        throw new InvalidCommitEventException("members must be an array of objects");
      }
      JsonNode trace = member.get("trace_id");
      if (trace != null && !trace.isNull() && !trace.isTextual()) {
        throw new InvalidCommitEventException("members[].trace_id must be a string");
      }
      JsonNode actor = member.get("actor");
      if (actor != null && !actor.isNull() && !actor.isTextual()) {
        throw new InvalidCommitEventException("members[].actor must be a string");
      }
      out.add(new CommitEvent.Member(text(member, "transaction_uuid"), longValue(member, "read_version"),
          actor == null || actor.isNull() ? null : actor.asText(),
          trace == null || trace.isNull() ? null : trace.asText(), newFragmentIds(member)));
    }
    JsonNode size = data.get("group_size");
    if (size != null && (!size.isIntegralNumber() || size.longValue() != out.size())) {
      throw new InvalidCommitEventException("group_size " + size + " does not match the " + out.size() + " members");
    }
    return out;
  }

  private static List<Long> newFragmentIds(JsonNode member) {
    JsonNode ids = member.get("new_fragment_ids");
    if (ids == null || ids.isNull()) {
      return List.of();
    }
    if (!ids.isArray()) {
      throw new InvalidCommitEventException("members[].new_fragment_ids must be an array");
    }
    List<Long> out = new ArrayList<>(ids.size());
    for (JsonNode id : ids) {
      if (!id.isIntegralNumber() || !id.canConvertToLong() || id.longValue() < 0) {
        throw new InvalidCommitEventException("members[].new_fragment_ids must hold non-negative integers: " + ids);
      }
      out.add(id.longValue());
    }
    return out;
  }

  private static JsonNode dataNode(CloudEventData data, String eventId) {
    if (data == null) {
      throw new InvalidCommitEventException("commit event " + eventId + " has no data");
    }
    if (data instanceof JsonCloudEventData json) {
      return json.getNode();
    }
    try {
      return MAPPER.readTree(data.toBytes());
    } catch (IOException e) {
      throw new InvalidCommitEventException("commit event " + eventId + " data is not JSON: " + e.getMessage(), e);
    }
  }

  private static boolean isJson(String contentType) {
    String mediaType = contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    return mediaType.equals("application/json") || mediaType.endsWith("+json");
  }

  private static JsonNode required(JsonNode data, String field) {
    JsonNode node = data.get(field);
    if (node == null) {
      throw new InvalidCommitEventException("commit event data lacks '" + field + "'");
    }
    return node;
  }

  private static String optionalText(JsonNode data, String field) {
    JsonNode node = data.get(field);
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isTextual()) {
      throw new InvalidCommitEventException(field + " must be a string");
    }
    return node.asText();
  }

  private static String text(JsonNode data, String field) {
    JsonNode node = required(data, field);
    if (!node.isTextual()) {
      throw new InvalidCommitEventException(field + " must be a string");
    }
    return node.asText();
  }

  private static long longValue(JsonNode data, String field) {
    JsonNode node = required(data, field);
    if (!node.isIntegralNumber() || !node.canConvertToLong()) {
      throw new InvalidCommitEventException(field + " must be an integer");
    }
    return node.longValue();
  }

  private static int intValue(JsonNode data, String field) {
    JsonNode node = required(data, field);
    if (!node.isIntegralNumber() || !node.canConvertToInt()) {
      throw new InvalidCommitEventException(field + " must be a 32-bit integer");
    }
    return node.intValue();
  }
}
