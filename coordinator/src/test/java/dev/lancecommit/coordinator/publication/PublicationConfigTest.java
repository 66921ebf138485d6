package dev.lancecommit.coordinator.publication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.coordinator.CoordinatorConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PublicationConfigTest {

  @Test
  void defaultsFollowTheDocumentedKeysAndTheEventsTopic() {
    PublicationConfig config = CoordinatorConfig.defaults().publicationConfig();

    assertThat(config.eventsTopic()).isEqualTo("lance.commits");
    assertThat(config.progressTopic()).isEqualTo("lance.commits.progress");
    assertThat(config.reconcileInterval())
        .isEqualTo(Duration.ofMillis(Long.parseLong(PublicationConfig.keys().defaultText(
            PublicationConfig.RECONCILE_INTERVAL_MS))));
    assertThat(config.maxQueuedPerTable())
        .isEqualTo(Integer.parseInt(PublicationConfig.keys().defaultText(PublicationConfig.MAX_QUEUED_PER_TABLE)));
    assertThat(config.progressInterval()).isEqualTo(PublicationConfig.builder("t").build().progressInterval())
        .isEqualTo(Duration.ofMillis(200));
    assertThat(config.publishTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(PublicationConfig.keys().keys()).extracting(k -> k.name())
        .allSatisfy(name -> assertThat(name).matches("publication\\..*|kafka\\.(topic|publish).*"))
        .doesNotHaveDuplicates();
    assertThat(PublicationConfig.keys().keys())
        .allSatisfy(key -> assertThat(PublicationConfig.keys().doc(key)).isNotBlank());
  }

  @Test
  void theProgressTopicFollowsACustomEventsTopicUnlessNamed() {
    assertThat(PublicationConfig.builder("events.s3").build().progressTopic()).isEqualTo("events.s3.progress");
    assertThat(PublicationConfig.builder("events.s3").progressTopic("p").build().progressTopic()).isEqualTo("p");
  }

  @Test
  void nonsenseValuesAreRefusedNamingTheKey() {
    assertThatThrownBy(() -> PublicationConfig.builder("t").maxQueuedPerTable(0))
        .hasMessageContaining("publication.max-queued-per-table");
    assertThatThrownBy(() -> PublicationConfig.builder("t").reconcileInterval(Duration.ZERO))
        .hasMessageContaining("publication.reconcile-interval.ms");
    assertThatThrownBy(() -> PublicationConfig.builder(" ")).isInstanceOf(IllegalArgumentException.class);
  }
}
