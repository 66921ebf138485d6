package dev.lancecommit.chaos.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.coordinator.Coordinator;
import dev.lancecommit.coordinator.CoordinatorConfig;
import dev.lancecommit.e2e.CommitApi;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServiceTrafficTest {
  @TempDir Path warehouse;

  @Test
  void eachRoundScrapesCreatesDeclaresAndDescribesAgainstARealCoordinator() throws Exception {
    try (Coordinator coordinator = Coordinator.start(CoordinatorConfig.builder().port(0)
        .warehouse(warehouse.toAbsolutePath().toString()).kafka("none").build())) {
      ServiceTraffic traffic = ServiceTraffic.start(coordinator.restUrl(), "warmup1-service");
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (traffic.rounds() < 2 && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      traffic.close();
      int rounds = traffic.rounds();

      assertThat(rounds).as("rounds in time").isGreaterThanOrEqualTo(2);
      assertThat(traffic.failures()).isZero();
      CommitApi api = new CommitApi(coordinator.restUrl());
      for (int round = 1; round <= rounds; round++) {
        assertThat(api.describe(List.of("warmup1-service-" + round, "t")).status()).as("round %d", round)
            .isEqualTo(200);
      }
      Thread.sleep(ServiceTraffic.PERIOD.toMillis() + 500);
      assertThat(traffic.rounds()).as("nothing is sent once closed").isEqualTo(rounds);
      assertThat(api.describe(List.of("warmup1-service-" + (rounds + 1), "t")).status()).isEqualTo(404);
    }
  }
}
