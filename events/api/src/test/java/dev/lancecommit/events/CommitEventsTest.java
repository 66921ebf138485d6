package dev.lancecommit.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cloudevents.CloudEvent;
import io.cloudevents.SpecVersion;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class CommitEventsTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final CommitEvent nested =
      SampleEvents.append(List.of("prod", "sales", "orders"), "7f1c", 42).trace(TraceContext.of("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "rojo=00f067aa0ba902b7")).build();
  private final CommitEvent root =
      SampleEvents.append(List.of("orders"), "9a9a", 1)
          .readVersion(0)
          .operation("Overwrite")
          .transactionUuid(null)
          .governed(false)
          .actor(null)
          .build();

  @Test
  void envelopeAttributes() {
    CloudEvent ce = CommitEvents.defaults().toCloudEvent(nested);

    assertThat(ce.getSpecVersion()).isEqualTo(SpecVersion.V1);
    assertThat(ce.getId()).isEqualTo("7f1c:42");
    assertThat(ce.getType()).isEqualTo("dev.lancecommit.table.committed");
    assertThat(ce.getSource()).isEqualTo(URI.create("/lance-commit-coordinator"));
    assertThat(ce.getSubject()).isEqualTo("prod$sales$orders");
    assertThat(ce.getTime()).isEqualTo(OffsetDateTime.ofInstant(nested.committedAt(), ZoneOffset.UTC));
    assertThat(ce.getDataContentType()).isEqualTo("application/json");
    assertThat(ce.getExtensionNames()).containsExactlyInAnyOrder("tableid", "namespace", "actor", "traceparent", "tracestate");
    assertThat(ce.getExtension("tableid")).isEqualTo("prod$sales$orders");
    assertThat(ce.getExtension("namespace")).isEqualTo("prod$sales");
    assertThat(ce.getExtension("actor")).isEqualTo("alice");
    assertThat(ce.getExtension("traceparent")).isEqualTo("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    assertThat(ce.getExtension("tracestate")).isEqualTo("rojo=00f067aa0ba902b7");
  }

  @Test
  void rootTableWithoutTraceOmitsNamespaceAndTraceExtensions() {
    CloudEvent ce = CommitEvents.defaults().toCloudEvent(root);

    assertThat(ce.getExtensionNames()).containsExactlyInAnyOrder("tableid", "actor");
    assertThat(ce.getExtension("actor")).isEqualTo("anonymous");
  }

  @Test
  void sourceIsConfigurable() {
    CloudEvent ce = new CommitEvents(URI.create("https://coordinator.example/eu-1")).toCloudEvent(nested);

    assertThat(ce.getSource()).isEqualTo(URI.create("https://coordinator.example/eu-1"));
  }

  @Test
  void dataHasSnakeCaseKeys() throws Exception {
    JsonNode data = MAPPER.readTree(CommitEvents.defaults().toCloudEvent(nested).getData().toBytes());

    assertThat(fieldNames(data))
        .containsExactlyInAnyOrder(
            "table_id", "table_uuid", "location", "version", "read_version", "operation", "transaction_uuid",
            "manifest_path", "fragments_added", "fragments_removed", "rows_added", "rows_removed", "committed_at",
            "actor", "governed");
    assertThat(data.get("table_id").toString()).isEqualTo("[\"prod\",\"sales\",\"orders\"]");
    assertThat(data.get("version").longValue()).isEqualTo(42);
    assertThat(data.get("read_version").longValue()).isEqualTo(41);
    assertThat(data.get("rows_added").longValue()).isEqualTo(4200);
    assertThat(data.get("committed_at").asText()).isEqualTo(nested.committedAt().toString());
    assertThat(data.get("governed").booleanValue()).isTrue();
  }

  @Test
  void structuredJsonCarriesDataAsJsonObject() throws Exception {
    JsonNode json = MAPPER.readTree(CommitEvents.defaults().toStructuredJson(root));

    assertThat(json.get("specversion").asText()).isEqualTo("1.0");
    assertThat(json.get("id").asText()).isEqualTo("9a9a:1");
    assertThat(json.has("data_base64")).isFalse();
    assertThat(json.get("data").isObject()).isTrue();
    assertThat(json.get("data").get("transaction_uuid").isNull()).isTrue();
  }

  private final CommitEvent onBranch =
      SampleEvents.append(List.of("prod", "orders"), "7f1c", 3).branch("feature/x").operation("Clone").build();

  @Test
  void aVersionOfABranchNamesItAndIsCountedApartFromMain() throws Exception {
    assertThat(onBranch.id()).isEqualTo("7f1c@feature/x:3");
    assertThat(onBranch.streamKey()).isEqualTo("7f1c@feature/x");
    assertThat(nested.id()).isEqualTo("7f1c:42");
    assertThat(nested.streamKey()).isEqualTo("7f1c");
    CloudEvent cloud = CommitEvents.defaults().toCloudEvent(onBranch);
    assertThat(cloud.getId()).isEqualTo("7f1c@feature/x:3");
    JsonNode data = MAPPER.readTree(CommitEvents.defaults().toStructuredJson(onBranch)).get("data");
    assertThat(data.get("branch").asText()).isEqualTo("feature/x");
    assertThat(CommitEventSchema.errors(data)).isEmpty();
    assertThat(CommitEvents.fromCloudEvent(cloud)).isEqualTo(onBranch);
    // main's events leave the field out: still valid version-1 data
    JsonNode mainData = MAPPER.readTree(CommitEvents.defaults().toStructuredJson(nested)).get("data");
    assertThat(mainData.has("branch")).isFalse();
    assertThat(CommitEventSchema.errorsAgainstVersion1(mainData)).isEmpty();
    assertThat(CommitEventSchema.errors(mutated(d -> d.put("branch", "main")))).isNotEmpty();
    assertThat(CommitEventSchema.errors(mutated(d -> d.put("branch", 7)))).isNotEmpty();
    assertThatThrownBy(() -> SampleEvents.append(List.of("t"), "u", 1).branch("main").build())
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void roundTripsThroughStructuredJson() {
    CommitEvents events = CommitEvents.defaults();
    for (CommitEvent event : List.of(nested, root, onBranch)) {
      assertThat(CommitEvents.fromStructuredJson(events.toStructuredJson(event))).isEqualTo(event);
      assertThat(CommitEvents.fromCloudEvent(events.toCloudEvent(event))).isEqualTo(event);
    }
  }

  @Test
  void readsEventWhoseDataIsPlainBytes() {
    CloudEvent original = CommitEvents.defaults().toCloudEvent(nested);
    CloudEvent bytesData =
        CloudEventBuilder.v1(original)
            .withData("application/json; charset=utf-8", original.getData().toBytes())
            .build();

    assertThat(CommitEvents.fromCloudEvent(bytesData)).isEqualTo(nested);
  }

  @Test
  void producedDataMatchesPublishedSchema() throws Exception {
    for (CommitEvent event : List.of(nested, root)) {
      JsonNode structured = MAPPER.readTree(CommitEvents.defaults().toStructuredJson(event));
      assertThat(CommitEventSchema.errors(structured.get("data"))).isEmpty();
    }
  }

  @Test
  void aGroupCommitListsItsMembersAndRoundTrips() throws Exception {
    CommitEvent group = nested.toBuilder()
        .actor("alice, bob")
        .members(List.of(
            new CommitEvent.Member("11111111-1111-4111-8111-111111111111", 40, "alice", "0af7651916cd43dd"),
            new CommitEvent.Member("22222222-2222-4222-8222-222222222222", 41, "bob", null)))
        .build();
    assertThat(group.groupSize()).isEqualTo(2);
    assertThat(nested.groupSize()).isEqualTo(1);
    CloudEvent ce = CommitEvents.defaults().toCloudEvent(group);
    assertThat(ce.getDataSchema()).isEqualTo(URI.create(CommitEvents.DATA_SCHEMA));
    JsonNode data = MAPPER.readTree(CommitEvents.defaults().toStructuredJson(group)).get("data");
    assertThat(data.get("group_size").asInt()).isEqualTo(2);
    assertThat(data.get("members").get(0).get("trace_id").asText()).isEqualTo("0af7651916cd43dd");
    assertThat(data.get("members").get(1).has("trace_id")).isFalse();
    assertThat(CommitEventSchema.errors(data)).isEmpty();
    assertThat(CommitEvents.fromStructuredJson(CommitEvents.defaults().toStructuredJson(group))).isEqualTo(group);
  }

  @Test
  void version2OnlyAddsFieldsSoVersion1ConsumersAndEventsKeepWorking() {
    CommitEvent group = nested.toBuilder().members(List.of(
        new CommitEvent.Member("11111111-1111-4111-8111-111111111111", 40, "alice", null))).build();
    ObjectNode data = CommitEvents.toData(group);
    // everything version 1 defines is there with its version-1 meaning: strip what version 2 added and it is valid
    ObjectNode asV1 = data.deepCopy();
    asV1.remove(List.of("members", "group_size"));
    assertThat(CommitEventSchema.errorsAgainstVersion1(asV1)).isEmpty();
    // an event of version 1 (an older coordinator) is read as a version without a member list
    assertThat(CommitEvents.fromData(asV1, null).members()).isEmpty();
    assertThat(CommitEvents.fromData(asV1, null).groupSize()).isEqualTo(1);
    assertThat(CommitEventSchema.errors(asV1)).as("a version 1 event is a valid version 2 event").isEmpty();
  }

  @Test
  void version3AddsEachMembersNewFragmentIdsAndNothingElse() throws Exception {
    CommitEvent group = nested.toBuilder()
        .actor("alice, bob")
        .members(List.of(
            new CommitEvent.Member("11111111-1111-4111-8111-111111111111", 40, "alice", null, List.of(7L, 8L)),
            new CommitEvent.Member("22222222-2222-4222-8222-222222222222", 41, "bob", null)))
        .build();
    ObjectNode data = CommitEvents.toData(group);
    assertThat(data.get("members").get(0).get("new_fragment_ids").toString()).isEqualTo("[7,8]");
    assertThat(data.get("members").get(1).has("new_fragment_ids")).as("none known: left out").isFalse();
    assertThat(CommitEventSchema.errors(data)).isEmpty();
    assertThat(CommitEvents.fromStructuredJson(CommitEvents.defaults().toStructuredJson(group))).isEqualTo(group);
    assertThat(CommitEvents.defaults().toCloudEvent(group).getDataSchema())
        .isEqualTo(URI.create("urn:lancecommit:schema:table-committed:v3"));
    // version 2 forbids unknown member fields: the new field is what makes it version 3, and without it the data
    // is valid version 2, which is also how an older coordinator's event reads (members without ids)
    assertThat(CommitEventSchema.errorsAgainstVersion2(data)).isNotEmpty();
    ObjectNode asV2 = data.deepCopy();
    ((ObjectNode) asV2.get("members").get(0)).remove("new_fragment_ids");
    assertThat(CommitEventSchema.errorsAgainstVersion2(asV2)).isEmpty();
    assertThat(CommitEvents.fromData(asV2, null).members().get(0).newFragmentIds()).isEmpty();
    // malformed ids are refused by the schema and by the reader
    ObjectNode negative = data.deepCopy();
    ((ArrayNode) negative.get("members").get(0).get("new_fragment_ids")).add(-1);
    assertThat(CommitEventSchema.errors(negative)).isNotEmpty();
    assertThatThrownBy(() -> CommitEvents.fromData(negative, null)).isInstanceOf(InvalidCommitEventException.class)
        .hasMessageContaining("new_fragment_ids");
    ObjectNode text = data.deepCopy();
    ((ObjectNode) text.get("members").get(0)).put("new_fragment_ids", "7,8");
    assertThat(CommitEventSchema.errors(text)).isNotEmpty();
    assertThatThrownBy(() -> CommitEvents.fromData(text, null)).isInstanceOf(InvalidCommitEventException.class)
        .hasMessageContaining("new_fragment_ids");
  }

  @Test
  void aMemberListMustAgreeWithItsSize() {
    CommitEvent group = nested.toBuilder().members(List.of(
        new CommitEvent.Member("11111111-1111-4111-8111-111111111111", 40, "alice", null))).build();
    ObjectNode data = CommitEvents.toData(group);
    data.put("group_size", 3);
    assertThatThrownBy(() -> CommitEvents.fromData(data, null)).isInstanceOf(InvalidCommitEventException.class)
        .hasMessageContaining("group_size");
    ObjectNode noSize = CommitEvents.toData(group);
    noSize.remove("group_size");
    assertThat(CommitEventSchema.errors(noSize)).isNotEmpty();
  }

  @Test
  void schemaRejectsMalformedData() {
    assertThat(CommitEventSchema.errors(mutated(d -> d.remove("governed")))).isNotEmpty();
    assertThat(CommitEventSchema.errors(mutated(d -> d.put("extra", 1)))).isNotEmpty();
    assertThat(CommitEventSchema.errors(mutated(d -> d.put("version", -1)))).isNotEmpty();
    assertThat(CommitEventSchema.errors(mutated(d -> d.put("version", "42")))).isNotEmpty();
    assertThat(CommitEventSchema.errors(mutated(d -> d.put("committed_at", "yesterday")))).isNotEmpty();
    assertThat(CommitEventSchema.errors(mutated(d -> d.putArray("table_id")))).isNotEmpty();
    assertThat(CommitEventSchema.errors(mutated(d -> d.put("operation", "append")))).isNotEmpty();
  }

  @Test
  void rejectsOtherEventTypes() {
    CloudEvent other =
        CloudEventBuilder.v1(CommitEvents.defaults().toCloudEvent(nested)).withType("com.example.other").build();

    assertThatThrownBy(() -> CommitEvents.fromCloudEvent(other))
        .isInstanceOf(InvalidCommitEventException.class)
        .hasMessageContaining("com.example.other");
  }

  @Test
  void rejectsEnvelopeThatDisagreesWithData() {
    CloudEvent ce = CommitEvents.defaults().toCloudEvent(nested);

    assertThatThrownBy(() -> CommitEvents.fromCloudEvent(CloudEventBuilder.v1(ce).withId("7f1c:43").build()))
        .isInstanceOf(InvalidCommitEventException.class)
        .hasMessageContaining("7f1c:43");
    assertThatThrownBy(() -> CommitEvents.fromCloudEvent(CloudEventBuilder.v1(ce).withSubject("prod$x").build()))
        .isInstanceOf(InvalidCommitEventException.class)
        .hasMessageContaining("subject");
  }

  @Test
  void rejectsMissingOrMistypedDataFields() {
    assertThatThrownBy(() -> CommitEvents.fromData(mutated(d -> d.remove("manifest_path")), null))
        .isInstanceOf(InvalidCommitEventException.class)
        .hasMessageContaining("manifest_path");
    assertThatThrownBy(() -> CommitEvents.fromData(mutated(d -> d.put("version", "42")), null))
        .isInstanceOf(InvalidCommitEventException.class)
        .hasMessageContaining("version");
    assertThatThrownBy(() -> CommitEvents.fromData(mutated(d -> d.put("fragments_added", 1L << 40)), null))
        .isInstanceOf(InvalidCommitEventException.class)
        .hasMessageContaining("fragments_added");
    assertThatThrownBy(() -> CommitEvents.fromData(mutated(d -> d.put("committed_at", "soon")), null))
        .isInstanceOf(InvalidCommitEventException.class)
        .hasMessageContaining("committed_at");
    assertThatThrownBy(() -> CommitEvents.fromData(mutated(d -> d.put("rows_added", -3)), null))
        .isInstanceOf(InvalidCommitEventException.class)
        .hasMessageContaining("rowsAdded");
  }

  @Test
  void rejectsBytesThatAreNotACloudEvent() {
    assertThatThrownBy(() -> CommitEvents.fromStructuredJson("{\"hello\":1}".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(InvalidCommitEventException.class);
    assertThatThrownBy(() -> CommitEvents.fromStructuredJson("not json".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(InvalidCommitEventException.class);
    assertThatThrownBy(() -> CommitEvents.fromStructuredJson(new byte[0]))
        .isInstanceOf(InvalidCommitEventException.class);
  }

  private ObjectNode mutated(java.util.function.Consumer<ObjectNode> change) {
    ObjectNode data = CommitEvents.toData(nested);
    change.accept(data);
    return data;
  }

  private static List<String> fieldNames(JsonNode node) {
    Stream.Builder<String> names = Stream.builder();
    node.fieldNames().forEachRemaining(names::add);
    return names.build().toList();
  }
}
