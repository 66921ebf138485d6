package dev.lancecommit.coordinator.publication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.coordinator.CoordinatorConfig;
import dev.lancecommit.coordinator.config.ConfigKeys;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PublicationConfigTest {

  @Test
  void defaultsFollowTheDocumentedKeysAndTheEventsTopic() {
    PublicationConfig config = CoordinatorConfig.defaults().publicationConfig();

    assertThat(config.eventsTopic()).isEqualTo("lance.commits");
    assertThat(config.progressTopic()).isEqualTo("lance.commits.progress");
    assertThat(config.reconcileInterval())
        .isEqualTo(Duration.ofMillis(Long.parseLong(PublicationConfig.RECONCILE_INTERVAL_MS.defaultValue())));
    assertThat(config.maxQueuedPerTable())
        .isEqualTo(Integer.parseInt(PublicationConfig.MAX_QUEUED_PER_TABLE.defaultValue()));
    assertThat(config.progressInterval())
        .isEqualTo(Duration.ofMillis(Long.parseLong(PublicationConfig.PROGRESS_INTERVAL_MS.defaultValue())));
    assertThat(PublicationConfig.keys()).extracting(ConfigKeys.Key::name)
        .allSatisfy(name -> assertThat(name).startsWith("publication."))
        .doesNotHaveDuplicates();
    assertThat(PublicationConfig.keys()).allSatisfy(key -> assertThat(key.doc()).isNotBlank());
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
