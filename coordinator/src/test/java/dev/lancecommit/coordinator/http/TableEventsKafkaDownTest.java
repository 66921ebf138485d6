package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.events.KafkaTableEventPublisher;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Catalog changes succeed while the table event publisher cannot reach Kafka. */
class TableEventsKafkaDownTest extends RestServerFixture {
  private KafkaTableEventPublisher publisher;

  @Override
  RestServerOptions.Builder options() {
    // nothing listens on port 1
    publisher = KafkaTableEventPublisher.builder("127.0.0.1:1").publishTimeout(Duration.ofMillis(1000)).build();
    return super.options().tableEvents(publisher);
  }

  @AfterEach
  void closePublisher() {
    publisher.close();
  }

  @Test
  void catalogChangesDoNotDependOnKafka() {
    assertThat(post("/v1/namespace/ns/create", "{}").status()).isEqualTo(200);
    assertThat(post("/v1/table/ns$a/declare", "{}").status()).isEqualTo(200);
    assertThat(post("/v1/table/ns$a/rename", "{\"new_table_name\":\"b\"}").status()).isEqualTo(200);
    assertThat(catalog.loadTable(List.of("ns", "b"))).isPresent();
    assertThat(post("/v1/table/ns$b/deregister", "{}").status()).isEqualTo(200);
    assertThat(catalog.loadTable(List.of("ns", "b"))).isEmpty();
  }
}
