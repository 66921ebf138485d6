package dev.lancecommit.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** Publisher behaviour that needs no broker. */
class KafkaCommitEventPublisherConfigTest {

  @Test
  void fromConfigAppliesKnownKeys() {
    try (KafkaCommitEventPublisher publisher =
        KafkaCommitEventPublisher.fromConfig(
            Map.of(
                "bootstrap.servers", "127.0.0.1:9",
                "topic", "my.commits",
                "source", "/coordinator-eu",
                "publish.timeout.ms", "2500",
                "producer.client.id", "custom"))) {
      assertThat(publisher.topic()).isEqualTo("my.commits");
      assertThat(publisher.source()).isEqualTo(URI.create("/coordinator-eu"));
      assertThat(publisher.publishTimeout()).isEqualTo(Duration.ofMillis(2500));
    }
  }

  @Test
  void fromConfigDefaults() {
    try (KafkaCommitEventPublisher publisher =
        KafkaCommitEventPublisher.fromConfig(Map.of("bootstrap.servers", "127.0.0.1:9"))) {
      assertThat(publisher.topic()).isEqualTo("lance.commits");
      assertThat(publisher.source()).isEqualTo(URI.create("/lance-commit-coordinator"));
      assertThat(publisher.publishTimeout()).isEqualTo(Duration.ofSeconds(10));
    }
  }

  @Test
  void fromConfigRejectsBadInput() {
    assertThatThrownBy(() -> KafkaCommitEventPublisher.fromConfig(Map.of("topic", "x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bootstrap.servers");
    assertThatThrownBy(
            () -> KafkaCommitEventPublisher.fromConfig(Map.of("bootstrap.servers", "h:1", "topik", "x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("topik");
    assertThatThrownBy(
            () ->
                KafkaCommitEventPublisher.fromConfig(
                    Map.of("bootstrap.servers", "h:1", "publish.timeout.ms", "ten")))
        .hasMessageContaining("publish.timeout.ms");
    assertThatThrownBy(
            () ->
                KafkaCommitEventPublisher.fromConfig(
                    Map.of("bootstrap.servers", "h:1", "publish.timeout.ms", "10")))
        .hasMessageContaining("publish.timeout.ms").hasMessageContaining("at least 500");
  }

  @Test
  void publishWithoutReachableKafkaFailsInsteadOfHanging() throws Exception {
    String deadEndpoint = "127.0.0.1:" + closedPort();
    try (KafkaCommitEventPublisher publisher =
        KafkaCommitEventPublisher.builder(deadEndpoint).publishTimeout(Duration.ofSeconds(1)).build()) {
      CompletableFuture<Void> future = publisher.publish(SampleEvents.append(List.of("ns", "t"), "u", 1).build());

      // publish() returned before Kafka could possibly have answered
      assertThat(future).isNotDone();
      assertThat(future)
          .failsWithin(Duration.ofSeconds(15))
          .withThrowableOfType(ExecutionException.class)
          .withCauseInstanceOf(CommitEventPublishException.class)
          .withMessageContaining("u:1");
    }
  }

  @Test
  void publishAfterCloseFails() {
    KafkaCommitEventPublisher publisher = KafkaCommitEventPublisher.builder("127.0.0.1:9").build();
    publisher.close();

    CompletableFuture<Void> future = publisher.publish(SampleEvents.append(List.of("t"), "u", 1).build());

    assertThat(future)
        .failsWithin(Duration.ofSeconds(1))
        .withThrowableOfType(ExecutionException.class)
        .withCauseInstanceOf(CommitEventPublishException.class)
        .withMessageContaining("closed");
  }

  private static int closedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return socket.getLocalPort();
    }
  }
}
