package dev.lancecommit.coordinator.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.coordinator.CoordinatorConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ClusterConfigTest {

  private static CoordinatorConfig.Builder enabled() {
    return CoordinatorConfig.builder()
        .set("cluster.enabled", "true")
        .set("cluster.advertised-url", "http://10.0.0.7:9101/")
        .set("cluster.secret", "0123456789abcdef");
  }

  @Test
  void offByDefault() {
    ClusterConfig cluster = CoordinatorConfig.defaults().clusterConfig();
    assertThat(cluster.enabled()).isFalse();
    assertThat(cluster.group()).isEqualTo("lance-commit-coordinator");
    assertThat(cluster.sessionTimeout()).isEqualTo(Duration.ofSeconds(6));
    assertThat(cluster.instanceId()).isEmpty();
  }

  @Test
  void enabledReadsEveryKey() {
    ClusterConfig cluster = enabled().set("cluster.group", "wh1").set("cluster.instance-id", "pod-0")
        .set("cluster.session-timeout.ms", "9000").set("cluster.heartbeat-interval.ms", "3000")
        .set("cluster.owner-wait.ms", "20000").set("cluster.forward-max-hops", "2").build().clusterConfig();
    assertThat(cluster.enabled()).isTrue();
    assertThat(cluster.advertisedUrl()).isEqualTo("http://10.0.0.7:9101");
    assertThat(cluster.group()).isEqualTo("wh1");
    assertThat(cluster.instanceId()).hasValue("pod-0");
    assertThat(cluster.sessionTimeout()).isEqualTo(Duration.ofSeconds(9));
    assertThat(cluster.heartbeatInterval()).isEqualTo(Duration.ofSeconds(3));
    assertThat(cluster.ownerWait()).isEqualTo(Duration.ofSeconds(20));
    assertThat(cluster.forwardMaxHops()).isEqualTo(2);
  }

  @Test
  void refusesWhatCannotWork() {
    assertThatThrownBy(() -> CoordinatorConfig.builder().set("cluster.enabled", "true").build())
        .hasMessageContaining("cluster.advertised-url");
    assertThatThrownBy(() -> enabled().set("cluster.secret", "short").build())
        .hasMessageContaining("cluster.secret").hasMessageContaining("16");
    assertThatThrownBy(() -> enabled().set("cluster.advertised-url", "http://host:9101/v1").build())
        .hasMessageContaining("path");
    assertThatThrownBy(() -> enabled().set("cluster.advertised-url", "host:9101").build())
        .hasMessageContaining("cluster.advertised-url");
    assertThatThrownBy(() -> enabled().set("cluster.heartbeat-interval.ms", "3000").build())
        .hasMessageContaining("a third of cluster.session-timeout.ms");
  }

  @Test
  void theSecretIsNeverPrinted() {
    assertThat(enabled().build().values().toString()).doesNotContain("0123456789abcdef");
  }
}
