package dev.lancecommit.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.CommitEventReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Lance Java writes the data files, the coordinator commits 50 versions (an Overwrite creating v1, then 49 Appends),
 * and stock Lance opens every one of them and reads exactly the rows that version must hold.
 */
@ExtendWith(E2eServices.class)
class VersionHistoryE2eTest {
  private static final int VERSIONS = 50;
  private static final int ROWS_PER_COMMIT = 3;

  @ParameterizedTest
  @EnumSource(E2eServices.Store.class)
  void fiftyVersionsEachReadBackByLance(E2eServices.Store store, E2eServices services) {
    E2eServices.Service service = services.service(store);
    try (E2eTable table = E2eTable.declare(service, "history")) {
      List<String> transactionUuids = new ArrayList<>();
      CommitApi.Response created = table.create(0, ROWS_PER_COMMIT);
      assertThat(created.body().get("read_version").asLong()).isZero();
      assertThat(created.body().get("operation").asText()).isEqualTo("Overwrite");
      transactionUuids.add(created.transactionUuid());
      for (long v = 2; v <= VERSIONS; v++) {
        CommitApi.Response r = table.append(v - 1, (v - 1) * ROWS_PER_COMMIT, ROWS_PER_COMMIT);
        assertThat(r.version()).isEqualTo(v);
        assertThat(r.body().get("read_version").asLong()).isEqualTo(v - 1);
        assertThat(r.body().get("operation").asText()).isEqualTo("Append");
        assertThat(r.body().get("manifest_path").asText()).startsWith(table.location());
        transactionUuids.add(r.transactionUuid());
      }

      assertThat(table.describedVersion()).isEqualTo(VERSIONS);
      assertThat(table.lance().latestVersion()).isEqualTo(VERSIONS);
      assertThat(table.lance().versions()).containsExactlyElementsOf(range(1, VERSIONS + 1));
      for (long v = 1; v <= VERSIONS; v++) {
        List<Long> expected = range(0, v * ROWS_PER_COMMIT);
        assertThat(table.lance().readIds(v)).as("ids of version %s", v).containsExactlyInAnyOrderElementsOf(expected);
      }
      List<Object> ids = table.lance().readColumn(VERSIONS, "id");
      List<Object> values = table.lance().readColumn(VERSIONS, "value");
      for (int i = 0; i < ids.size(); i++) {
        assertThat(values.get(i)).isEqualTo("v" + ids.get(i));
      }

      try (CommitEventReader reader = new CommitEventReader(service.kafkaBootstrap(), service.topic())) {
        List<CommitEvent> events = reader.readTable(table.id(), VERSIONS, Duration.ofSeconds(60));
        assertThat(events).extracting(CommitEvent::version).containsExactlyElementsOf(range(1, VERSIONS + 1));
        assertThat(events).extracting(CommitEvent::transactionUuid).containsExactlyElementsOf(transactionUuids);
        assertThat(events).extracting(CommitEvent::rowsAdded).containsOnly((long) ROWS_PER_COMMIT);
      }
    }
  }

  static List<Long> range(long fromInclusive, long toExclusive) {
    return LongStream.range(fromInclusive, toExclusive).boxed().toList();
  }
}
