package dev.lancecommit.chaos.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/**
 * Short chaos runs. With every fault of a single coordinator enabled: six Lance writers on two tables for 60 seconds
 * against a coordinator process that is killed with SIGKILL and restarted, an S3 fault proxy and a Kafka broker that
 * is stopped and started; and with a cluster of three instances killed and paused. Every check of the tables must
 * pass. The checks of Kafka events are asserted once the coordinator publishes through
 * its event outbox (with synchronous publishing they are still run and printed).
 *
 * <p>The seed can be changed with {@code -Dchaos.seed=N} to explore other schedules; the report names the seed.
 */
class ChaosShortRunTest {

  @Test
  void everyCheckPassesUnderKillsS3FaultsAndKafkaOutages() throws Exception {
    long seed = Long.getLong("chaos.seed", 20261130L);
    ChaosOptions options = ChaosOptions.builder()
        .writers(6)
        .tables(2)
        .seconds(Integer.getInteger("chaos.seconds", 60))
        .seed(seed)
        .faults(FaultKind.ALL_SINGLE)
        .store(ChaosOptions.Store.S3)
        .settleSeconds(180)
        .eventWaitSeconds(120)
        .build();

    ChaosReport report = ChaosHarness.run(options);
    report.print(System.out);

    assertThat(report.faultCount(FaultLog.COORDINATOR_KILL)).as("coordinator kills").isGreaterThanOrEqualTo(1);
    assertThat(report.faultCount(FaultLog.S3_WINDOW)).as("S3 fault windows").isGreaterThanOrEqualTo(1);
    assertThat(report.faultCount(FaultLog.KAFKA_STOP)).as("Kafka stops").isGreaterThanOrEqualTo(1);
    assertThat(report.acknowledged()).as("acknowledged commits").isGreaterThan(options.tables());
    for (CheckResult check : report.storageChecks()) {
      assertThat(check.passed()).as("%s: %s", check.name(), check.detail()).isTrue();
    }
    if (report.publicationOutboxWired()) {
      for (CheckResult check : report.kafkaChecks()) {
        assertThat(check.passed()).as("%s: %s", check.name(), check.detail()).isTrue();
      }
    }
  }

  /**
   * The same checks with three coordinators in cluster mode, writers sending every request to a random instance,
   * while one instance is killed with SIGKILL and one is paused with SIGSTOP past its group session timeout.
   */
  @Test
  void everyCheckPassesWithThreeInstancesKilledAndPaused() throws Exception {
    ChaosOptions options = ChaosOptions.builder()
        .instances(3)
        .writers(6)
        .tables(4)
        .seconds(Integer.getInteger("chaos.cluster-seconds", 30))
        .seed(Long.getLong("chaos.seed", 20261201L))
        .faults(EnumSet.of(FaultKind.INSTANCE_KILL, FaultKind.INSTANCE_PAUSE))
        .store(ChaosOptions.Store.LOCAL)
        .settleSeconds(180)
        .eventWaitSeconds(120)
        .build();

    ChaosReport report = ChaosHarness.run(options);
    report.print(System.out);

    assertThat(report.faultCount(FaultLog.INSTANCE_KILL)).as("instance kills").isGreaterThanOrEqualTo(1);
    assertThat(report.faultCount(FaultLog.INSTANCE_PAUSE)).as("instance pauses").isGreaterThanOrEqualTo(1);
    assertThat(report.acknowledged()).as("acknowledged commits").isGreaterThan(options.tables());
    for (CheckResult check : report.storageChecks()) {
      assertThat(check.passed()).as("%s: %s", check.name(), check.detail()).isTrue();
    }
    for (CheckResult check : report.kafkaChecks()) {
      assertThat(check.passed()).as("%s: %s", check.name(), check.detail()).isTrue();
    }
  }
}
