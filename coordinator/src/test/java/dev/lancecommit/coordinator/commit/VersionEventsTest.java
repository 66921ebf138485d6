package dev.lancecommit.coordinator.commit;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Timestamp;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.DeletionFile;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.group.GroupMembers;
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

  @Test
  void aGroupRebuiltFromStorageNamesEachMemberAsTheLiveCommitDid() {
    // three members: the first added two fragments, the second none (a Delete would), the third one
    List<GroupMemberDetails.Detail> details = List.of(
        new GroupMemberDetails.Detail("alice", "4bf92f3577b34da6a3ce929d0e0e4736", 7, 2),
        new GroupMemberDetails.Detail("bob", null, 5, 0),
        new GroupMemberDetails.Detail(null, null, 8, 1));
    Transaction recorded = group("u1,u2,u3", GroupMemberDetails.encode(details), "a.lance", "b.lance", "c.lance");
    // the version gave the group's fragments ids 10, 11, 12 (the table's other fragments stay in front)
    Manifest manifest = Manifest.newBuilder().setVersion(9).addFragments(withFile(3, "old.lance"))
        .addFragments(withFile(10, "a.lance")).addFragments(withFile(11, "b.lance"))
        .addFragments(withFile(12, "c.lance")).build();

    assertThat(VersionEvents.members(recorded, manifest, "ignored for a group")).containsExactly(
        new CommitEvent.Member("u1", 7, "alice", "4bf92f3577b34da6a3ce929d0e0e4736", List.of(10L, 11L)),
        new CommitEvent.Member("u2", 5, "bob", null, List.of()),
        new CommitEvent.Member("u3", 8, CommitEvent.ANONYMOUS, null, List.of(12L)));
  }

  @Test
  void aGroupWithoutReadableDetailsNamesItsMembersWithTheGroupsReadVersionOnly() {
    Manifest manifest = Manifest.newBuilder().setVersion(9).addFragments(withFile(10, "a.lance"))
        .addFragments(withFile(11, "b.lance")).build();
    String twoMembers = GroupMemberDetails.encode(List.of(new GroupMemberDetails.Detail("a", null, 7, 1),
        new GroupMemberDetails.Detail("b", null, 7, 1)));
    for (String details : new String[] {null, "not json", "{}", "[{\"read_version\": -1, \"new_fragments\": 1}]",
        twoMembers.replace("\"a\"", "3"), GroupMemberDetails.encode(List.of(new GroupMemberDetails.Detail("a", null,
            7, 2)))}) {
      Transaction recorded = group("u1,u2", details, "a.lance", "b.lance");
      assertThat(VersionEvents.members(recorded, manifest, null)).as("details %s", details).containsExactly(
          new CommitEvent.Member("u1", 6, null, null), new CommitEvent.Member("u2", 6, null, null));
    }
    // the counts do not add up to the fragments found: the members keep their details, not a wrong share of ids
    Transaction miscounted = group("u1,u2", GroupMemberDetails.encode(List.of(
        new GroupMemberDetails.Detail("a", null, 7, 2), new GroupMemberDetails.Detail("b", null, 7, 1))),
        "a.lance", "b.lance");
    assertThat(VersionEvents.members(miscounted, manifest, null)).extracting(CommitEvent.Member::newFragmentIds)
        .containsExactly(List.of(), List.of());
  }

  private static Transaction group(String uuids, String details, String... paths) {
    Transaction.Append.Builder append = Transaction.Append.newBuilder();
    for (String path : paths) {
      append.addFragments(DataFragment.newBuilder().addFiles(DataFile.newBuilder().setPath(path)));
    }
    Transaction.Builder txn = Transaction.newBuilder().setUuid("group-uuid").setReadVersion(6).setAppend(append)
        .putTransactionProperties(GroupMembers.PROPERTY, uuids);
    if (details != null) {
      txn.putTransactionProperties(GroupMemberDetails.PROPERTY, details);
    }
    return txn.build();
  }

  private static DataFragment withFile(long id, String path) {
    return DataFragment.newBuilder().setId(id).setPhysicalRows(1).addFiles(DataFile.newBuilder().setPath(path))
        .build();
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
