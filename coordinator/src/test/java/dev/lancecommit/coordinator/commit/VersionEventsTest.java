package dev.lancecommit.coordinator.commit;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Timestamp;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.DeletionFile;
import dev.lancecommit.format.pb.Manifest;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class VersionEventsTest {
  private static final TableRef TABLE = new TableRef(List.of("ns", "t"), "/w/ns/t.lance", "uuid-1");

  @Test
  void countsWhatTheVersionAddedAndRemovedRelativeToThePreviousOne() {
    TableState previous = state(4, fragment(0, 100, 0), fragment(1, 50, 0), fragment(2, 30, 0));
    // fragment 1 gained 20 deleted rows, fragment 2 was dropped, fragment 3 (40 rows, 5 deleted) was added
    TableState next = state(5, fragment(0, 100, 0), fragment(1, 50, 20), fragment(3, 40, 5));

    CommitEvent event = VersionEvents.describe(TABLE, previous, next, 4, "Update", "txn-1", "/m", Instant.EPOCH)
        .build();

    assertThat(event.version()).isEqualTo(5);
    assertThat(event.id()).isEqualTo("uuid-1:5");
    assertThat(event.fragmentsAdded()).isEqualTo(1);
    assertThat(event.fragmentsRemoved()).isEqualTo(1);
    assertThat(event.rowsAdded()).isEqualTo(35);
    assertThat(event.rowsRemoved()).isEqualTo(50); // 20 deleted + 30 dropped
    assertThat(event.committedAt()).isEqualTo(Instant.ofEpochSecond(1_700_000_005L));
    assertThat(event.governed()).isTrue();
    assertThat(event.actor()).isEqualTo(CommitEvent.ANONYMOUS);
  }

  @Test
  void carriedFragmentsAndFragmentsOutOfIdOrderGiveTheSameCounts() {
    DataFragment kept = fragment(0, 100, 0);
    DataFragment shrunk = fragment(1, 50, 0);
    TableState previous = state(4, kept, shrunk, fragment(2, 30, 0));
    TableState carried = state(5, kept, fragment(1, 50, 20), fragment(3, 40, 5));
    TableState unordered = state(5, fragment(3, 40, 5), kept, fragment(1, 50, 20));
    TableState unorderedBefore = state(4, fragment(2, 30, 0), shrunk, kept);

    for (TableState[] pair : List.of(new TableState[] {previous, carried}, new TableState[] {previous, unordered},
        new TableState[] {unorderedBefore, carried})) {
      CommitEvent event = VersionEvents.describe(TABLE, pair[0], pair[1], 4, "Update", "t", "/m", Instant.EPOCH)
          .build();
      assertThat(List.of(event.fragmentsAdded(), event.fragmentsRemoved(), event.rowsAdded(), event.rowsRemoved()))
          .isEqualTo(List.of(1, 1, 35L, 50L));
    }
  }

  @Test
  void withoutAPreviousVersionEverythingCountsAsAddedAndABlankTransactionUuidIsNull() {
    TableState first = state(1, fragment(0, 10, 0), fragment(1, 5, 0));

    CommitEvent event = VersionEvents.describe(TABLE, null, first, 0, "Overwrite", " ", "/m", Instant.EPOCH).build();

    assertThat(event.fragmentsAdded()).isEqualTo(2);
    assertThat(event.rowsAdded()).isEqualTo(15);
    assertThat(event.rowsRemoved()).isZero();
    assertThat(event.transactionUuid()).isNull();
  }

  private static TableState state(long version, DataFragment... fragments) {
    return new TableState(Manifest.newBuilder()
        .setVersion(version)
        .setTimestamp(Timestamp.newBuilder().setSeconds(1_700_000_000L + version))
        .addAllFragments(List.of(fragments))
        .build(), List.of());
  }

  private static DataFragment fragment(long id, long rows, long deleted) {
    DataFragment.Builder b = DataFragment.newBuilder().setId(id).setPhysicalRows(rows);
    if (deleted > 0) {
      b.setDeletionFile(DeletionFile.newBuilder().setNumDeletedRows(deleted));
    }
    return b.build();
  }
}
