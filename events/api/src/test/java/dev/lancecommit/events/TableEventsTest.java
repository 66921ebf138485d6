package dev.lancecommit.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import java.net.URI;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class TableEventsTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Instant TIME = Instant.parse("2026-12-01T10:15:30.123456789Z");
  private static final List<String> ID = List.of("prod", "sales", "orders");

  static TableEvent sample(TableEvent.Type type) {
    String location = "s3://warehouse/prod/sales/orders.lance";
    return type == TableEvent.Type.RENAMED
        ? TableEvent.renamed(List.of("prod", "orders_old"), ID, "7f1c", location, "alice", TIME)
        : TableEvent.of(type, ID, "7f1c", location, "alice", TIME);
  }

  @ParameterizedTest
  @EnumSource(TableEvent.Type.class)
  void producedDataValidatesAgainstItsTypesSchemaAndRoundTrips(TableEvent.Type type) throws Exception {
    TableEvent event = sample(type).withTrace(TraceContext.of("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", null));
    byte[] json = TableEvents.defaults().toStructuredJson(event);
    JsonNode data = MAPPER.readTree(json).get("data");

    assertThat(TableEventSchemas.errors(type, data)).isEmpty();
    assertThat(TableEvents.fromStructuredJson(json)).isEqualTo(event);
  }

  @Test
  void envelopeAttributes() {
    CloudEvent ce = TableEvents.defaults().toCloudEvent(sample(TableEvent.Type.DECLARED).withTrace(TraceContext.of("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", null)));

    assertThat(ce.getId()).isEqualTo("7f1c:declared:" + TIME.toEpochMilli());
    assertThat(ce.getType()).isEqualTo("dev.lancecommit.table.declared");
    assertThat(ce.getSource()).isEqualTo(URI.create("/lance-commit-coordinator"));
    assertThat(ce.getSubject()).isEqualTo("prod$sales$orders");
    assertThat(ce.getTime()).isEqualTo(OffsetDateTime.ofInstant(TIME, ZoneOffset.UTC));
    assertThat(ce.getDataContentType()).isEqualTo("application/json");
    assertThat(ce.getExtensionNames()).containsExactlyInAnyOrder("tableid", "namespace", "actor", "traceparent");
    assertThat(ce.getExtension("tableid")).isEqualTo("prod$sales$orders");
    assertThat(ce.getExtension("namespace")).isEqualTo("prod$sales");
    assertThat(ce.getExtension("actor")).isEqualTo("alice");
    assertThat(ce.getExtension("traceparent")).isEqualTo("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  }

  @Test
  void rootTableOmitsNamespaceAndBlankActorIsAnonymous() {
    TableEvent event = TableEvent.of(TableEvent.Type.DROPPED, List.of("orders"), "u", "file:///w/orders", " ", TIME);
    CloudEvent ce = TableEvents.defaults().toCloudEvent(event);

    assertThat(ce.getExtensionNames()).containsExactlyInAnyOrder("tableid", "actor");
    assertThat(ce.getExtension("actor")).isEqualTo("anonymous");
  }

  @Test
  void everyTypeHasItsOwnCloudEventTypeAndSchema() {
    assertThat(Arrays.stream(TableEvent.Type.values()).map(TableEvent.Type::cloudEventType))
        .containsExactlyInAnyOrder("dev.lancecommit.table.created", "dev.lancecommit.table.declared",
            "dev.lancecommit.table.registered", "dev.lancecommit.table.deregistered",
            "dev.lancecommit.table.renamed", "dev.lancecommit.table.dropped");
    assertThat(TableEvents.isTableEventType(CommitEvents.TYPE)).isFalse();
    assertThat(TableEvents.isTableEventType("dev.lancecommit.table.renamed")).isTrue();
  }

  @Test
  void schemasRejectWhatTheParserRejects() {
    ObjectNode renamed = TableEvents.toData(sample(TableEvent.Type.RENAMED));
    ObjectNode declared = TableEvents.toData(sample(TableEvent.Type.DECLARED));

    assertThat(TableEventSchemas.errors(TableEvent.Type.RENAMED, renamed.deepCopy().without("previous_table_id")))
        .isNotEmpty();
    assertThat(TableEventSchemas.errors(TableEvent.Type.DECLARED, renamed)).isNotEmpty();
    assertThat(TableEventSchemas.errors(TableEvent.Type.DECLARED, declared.deepCopy().put("occurred_at", "noon")))
        .isNotEmpty();
    assertThat(TableEventSchemas.errors(TableEvent.Type.DECLARED, declared.deepCopy().put("extra", 1))).isNotEmpty();
  }

  @Test
  void renameNeedsAPreviousIdAndOtherTypesRefuseOne() {
    assertThatThrownBy(() -> new TableEvent(TableEvent.Type.RENAMED, ID, "u", "l", "a", TIME, null, null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("previousTableId");
    assertThatThrownBy(() -> TableEvent.renamed(ID, ID, "u", "l", "a", TIME))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new TableEvent(TableEvent.Type.DROPPED, ID, "u", "l", "a", TIME, List.of("x"), null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("RENAMED");
  }

  @Test
  void parserRejectsCommitEventsAndInconsistentEnvelopes() {
    CloudEvent commit = CommitEvents.defaults().toCloudEvent(SampleEvents.append(ID, "7f1c", 1).build());
    CloudEvent good = TableEvents.defaults().toCloudEvent(sample(TableEvent.Type.DROPPED));

    Stream.of(
            commit,
            CloudEventBuilder.v1(good).withId("7f1c:dropped:1").build(),
            CloudEventBuilder.v1(good).withSubject("prod$other").build(),
            CloudEventBuilder.v1(good).withType("dev.lancecommit.table.renamed").withId("7f1c:renamed:"
                + TIME.toEpochMilli()).build(),
            CloudEventBuilder.v1(good).withType("dev.lancecommit.table.truncated").build(),
            CloudEventBuilder.v1(good).withData("text/plain", "x".getBytes()).build())
        .forEach(ce -> assertThatThrownBy(() -> TableEvents.fromCloudEvent(ce))
            .as(ce.toString())
            .isInstanceOf(InvalidTableEventException.class));
    ObjectNode renamedWithout = TableEvents.toData(sample(TableEvent.Type.RENAMED)).without("previous_table_id");
    assertThatThrownBy(() -> TableEvents.fromData(TableEvent.Type.RENAMED, renamedWithout, null))
        .isInstanceOf(InvalidTableEventException.class).hasMessageContaining("previous_table_id");
  }
}
