package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.events.KafkaTableEventPublisher;
import dev.lancecommit.events.KafkaTopics;
import dev.lancecommit.events.TableEvent;
import dev.lancecommit.events.TableEvents;
import dev.lancecommit.testing.kafka.KafkaBrokerFixture;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Catalog changes over HTTP publish table events to a real broker; refused requests publish nothing. */
class TableEventRoutesTest extends RestServerFixture {
  private static final String TOPIC = "lance.table-events-routes";
  private static final Duration WAIT = Duration.ofSeconds(30);
  @RegisterExtension static final KafkaBrokerFixture broker = new KafkaBrokerFixture();

  private KafkaTableEventPublisher publisher;

  @BeforeAll
  static void startBroker() {
    KafkaTopics.ensureTopic(broker.bootstrapServers(), TOPIC);
  }

  @Override
  RestServerOptions.Builder options() {
    publisher = KafkaTableEventPublisher.builder(broker.bootstrapServers()).topic(TOPIC).build();
    return super.options().tableEvents(publisher);
  }

  @AfterEach
  void closePublisher() {
    publisher.close();
  }

  @Test
  void eachSuccessfulCatalogChangePublishesOneEvent() {
    assertThat(post("/v1/namespace/ns/create", "{}").status()).isEqualTo(200);
    assertThat(post("/v1/table/ns$a/declare", "{}").status()).isEqualTo(200);
    post("/v1/table/ns$a/declare", "{}").error(409, 5);
    Path data = fakeVersions("ns/r.lance", ManifestNaming.fileName(ManifestNaming.Scheme.V2, 1));
    assertThat(post("/v1/table/ns$r/register", new JsonObject().put("location", data.toString())).status())
        .isEqualTo(200);
    String uuid = catalog.loadTable(List.of("ns", "r")).orElseThrow().tableUuid();
    assertThat(post("/v1/table/ns$r/rename", "{\"new_table_name\":\"r2\"}").status()).isEqualTo(200);
    post("/v1/table/ns$r/rename", "{\"new_table_name\":\"r3\"}").error(404, 4);
    assertThat(post("/v1/table/ns$r2/deregister", "{}").status()).isEqualTo(200);
    String declaredUuid = catalog.loadTable(List.of("ns", "a")).orElseThrow().tableUuid();
    Reply dropped = post("/v1/table/ns$a/drop", "{}");
    assertThat(dropped.status()).as(dropped.body()).isEqualTo(200);

    List<TableEvent> events = read(5);
    assertThat(events).extracting(TableEvent::type).containsExactlyInAnyOrder(TableEvent.Type.DECLARED,
        TableEvent.Type.REGISTERED, TableEvent.Type.RENAMED, TableEvent.Type.DEREGISTERED, TableEvent.Type.DROPPED);
    assertThat(events).allSatisfy(e -> assertThat(e.actor()).isEqualTo("anonymous"));
    // key ns$a: declared then dropped; the registered table's events follow its ids in request order
    assertThat(events.stream().filter(e -> e.tableUuid().equals(declaredUuid)).map(TableEvent::type))
        .containsExactly(TableEvent.Type.DECLARED, TableEvent.Type.DROPPED);
    assertThat(events.stream().filter(e -> e.tableUuid().equals(uuid)).map(TableEvent::type))
        .containsExactlyInAnyOrder(TableEvent.Type.REGISTERED, TableEvent.Type.RENAMED, TableEvent.Type.DEREGISTERED);
    TableEvent renamed = events.stream().filter(e -> e.type() == TableEvent.Type.RENAMED).findFirst().orElseThrow();
    assertThat(renamed.previousTableId()).containsExactly("ns", "r");
    assertThat(renamed.tableId()).containsExactly("ns", "r2");
    assertThat(renamed.location()).isEqualTo(data.toString());
  }

  /** Reads {@code expected} events, then polls a little longer so an extra (wrong) event would be seen too. */
  private static List<TableEvent> read(int expected) {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
    props.put(ConsumerConfig.GROUP_ID_CONFIG, "table-event-routes-test");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    List<TableEvent> events = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props)) {
      consumer.subscribe(List.of(TOPIC));
      long deadline = System.nanoTime() + WAIT.toNanos();
      int extraPolls = 5;
      while (System.nanoTime() < deadline && (events.size() < expected || extraPolls-- > 0)) {
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
          TableEvent event = TableEvents.fromStructuredJson(record.value());
          assertThat(record.key()).isEqualTo(event.tableKey());
          events.add(event);
        }
      }
    }
    return events;
  }
}
