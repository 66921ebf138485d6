package dev.lancecommit.chaos.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ChaosOptionsTest {

  @Test
  void parsesEveryOption() {
    ChaosOptions options = ChaosOptions.parse(new String[] {
        "--writers", "3", "--tables", "4", "--seconds", "600", "--seed", "-7", "--faults", "kill,kafka",
        "--store", "s3", "--settle-seconds", "30", "--event-wait-seconds", "40", "--coordinator-jar", "c.jar",
        "--work-dir", "/tmp/w", "--keep"});

    assertThat(options.writers()).isEqualTo(3);
    assertThat(options.tables()).isEqualTo(4);
    assertThat(options.seconds()).isEqualTo(600);
    assertThat(options.seed()).isEqualTo(-7);
    assertThat(options.faults()).containsExactlyInAnyOrder(FaultKind.KILL, FaultKind.KAFKA);
    assertThat(options.store()).isEqualTo(ChaosOptions.Store.S3);
    assertThat(options.settleSeconds()).isEqualTo(30);
    assertThat(options.eventWaitSeconds()).isEqualTo(40);
    assertThat(options.coordinatorJar()).isEqualTo(Path.of("c.jar"));
    assertThat(options.workDir()).isEqualTo(Path.of("/tmp/w"));
    assertThat(options.keepWorkDir()).isTrue();
    assertThat(options.commandLine()).isEqualTo(
        "--writers 3 --tables 4 --seconds 600 --seed -7 --faults kill,kafka --store s3");
  }

  @Test
  void defaultsToEveryFaultOnS3AndToTheFaultsALocalStoreAllows() {
    assertThat(ChaosOptions.parse(new String[0]).faults()).containsExactlyInAnyOrderElementsOf(FaultKind.ALL_SINGLE);
    assertThat(ChaosOptions.parse(new String[] {"--store", "local"}).faults())
        .containsExactlyInAnyOrder(FaultKind.KILL, FaultKind.KAFKA);
    assertThat(ChaosOptions.parse(new String[] {"--faults", "none"}).faults()).isEmpty();
  }

  @Test
  void theDocumentedTenMinuteRunParsesAndHelpListsEveryKey() {
    ChaosOptions options = ChaosOptions.parse(new String[] {"--seconds", "600", "--faults", "kill,s3,kafka",
        "--store", "s3"});
    assertThat(options.seconds()).isEqualTo(600);
    assertThat(options.faults()).containsExactlyInAnyOrderElementsOf(FaultKind.ALL_SINGLE);
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    assertThat(ChaosOptions.parse(new String[] {"--help"}, new java.io.PrintStream(out, true))).isNull();
    assertThat(out.toString()).contains(ChaosOptions.keys().markdown()).contains("--config");
  }

  @Test
  void aClusterRunKillsAndPausesInstancesInsteadOfTheCoordinator() {
    ChaosOptions defaults = ChaosOptions.parse(new String[] {"--instances", "3"});
    assertThat(defaults.instances()).isEqualTo(3);
    assertThat(defaults.faults()).containsExactlyInAnyOrder(FaultKind.INSTANCE_KILL, FaultKind.INSTANCE_PAUSE,
        FaultKind.S3, FaultKind.KAFKA);
    assertThat(ChaosOptions.parse(new String[] {"--instances", "3", "--store", "local"}).faults())
        .containsExactlyInAnyOrder(FaultKind.INSTANCE_KILL, FaultKind.INSTANCE_PAUSE, FaultKind.KAFKA);
    ChaosOptions chosen = ChaosOptions.parse(new String[] {"--instances", "3", "--faults",
        "instance-kill,instance-pause", "--seed", "5", "--store", "local"});
    assertThat(chosen.faults()).containsExactlyInAnyOrder(FaultKind.INSTANCE_KILL, FaultKind.INSTANCE_PAUSE);
    assertThat(chosen.commandLine()).endsWith("--faults instance-kill,instance-pause --store local --instances 3");
    assertThat(ChaosOptions.parse(chosen.commandLine().split(" ")).commandLine()).isEqualTo(chosen.commandLine());
    assertThat(ChaosOptions.parse(new String[0]).instances()).isEqualTo(1);

    assertThatThrownBy(() -> ChaosOptions.parse(new String[] {"--faults", "instance-kill"}))
        .hasMessageContaining("--instances 2");
    assertThatThrownBy(() -> ChaosOptions.parse(new String[] {"--instances", "3", "--faults", "kill"}))
        .hasMessageContaining("instance-kill");
    assertThatThrownBy(() -> ChaosOptions.parse(new String[] {"--instances", "0"}))
        .hasMessageContaining("instances");
  }

  @Test
  void refusesBadOptionsNamingThem() {
    assertThatThrownBy(() -> ChaosOptions.parse(new String[] {"--faults", "kill,disk"}))
        .hasMessageContaining("disk");
    assertThatThrownBy(() -> ChaosOptions.parse(new String[] {"--store", "local", "--faults", "s3"}))
        .hasMessageContaining("--store s3");
    assertThatThrownBy(() -> ChaosOptions.parse(new String[] {"--writers", "0"}))
        .hasMessageContaining("writers").hasMessageContaining("at least 1");
    assertThatThrownBy(() -> ChaosOptions.parse(new String[] {"--seconds"}))
        .hasMessageContaining("--seconds");
    assertThatThrownBy(() -> ChaosOptions.parse(new String[] {"--color", "red"}))
        .hasMessageContaining("--color");
  }
}
