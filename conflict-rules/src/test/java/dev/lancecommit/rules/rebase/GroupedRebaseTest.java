package dev.lancecommit.rules.rebase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.format.FormatFeatures;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.conflict.CommitConflictException;
import dev.lancecommit.rules.conflict.ConflictOutcome;
import dev.lancecommit.rules.conflict.ConflictResolver;
import dev.lancecommit.rules.conflict.RebaseInputs;
import dev.lancecommit.rules.group.GroupBuilder;
import dev.lancecommit.rules.group.GroupBuilder.Candidate;
import dev.lancecommit.rules.group.GroupBuilder.Verdict;
import dev.lancecommit.rules.group.GroupMembers;
import dev.lancecommit.client.lance.TransactionFactory;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

/**
 * A group of Deletes or Updates of disjoint rows, built as one version, gives exactly the table those writers give
 * committing one by one through the conflict rules and the rebase: the oracle is the sequential path, run on a copy
 * of the same table with the same writes.
 */
class GroupedRebaseTest {
  private static final GroupBuilder.Limits LIMITS = new GroupBuilder.Limits(16, 1 << 20);

  private static GroupBuilder.History history(MemoryTable table) {
    return new GroupBuilder.History() {
      @Override
      public List<dev.lancecommit.rules.conflict.CommittedTransaction> committedSince(long readVersion) {
        return table.since(readVersion);
      }

      @Override
      public Optional<TableState> stateAt(long version) {
        return Optional.of(table.version(version));
      }

      @Override
      public org.roaringbitmap.RoaringBitmap deletionVector(DataFragment fragment) {
        return table.deletionVector(fragment);
      }
    };
  }

  private static GroupBuilder builder(MemoryTable table) {
    return new GroupBuilder(table.latest(), 1, LIMITS, FormatFeatures.standard(), history(table),
        MemoryTable::context);
  }

  private static Candidate candidate(MemoryTable.Write write) {
    return new Candidate(write.txn(), Optional.of(portable(write.affectedRows())), true, true,
        write.txn().getSerializedSize());
  }

  private static byte[] portable(Roaring64NavigableMap rows) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      rows.serializePortable(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /** Commits {@code write} the way the lane did before groups: check, rebase, commit; false when it conflicts. */
  private static boolean commitAlone(MemoryTable table, MemoryTable.Write write) {
    RebaseInputs inputs = RebaseInputs.builder().affectedRows(write.affectedRows())
        .initialFragments(table.version(write.txn().getReadVersion()).manifest().getFragmentsList()).build();
    ConflictOutcome outcome = ConflictResolver.checkAll(write.txn(), table.since(write.txn().getReadVersion()),
        inputs);
    if (outcome.isConflict()) {
      return false;
    }
    try {
      table.commit(DeletionRebase.rebase(write.txn(), outcome, inputs, table.latest(), table::deletionVector));
      return true;
    } catch (CommitConflictException e) {
      return false;
    }
  }

  /** Same fragments, data files, row counts and deleted rows; deletion file names may differ. */
  private static void assertSameRows(MemoryTable grouped, MemoryTable oneByOne) {
    List<DataFragment> a = grouped.latest().manifest().getFragmentsList();
    List<DataFragment> b = oneByOne.latest().manifest().getFragmentsList();
    assertThat(a).extracting(DataFragment::getId).isEqualTo(b.stream().map(DataFragment::getId).toList());
    for (int i = 0; i < a.size(); i++) {
      assertThat(a.get(i).getFilesList()).isEqualTo(b.get(i).getFilesList());
      assertThat(a.get(i).getPhysicalRows()).isEqualTo(b.get(i).getPhysicalRows());
      assertThat(grouped.deletionVector(a.get(i))).as("deleted rows of fragment %s", a.get(i).getId())
          .isEqualTo(oneByOne.deletionVector(b.get(i)));
    }
    assertThat(grouped.latest().indices()).isEqualTo(oneByOne.latest().indices());
  }

  @Test
  void upsertsOfDisjointRowsInOneFragmentShareAVersionAndLeaveTheTableTheyLeaveOneByOne() {
    MemoryTable table = new MemoryTable(100, 50);
    table.commit(table.update(1, 0, 90).txn()); // version 2, committed before the group
    MemoryTable.Write w1 = table.update(1, 0, 1, 2);
    MemoryTable.Write w2 = table.update(1, 0, 5);
    MemoryTable.Write w3 = table.update(1, 1, 7);
    MemoryTable.Write sameRow = table.update(1, 0, 2, 3); // row 2 is w1's too
    MemoryTable.Write w5 = table.update(2, 0, 40);
    MemoryTable oneByOne = table.copy();

    GroupBuilder group = builder(table);
    assertThat(group.offer(candidate(w1))).isInstanceOf(Verdict.Joined.class);
    assertThat(group.offer(candidate(w2))).isInstanceOf(Verdict.Joined.class);
    assertThat(group.offer(candidate(w3))).isInstanceOf(Verdict.Joined.class);
    Verdict refused = group.offer(candidate(sameRow));
    assertThat(refused).isInstanceOf(Verdict.Refused.class);
    assertThat(((Verdict.Refused) refused).reason()).isInstanceOf(CommitConflictException.class)
        .hasMessageContaining("both modified rows");
    assertThat(((CommitConflictException) ((Verdict.Refused) refused).reason()).retryable()).isTrue();
    assertThat(group.offer(candidate(w5))).isInstanceOf(Verdict.Joined.class);

    String groupUuid = UUID.randomUUID().toString();
    GroupBuilder.Built built = group.build(groupUuid, Map.of());
    assertThat(built.isGroup()).isTrue();
    assertThat(built.recorded().getUuid()).isEqualTo(groupUuid);
    assertThat(built.recorded().getReadVersion()).isEqualTo(2);
    assertThat(GroupMembers.of(built.recorded()))
        .containsExactly(w1.txn().getUuid(), w2.txn().getUuid(), w3.txn().getUuid(), w5.txn().getUuid());
    assertThat(built.recorded().getUpdate().getNewFragmentsCount()).isEqualTo(4);
    table.store(built.deletionFiles());
    table.commit(built.recorded());
    assertThat(table.latest().version()).isEqualTo(3);

    for (MemoryTable.Write w : List.of(w1, w2, w3, sameRow, w5)) {
      assertThat(commitAlone(oneByOne, w)).as("%s alone", w.txn().getUuid()).isEqualTo(w != sameRow);
    }
    assertThat(oneByOne.latest().version()).isEqualTo(6);
    assertSameRows(table, oneByOne);
    assertThat(table.deletionVector(table.fragment(3, 0)).toArray()).containsExactly(1, 2, 5, 40, 90);
  }

  @Test
  void aLoneUpdateIsBuiltOnceIntoTheTableItGivesWhenCommitted() {
    MemoryTable table = new MemoryTable(100, 50);
    MemoryTable.Write w = table.update(1, 0, 5);
    AtomicInteger builds = new AtomicInteger();
    GroupBuilder group = new GroupBuilder(table.latest(), 1, LIMITS, FormatFeatures.standard(), history(table),
        (version, recorded) -> {
          builds.incrementAndGet();
          return MemoryTable.context(version, recorded);
        });

    assertThat(group.offer(candidate(w))).isInstanceOf(Verdict.Joined.class);
    GroupBuilder.Built built = group.build(UUID.randomUUID().toString(), Map.of());

    // one build, the version itself: no table is built for a next member to be checked against until one needs it
    assertThat(builds).hasValue(1);
    assertThat(built.isGroup()).isFalse();
    assertThat(built.recorded().getUuid()).isEqualTo(w.txn().getUuid());
    table.store(built.deletionFiles());
    table.commit(built.recorded());
    assertThat(built.next().version()).isEqualTo(table.latest().version());
    assertThat(built.next().manifest().getFragmentsList()).isEqualTo(table.latest().manifest().getFragmentsList());
    assertThat(built.next().indices()).isEqualTo(table.latest().indices());
  }

  @Test
  void deletesThatTogetherEmptyAFragmentRemoveItAsTheyWouldOneByOne() {
    MemoryTable table = new MemoryTable(100, 3);
    MemoryTable.Write a = table.delete(1, 1, 0, 1);
    MemoryTable.Write b = table.delete(1, 1, 2);
    MemoryTable.Write c = table.delete(1, 0, 9);
    MemoryTable oneByOne = table.copy();

    GroupBuilder group = builder(table);
    for (MemoryTable.Write w : List.of(a, b, c)) {
      assertThat(group.offer(candidate(w))).isInstanceOf(Verdict.Joined.class);
    }
    GroupBuilder.Built built = group.build(UUID.randomUUID().toString(), Map.of());
    assertThat(built.recorded().getDelete().getDeletedFragmentIdsList()).containsExactly(1L);
    assertThat(built.recorded().getDelete().getUpdatedFragmentsList()).extracting(DataFragment::getId)
        .containsExactly(0L);
    table.store(built.deletionFiles());
    table.commit(built.recorded());

    for (MemoryTable.Write w : List.of(a, b, c)) {
      assertThat(commitAlone(oneByOne, w)).isTrue();
    }
    assertSameRows(table, oneByOne);
    assertThat(table.latest().manifest().getFragmentsList()).extracting(DataFragment::getId).containsExactly(0L);
  }

  @Test
  void buildingTheSameGroupAgainWritesTheSameFilesUnderTheSameNames() {
    MemoryTable table = new MemoryTable(100);
    MemoryTable.Write a = table.delete(1, 0, 1);
    MemoryTable.Write b = table.delete(1, 0, 2);
    List<Map<String, byte[]>> attempts = new ArrayList<>();
    for (int attempt = 0; attempt < 2; attempt++) {
      GroupBuilder group = builder(table);
      group.offer(candidate(a));
      group.offer(candidate(b));
      attempts.add(group.build(UUID.randomUUID().toString(), Map.of()).deletionFiles());
    }
    assertThat(attempts.get(0)).hasSize(1);
    assertThat(attempts.get(1).keySet()).isEqualTo(attempts.get(0).keySet());
    attempts.get(0).forEach((path, bytes) -> assertThat(attempts.get(1).get(path)).isEqualTo(bytes));
  }

  @Test
  void aMemberOfALandedGroupIsAlreadyCommittedAndOtherOperationsCloseTheGroup() {
    MemoryTable table = new MemoryTable(100);
    MemoryTable.Write a = table.delete(1, 0, 1);
    MemoryTable.Write b = table.delete(1, 0, 2);
    GroupBuilder group = builder(table);
    group.offer(candidate(a));
    group.offer(candidate(b));
    Transaction append = TransactionFactory.append(1, List.of(DataFragment.newBuilder().setPhysicalRows(1)
        .addFiles(table.fragment(1, 0).getFiles(0).toBuilder().setPath("x.lance")).build()));
    assertThat(group.offer(new Candidate(append, Optional.empty(), true, true, 10)))
        .isInstanceOf(Verdict.Closed.class);
    GroupBuilder.Built built = group.build(UUID.randomUUID().toString(), Map.of());
    table.store(built.deletionFiles());
    table.commit(built.recorded());

    GroupBuilder next = builder(table);
    assertThat(next.offer(candidate(b))).isEqualTo(new Verdict.AlreadyCommitted(2));
    assertThat(next.isEmpty()).isTrue();
    MemoryTable.Write ahead = table.delete(2, 0, 7);
    Transaction fromTheFuture = ahead.txn().toBuilder().setReadVersion(5).build();
    assertThat(next.offer(new Candidate(fromTheFuture, Optional.empty(), true, true, 10)))
        .isInstanceOf(Verdict.Ahead.class);
  }

  @Test
  void limitsAndWritersThatWantTheirOwnVersionEndTheGroup() {
    MemoryTable table = new MemoryTable(100);
    List<MemoryTable.Write> writes = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      writes.add(table.delete(1, 0, i));
    }
    GroupBuilder two = new GroupBuilder(table.latest(), 1, new GroupBuilder.Limits(2, 1 << 20),
        FormatFeatures.standard(), history(table), MemoryTable::context);
    assertThat(two.offer(candidate(writes.get(0)))).isInstanceOf(Verdict.Joined.class);
    assertThat(two.offer(candidate(writes.get(1)))).isInstanceOf(Verdict.Joined.class);
    assertThat(two.isClosed()).isTrue();
    assertThat(two.offer(candidate(writes.get(2)))).isInstanceOf(Verdict.Closed.class);

    GroupBuilder small = new GroupBuilder(table.latest(), 1, new GroupBuilder.Limits(16, 1),
        FormatFeatures.standard(), history(table), MemoryTable::context);
    assertThat(small.offer(candidate(writes.get(0)))).as("the first always fits").isInstanceOf(Verdict.Joined.class);
    assertThat(small.offer(candidate(writes.get(1)))).isInstanceOf(Verdict.Closed.class);

    GroupBuilder exclusive = builder(table);
    Candidate alone = new Candidate(writes.get(0).txn(), candidate(writes.get(0)).affectedRows(), false, false, 1);
    assertThat(exclusive.offer(alone)).isInstanceOf(Verdict.Joined.class);
    assertThat(exclusive.isClosed()).isTrue();
    GroupBuilder.Built built = exclusive.build(UUID.randomUUID().toString(), Map.of());
    assertThat(built.isGroup()).isFalse();
    assertThat(built.recorded().getUuid()).as("alone, it is recorded as sent").isEqualTo(writes.get(0).txn().getUuid());
  }

  /** A builder that counts the versions it builds (each build asks for the version's context once). */
  private static GroupBuilder counting(MemoryTable table, AtomicInteger builds) {
    return new GroupBuilder(table.latest(), 1, LIMITS, FormatFeatures.standard(), history(table),
        (version, recorded) -> {
          builds.incrementAndGet();
          return MemoryTable.context(version, recorded);
        });
  }

  @Test
  void membersOnDisjointFragmentsAreBuiltOnceAsTheMergedVersion() {
    MemoryTable table = new MemoryTable(50, 50, 50, 50, 50);
    table.commit(table.update(1, 4, 9).txn()); // version 2: a member read on 1 is checked against it
    List<MemoryTable.Write> writes = List.of(table.update(1, 0, 3), table.update(2, 1, 4), table.update(1, 2, 5, 6),
        table.update(2, 3, 7));
    MemoryTable oneByOne = table.copy();
    AtomicInteger builds = new AtomicInteger();

    GroupBuilder group = counting(table, builds);
    for (MemoryTable.Write w : writes) {
      assertThat(group.offer(candidate(w))).isInstanceOf(Verdict.Joined.class);
    }
    GroupBuilder.Built built = group.build(UUID.randomUUID().toString(), Map.of());

    assertThat(builds).as("the merged version only, no table per member").hasValue(1);
    table.store(built.deletionFiles());
    table.commit(built.recorded());
    assertThat(built.next().manifest().getFragmentsList()).isEqualTo(table.latest().manifest().getFragmentsList());
    for (MemoryTable.Write w : writes) {
      assertThat(commitAlone(oneByOne, w)).isTrue();
    }
    assertSameRows(table, oneByOne);
  }

  @Test
  void membersSharingAFragmentAreBuiltOneByOneAndTheMergedVersionComparedWithThem() {
    MemoryTable table = new MemoryTable(50, 50);
    MemoryTable.Write a = table.update(1, 0, 1);
    MemoryTable.Write b = table.update(1, 0, 2); // fragment 0 again: checked against the table a leaves
    MemoryTable.Write c = table.update(1, 1, 3);
    MemoryTable oneByOne = table.copy();
    AtomicInteger builds = new AtomicInteger();

    GroupBuilder group = counting(table, builds);
    for (MemoryTable.Write w : List.of(a, b, c)) {
      assertThat(group.offer(candidate(w))).isInstanceOf(Verdict.Joined.class);
    }
    assertThat(builds).as("a, built when b needed the table it leaves").hasValue(1);
    GroupBuilder.Built built = group.build(UUID.randomUUID().toString(), Map.of());

    assertThat(builds).as("b and c one by one, then the merged version compared with them").hasValue(4);
    table.store(built.deletionFiles());
    table.commit(built.recorded());
    for (MemoryTable.Write w : List.of(a, b, c)) {
      assertThat(commitAlone(oneByOne, w)).isTrue();
    }
    assertSameRows(table, oneByOne);
    assertThat(table.deletionVector(table.fragment(2, 0)).toArray()).containsExactly(1, 2);
  }

  @Test
  void aMemberThatCannotBeBuiltOnItsOwnClosesTheGroupAndFailsItsBuildNotTheOthersChecks() {
    MemoryTable table = new MemoryTable(50, 50, 50);
    MemoryTable.Write a = table.update(1, 0, 1);
    MemoryTable.Write bad = withNewFileVersion(table.update(1, 1, 2), 0); // a 2.0 file in a 2.1 table
    MemoryTable.Write c = table.update(1, 1, 3); // fragment 1 again: bad must be built to check c against it
    MemoryTable.Write d = table.update(1, 2, 4);

    GroupBuilder disjoint = builder(table);
    assertThat(disjoint.offer(candidate(a))).isInstanceOf(Verdict.Joined.class);
    assertThat(disjoint.offer(candidate(bad))).isInstanceOf(Verdict.Joined.class);
    assertThat(disjoint.offer(candidate(d))).isInstanceOf(Verdict.Joined.class);
    assertThatThrownBy(() -> disjoint.build(UUID.randomUUID().toString(), Map.of()))
        .isInstanceOf(dev.lancecommit.rules.InvalidTransactionException.class).hasMessageContaining("is 2.0");

    GroupBuilder shared = builder(table);
    assertThat(shared.offer(candidate(a))).isInstanceOf(Verdict.Joined.class);
    assertThat(shared.offer(candidate(bad))).isInstanceOf(Verdict.Joined.class);
    assertThat(shared.offer(candidate(c))).isInstanceOf(Verdict.Closed.class);
    assertThat(shared.isClosed()).isTrue();
    assertThatThrownBy(() -> shared.build(UUID.randomUUID().toString(), Map.of()))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("cannot be built on its own")
        .hasMessageContaining("is 2.0").hasRootCauseInstanceOf(dev.lancecommit.rules.InvalidTransactionException.class);

    // one by one, as the lane then commits them: only the bad one fails, alone
    GroupBuilder alone = builder(table);
    assertThat(alone.offer(candidate(bad))).isInstanceOf(Verdict.Joined.class);
    assertThatThrownBy(() -> alone.build(UUID.randomUUID().toString(), Map.of()))
        .isInstanceOf(dev.lancecommit.rules.InvalidTransactionException.class);
    GroupBuilder others = builder(table);
    assertThat(others.offer(candidate(a))).isInstanceOf(Verdict.Joined.class);
    assertThat(others.offer(candidate(d))).isInstanceOf(Verdict.Joined.class);
    assertThat(others.build(UUID.randomUUID().toString(), Map.of()).isGroup()).isTrue();
  }

  private static MemoryTable.Write withNewFileVersion(MemoryTable.Write write, int minor) {
    Transaction.Update.Builder update = write.txn().getUpdate().toBuilder();
    DataFragment moved = update.getNewFragments(0);
    update.setNewFragments(0, moved.toBuilder().setFiles(0, moved.getFiles(0).toBuilder().setFileMinorVersion(minor)));
    return new MemoryTable.Write(write.txn().toBuilder().setUpdate(update).build(), write.affectedRows());
  }

  @Test
  void randomGroupsOfUpdatesOrDeletesLeaveTheTableTheWritersLeaveOneByOne() {
    java.util.Random random = new java.util.Random(20261205);
    for (int trial = 0; trial < 150; trial++) {
      int fragmentCount = 1 + random.nextInt(6);
      long[] rows = new long[fragmentCount];
      java.util.Arrays.fill(rows, 12);
      MemoryTable table = new MemoryTable(rows);
      boolean deletes = random.nextBoolean();
      int before = random.nextInt(3);
      for (int v = 0; v < before; v++) { // versions committed before the group, by other writers
        long fragment = table.latest().manifest().getFragments(random.nextInt(
            table.latest().manifest().getFragmentsCount())).getId();
        MemoryTable.Write w = table.update(table.latest().version(), fragment, 11 - v);
        table.commit(w.txn());
      }
      List<MemoryTable.Write> writes = new ArrayList<>();
      int count = 2 + random.nextInt(8);
      for (int i = 0; i < count; i++) {
        long readVersion = 1 + random.nextInt((int) table.latest().version());
        List<DataFragment> at = table.version(readVersion).manifest().getFragmentsList();
        DataFragment chosen = at.get(random.nextInt(at.size()));
        org.roaringbitmap.RoaringBitmap live = org.roaringbitmap.RoaringBitmap.bitmapOfRange(0,
            chosen.getPhysicalRows());
        live.andNot(table.deletionVector(chosen));
        if (live.getCardinality() < 2) {
          continue; // a row of its own, at least one left: a one-row fragment is removed whole, not updated
        }
        long fragment = chosen.getId();
        int[] offsets = random.ints(1 + random.nextInt(2), 0, live.getCardinality() - 1).distinct()
            .map(live::select).toArray();
        writes.add(deletes ? table.delete(readVersion, fragment, offsets) : table.update(readVersion, fragment, offsets));
      }
      MemoryTable oneByOne = table.copy();

      GroupBuilder group = builder(table);
      List<Boolean> joined = new ArrayList<>();
      for (MemoryTable.Write w : writes) {
        Verdict verdict = group.offer(candidate(w));
        assertThat(verdict).as("trial %s", trial).isNotInstanceOf(Verdict.Closed.class);
        joined.add(verdict instanceof Verdict.Joined);
      }
      if (!group.isEmpty()) {
        GroupBuilder.Built built = group.build(UUID.randomUUID().toString(), Map.of());
        table.store(built.deletionFiles());
        table.commit(built.recorded());
        assertThat(built.next().manifest().getFragmentsList()).as("trial %s", trial)
            .isEqualTo(table.latest().manifest().getFragmentsList());
      }
      for (int i = 0; i < writes.size(); i++) {
        assertThat(commitAlone(oneByOne, writes.get(i))).as("trial %s, write %s alone", trial, i)
            .isEqualTo(joined.get(i));
      }
      assertSameRows(table, oneByOne);
    }
  }
}
