package dev.lancecommit.events.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConsumerOptionsTest {
  @Test
  void readsEveryKeyAndKeepsDefaults() {
    ConsumerOptions defaults = ConsumerOptions.fromConfig(Map.of("bootstrap.servers", "k:9092", "group.id", "g"));
    assertThat(defaults.topic()).isEqualTo("lance.commits");
    assertThat(defaults.clientId()).isEqualTo("g");
    assertThat(defaults.gapTimeout()).isEqualTo(Duration.ofMinutes(2));
    assertThat(defaults.retryBackoff()).isEqualTo(Duration.ofSeconds(1));
    assertThat(defaults.autoOffsetReset()).isEqualTo("earliest");

    ConsumerOptions options = ConsumerOptions.fromConfig(Map.of(
        "bootstrap.servers", "k:9092", "group.id", "g", "topic", "t", "gap.timeout.ms", "2500",
        "max.pending.events", "7", "consumer.security.protocol", "SSL", "retry.backoff.ms", "10",
        "retry.backoff.max.ms", "20"));
    assertThat(options.topic()).isEqualTo("t");
    assertThat(options.gapTimeout()).isEqualTo(Duration.ofMillis(2500));
    assertThat(options.maxPendingEvents()).isEqualTo(7);
    assertThat(options.consumerProperties()).containsEntry("security.protocol", "SSL");
  }

  @Test
  void refusesBadSettings() {
    assertThatThrownBy(() -> ConsumerOptions.fromConfig(Map.of("bootstrap.servers", "k:9092")))
        .hasMessageContaining("group.id");
    assertThatThrownBy(() -> ConsumerOptions.fromConfig(Map.of("bootstrap.servers", "k", "group.id", "g",
        "gap.timeout", "5"))).hasMessageContaining("Unknown configuration key 'gap.timeout'")
        .hasMessageContaining("gap.timeout.ms");
    assertThatThrownBy(() -> ConsumerOptions.fromConfig(Map.of("bootstrap.servers", "k", "group.id", "g",
        "poll.timeout.ms", "soon"))).hasMessageContaining("poll.timeout.ms needs a whole number, got 'soon'");
    assertThatThrownBy(() -> ConsumerOptions.builder("k", "g").autoOffsetReset("middle"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("earliest, latest, none");
    assertThatThrownBy(() -> ConsumerOptions.builder("k", "g").retryBackoff(Duration.ofSeconds(5))
        .retryBackoffMax(Duration.ofSeconds(1)).build()).hasMessageContaining("retry.backoff.max.ms");
  }
}
