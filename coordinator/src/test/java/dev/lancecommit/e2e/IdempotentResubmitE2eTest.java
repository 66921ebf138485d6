package dev.lancecommit.e2e;

import static dev.lancecommit.e2e.VersionHistoryE2eTest.range;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.CommitEventReader;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.SettledFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A writer that lost the answer resubmits the same transaction bytes: it gets the version that transaction already
 * made, and nothing new is written, even when other commits landed in between.
 */
@ExtendWith(E2eServices.class)
class IdempotentResubmitE2eTest {

  @Test
  void sameBytesTwiceGiveTheSameVersionAndWriteNothing(E2eServices services) {
    E2eServices.Service service = services.service(E2eServices.Store.LOCAL);
    try (E2eTable table = E2eTable.declare(service, "resubmit")) {
      table.create(0, 3);
      Transaction append = table.appendTransaction(1, 3, 3);
      byte[] bytes = append.toByteArray();

      CommitApi.Response first = table.api().commitBytes(table.id(), bytes, CommitApi.PROTOBUF);
      assertThat(first.status()).as("%s", first).isEqualTo(200);
      assertThat(first.version()).isEqualTo(2);
      Map<String, Long> files = tableFiles(table.localRoot());

      CommitApi.Response again = table.api().commitBytes(table.id(), bytes, CommitApi.PROTOBUF);
      assertThat(again.status()).as("%s", again).isEqualTo(200);
      assertSameCommit(again, first);
      assertThat(tableFiles(table.localRoot())).isEqualTo(files);
      assertThat(table.describedVersion()).isEqualTo(2);

      // Another writer's commit lands; the old transaction resubmitted (as JSON this time) still maps to v2.
      assertThat(table.append(2, 6, 3).version()).isEqualTo(3);
      files = tableFiles(table.localRoot());
      CommitApi.Response late = table.api().commitJson(table.id(), bytes);
      assertThat(late.status()).as("%s", late).isEqualTo(200);
      assertSameCommit(late, first);
      assertThat(tableFiles(table.localRoot())).isEqualTo(files);
      assertThat(table.describedVersion()).isEqualTo(3);
      assertThat(table.lance().versions()).containsExactlyElementsOf(range(1, 4));
      assertThat(table.lance().readIds(3)).containsExactlyInAnyOrderElementsOf(range(0, 9));

      // A resubmitted commit may publish its event again (the first answer may have been lost with it), but under
      // the same event id: deduplicated, there is one event per version, in order.
      try (CommitEventReader reader = new CommitEventReader(service.kafkaBootstrap(), service.topic())) {
        List<CommitEvent> events = reader.readTable(table.id(), 3, Duration.ofSeconds(60));
        Map<String, CommitEvent> byId = new LinkedHashMap<>();
        for (CommitEvent event : events) {
          CommitEvent previous = byId.putIfAbsent(event.id(), event);
          if (previous != null) {
            assertThat(event.transactionUuid()).isEqualTo(previous.transactionUuid());
            assertThat(event.version()).isEqualTo(previous.version());
          }
        }
        assertThat(byId.values()).extracting(CommitEvent::version).containsExactly(1L, 2L, 3L);
        assertThat(byId.values()).extracting(CommitEvent::transactionUuid).element(1)
            .isEqualTo(append.getUuid());
      }
    }
  }

  private static void assertSameCommit(CommitApi.Response again, CommitApi.Response first) {
    assertThat(again.version()).isEqualTo(first.version());
    assertThat(again.transactionUuid()).isEqualTo(first.transactionUuid());
    assertThat(again.body().get("read_version")).isEqualTo(first.body().get("read_version"));
    assertThat(again.body().get("manifest_path")).isEqualTo(first.body().get("manifest_path"));
    assertThat(again.body().get("operation")).isEqualTo(first.body().get("operation"));
  }

  /** Every file under the table root (relative path -> size). */
  /**
   * Every file of the table with its size, once settled ({@link SettledFiles#settled}): the lane moves the version
   * hint (a temporary file renamed) after it answers, so a listing taken right after an answer can catch it.
   */
  static Map<String, Long> tableFiles(Path root) {
    return SettledFiles.settled(() -> listTableFiles(root), "Files of " + root);
  }

  private static Map<String, Long> listTableFiles(Path root) {
    Map<String, Long> out = new TreeMap<>();
    try (Stream<Path> files = Files.walk(root)) {
      files.filter(Files::isRegularFile).forEach(p -> {
        try {
          out.put(root.relativize(p).toString(), Files.size(p));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
