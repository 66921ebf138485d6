package dev.lancecommit.coordinator.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lancecommit.coordinator.Coordinator;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Coordinators started in cluster mode in one JVM, as the cluster tests see them. */
final class InProcessClusters {
  private InProcessClusters() {}

  static ClusterMembership member(Coordinator coordinator) {
    return coordinator.cluster().orElseThrow();
  }

  /**
   * Waits until {@code coordinators} agree on one generation and serve the {@code partitions} partitions between
   * them, each exactly once.
   */
  static void awaitSettled(List<Coordinator> coordinators, int partitions) {
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
      Set<Integer> all = new HashSet<>();
      int total = 0;
      for (Coordinator c : coordinators) {
        total += member(c).serving().size();
        all.addAll(member(c).serving());
        assertThat(member(c).generation()).isEqualTo(member(coordinators.get(0)).generation());
      }
      assertThat(all).hasSize(partitions);
      assertThat(total).isEqualTo(partitions);
    });
  }

  /** The coordinator that serves the table {@code tableKey} (its id joined with '$'). */
  static Coordinator ownerOf(List<Coordinator> coordinators, String tableKey) {
    return coordinators.stream().filter(c -> member(c).serves(tableKey)).findFirst().orElseThrow();
  }
}
