package dev.lancecommit.chaos.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.chaos.bench.CommitBenchmark;
import dev.lancecommit.chaos.harness.ChaosOptions;
import dev.lancecommit.coordinator.CoordinatorConfig;
import dev.lancecommit.events.EventPublisherBuilder;
import dev.lancecommit.events.audit.AuditConsumerMain;
import dev.lancecommit.events.trigger.TriggerConsumerMain;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * CONFIGURATION.md is generated from the key declarations (the same tables {@code --help} prints) and must not drift
 * from them. After changing a key, regenerate it with
 * {@code mvn -B -pl chaos-tests -am verify -Dtest=ConfigurationDocumentTest -Dsurefire.failIfNoSpecifiedTests=false
 * -Dlcc.write-configuration-doc=true}.
 */
class ConfigurationDocumentTest {
  private static final Path DOCUMENT = Path.of("..", "CONFIGURATION.md").toAbsolutePath().normalize();

  static String render() {
    return """
        # Configuration keys

        Generated from the key declarations (`dev.lancecommit.config.ConfigKeys`); each program's `--help` prints its
        table. Every key can be given as `--<key> VALUE` (or `--<key>=VALUE`; a boolean key alone means true) or in a
        properties file read with `--config FILE` (options on the command line win). An unknown key or a value a key
        does not accept is refused, naming the key and what it accepts.

        ## Coordinator

        `java -jar coordinator/target/coordinator.jar [--config FILE] [--<key> VALUE]...`, which
        `./deploy/local/run.sh` and `deploy/container/entrypoint.sh` run.

        """ + CoordinatorConfig.documentation() + """

        ## Audit consumer

        `dev.lancecommit.events.audit.AuditConsumerMain [consume]` (see events/README.md); `--bootstrap`, `--group`
        and `--gap-timeout-ms` are short names of `bootstrap.servers`, `group.id` and `gap.timeout.ms`, and
        `--set KEY=VALUE` sets any key.

        """ + AuditConsumerMain.keys().markdown() + """

        ## Trigger consumer

        `dev.lancecommit.events.trigger.TriggerConsumerMain`, with the same short names and `--set`, plus
        `--storage-option KEY=VALUE` (repeatable) for Lance.

        """ + TriggerConsumerMain.keys().markdown() + """

        ## Event publishers

        `KafkaCommitEventPublisher.fromConfig(Map)` (the builders of both publishers take the same settings).

        """ + EventPublisherBuilder.keys().markdown() + """

        ## Chaos harness

        `dev.lancecommit.chaos.harness.ChaosHarness` (see README.md), e.g. `--seconds 600 --faults kill,s3,kafka
        --store s3`.

        """ + ChaosOptions.keys().markdown() + """

        ## Benchmark

        `dev.lancecommit.chaos.bench.CommitBenchmark` (see chaos-tests/BENCHMARK.md), e.g. `--workloads upserts
        --stores s3proxy-20ms --writers 16 --seconds 30`.

        """ + CommitBenchmark.keys().markdown();
  }

  @Test
  void theDocumentIsWhatTheKeysSay() throws IOException {
    String expected = render();
    if (Boolean.getBoolean("lcc.write-configuration-doc")) {
      Files.writeString(DOCUMENT, expected);
    }
    assertThat(DOCUMENT).as("regenerate with -Dlcc.write-configuration-doc=true (see this test's javadoc)")
        .exists();
    assertThat(Files.readString(DOCUMENT)).as("regenerate with -Dlcc.write-configuration-doc=true")
        .isEqualTo(expected);
  }
}
