package dev.lancecommit.e2e;

import static dev.lancecommit.e2e.VersionHistoryE2eTest.range;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Versions written by the coordinator and by stock Lance interleave on one table: Lance's own commit loop commits on
 * top of coordinator-written versions (reading their manifests and transactions), and the coordinator commits on top
 * of Lance-written ones (its read_version being a version Lance wrote), including a stale read version that makes
 * each side check the other's transactions.
 */
@ExtendWith(E2eServices.class)
class LanceInteropE2eTest {

  @ParameterizedTest
  @EnumSource(E2eServices.Store.class)
  void coordinatorAndStockLanceCommitOnTopOfEachOther(E2eServices.Store store, E2eServices services) {
    try (E2eTable table = E2eTable.declare(services.service(store), "interop")) {
      // v1, v2 by the coordinator
      table.create(0, 5);
      assertThat(table.append(1, 5, 5).version()).isEqualTo(2);

      // v3 by Dataset.write(APPEND), v4 by CommitBuilder from the stale read version 2
      assertThat(table.lance().appendWithLance(10, 5)).isEqualTo(3);
      assertThat(table.lance().commitAppendWithLance(2, table.lance().writeRows(15, 5))).isEqualTo(4);
      assertThat(table.describedVersion()).isEqualTo(4);

      // v5 by the coordinator on the Lance-written v4; v6 from read version 3, checked against Lance's v4 and v5
      CommitApi.Response onLance = table.append(4, 20, 5);
      assertThat(onLance.version()).isEqualTo(5);
      assertThat(onLance.body().get("read_version").asLong()).isEqualTo(4);
      assertThat(table.append(3, 25, 5).version()).isEqualTo(6);

      // v7 by Lance from read version 5: its commit loop must load the coordinator's v6 transaction
      assertThat(table.lance().commitAppendWithLance(5, table.lance().writeRows(30, 5))).isEqualTo(7);
      assertThat(table.lance().appendWithLance(35, 5)).isEqualTo(8);
      assertThat(table.append(8, 40, 5).version()).isEqualTo(9);

      assertThat(table.describedVersion()).isEqualTo(9);
      if (store == E2eServices.Store.LOCAL) {
        // Lance keeps a latest-version hint on local file systems; the coordinator moves it on after each answer (off
        // the commit's critical path), and Lance finds the latest version whether or not the hint has caught up
        assertThat(table.lance().latestVersion()).isEqualTo(9);
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
            .until(() -> versionHint(table).equals("{\"version\":9}"));
      }
      assertThat(table.lance().versions()).containsExactlyElementsOf(range(1, 10));
      for (long v = 1; v <= 9; v++) {
        assertThat(table.lance().readIds(v)).as("ids of version %s", v)
            .containsExactlyInAnyOrderElementsOf(range(0, 5 * v));
      }
    }
  }

  private static String versionHint(E2eTable table) {
    try {
      return java.nio.file.Files.readString(table.localRoot().resolve("_versions/latest_version_hint.json"));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
