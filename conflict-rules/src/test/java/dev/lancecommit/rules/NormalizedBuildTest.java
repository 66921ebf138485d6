package dev.lancecommit.rules;

import static dev.lancecommit.rules.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.format.FeatureFlags;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Transaction;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * A version the builder made is normalized, and the next build on it looks only at the fragments its transaction
 * changes. These tests hold it to the full build: every step of a chain built on the builder's own states must give
 * exactly the manifest the same step gives on the same version read back from storage (not normalized: every
 * fragment looked at), and what the full build refuses it still refuses.
 */
class NormalizedBuildTest {

  /** One step of a chain: the transaction to apply to the version before it. */
  record Step(String name, Function<TableState, Transaction> txn) {}

  /**
   * Applies {@code step} to {@code built} and to the same version as read back from storage, checks both give the
   * same manifest and indices, and returns the version built on {@code built}.
   */
  private static TableState stepOnBoth(TableState built, Step step) {
    Transaction txn = step.txn().apply(built);
    TableState stored = new TableState(built.manifest(), built.indices());
    TableState onBuilt = ManifestBuilder.build(built, txn, ctx(built.version() + 1));
    TableState onStored = ManifestBuilder.build(stored, txn, ctx(built.version() + 1));
    assertThat(onBuilt.manifest()).as(step.name()).isEqualTo(onStored.manifest());
    assertThat(onBuilt.indices()).as(step.name()).isEqualTo(onStored.indices());
    assertThat(onBuilt.normalized()).isTrue();
    assertThat(onBuilt.fragmentsSortedById()).isTrue();
    return onBuilt;
  }

  @Test
  void aChainBuiltOnItsOwnVersionsGivesTheManifestsOfTheSameChainBuiltOnStoredVersions() {
    List<Step> steps = List.of(
        new Step("append", s -> append(s.version(), newFragment("a", 5), newFragment("b", 7))),
        new Step("append", s -> append(s.version(), newFragment("c", 3))),
        new Step("delete rows of one fragment, drop another", s -> delete(s.version(),
            List.of(withDeletions(s.manifest().getFragments(1), s.version(), 2)), s.manifest().getFragments(0)
                .getId())),
        new Step("reserve", s -> reserve(s.version(), 3)),
        new Step("rewrite two fragments into one", s -> rewrite(s.version(), group(
            List.of(s.manifest().getFragments(0), s.manifest().getFragments(1)), List.of(newFragment("r", 10))))),
        new Step("tombstone a column of one fragment", s -> {
          DataFragment first = s.manifest().getFragments(0);
          DataFragment tombstoned = first.toBuilder()
              .setFiles(0, first.getFiles(0).toBuilder().setFields(3, -2))
              .addFiles(DataFile.newBuilder().setPath("dead.lance").addFields(-2).addFields(-2)
                  .setFileMajorVersion(2).setFileMinorVersion(1))
              .build();
          return delete(s.version(), List.of(tombstoned));
        }),
        new Step("append", s -> append(s.version(), newFragment("d", 1))));

    TableState built = table(1, 0, fragment(0, 4));
    List<String> checked = new ArrayList<>();
    for (Step step : steps) {
      built = stepOnBoth(built, step);
      checked.add(step.name());
    }
    assertThat(checked).hasSize(steps.size());
    assertThat(built.manifest().getFragmentsList()).allSatisfy(f -> assertThat(f.getFilesList())
        .extracting(DataFile::getPath).doesNotContain("dead.lance"));
  }

  @Test
  void featureFlagsAndFragmentOrderFollowAChainThatChangesAndDropsFragmentsInTheMiddle() {
    List<Step> steps = List.of(
        new Step("append two", s -> append(s.version(), newFragment("a", 5), newFragment("b", 7))),
        new Step("append one", s -> append(s.version(), newFragment("c", 3))),
        new Step("delete rows of a fragment in the middle", s -> delete(s.version(),
            List.of(withDeletions(s.manifest().getFragments(2), s.version(), 2)))),
        new Step("append over a carried deletion file", s -> append(s.version(), newFragment("d", 1))),
        new Step("reserve over a carried deletion file", s -> reserve(s.version(), 2)),
        new Step("drop the fragment with the deletion file", s -> delete(s.version(), List.of(),
            s.manifest().getFragments(2).getId())),
        new Step("append after it", s -> append(s.version(), newFragment("e", 2))));
    List<Boolean> deletionFlag = List.of(false, false, true, true, true, false, false);

    TableState built = table(1, 0, fragment(0, 4));
    for (int i = 0; i < steps.size(); i++) {
      built = stepOnBoth(built, steps.get(i));
      assertThat((built.manifest().getReaderFeatureFlags() & FeatureFlags.DELETION_FILES) != 0)
          .as(steps.get(i).name()).isEqualTo(deletionFlag.get(i));
      assertThat(built.manifest().getFragmentsList()).extracting(DataFragment::getId).isSorted()
          .doesNotHaveDuplicates();
    }
    assertThat(built.manifest().getFragmentsCount()).isEqualTo(5);
  }

  @Test
  void onStableRowIdsAChangedFragmentWithoutRowIdsIsRefusedAsOnAStoredVersion() {
    TableState stable = stableTable(1, 1, 30, withRowIds(fragment(0, 10), 0), withRowIds(fragment(1, 20), 10));
    TableState built = ManifestBuilder.build(stable, append(1, newFragment("a", 2)), ctx(2));
    assertThat(built.normalized()).isTrue();
    DataFragment middle = built.manifest().getFragments(1);
    Transaction replaces = delete(2, List.of(middle.toBuilder().clearRowIdSequence().build()));
    TableState stored = new TableState(built.manifest(), built.indices());

    assertThatThrownBy(() -> ManifestBuilder.build(built, replaces, ctx(3)))
        .hasMessageContaining("fragment " + middle.getId() + " has no row id sequence");
    assertThatThrownBy(() -> ManifestBuilder.build(stored, replaces, ctx(3)))
        .hasMessageContaining("fragment " + middle.getId() + " has no row id sequence");
  }

  @Test
  void aVersionReadFromStorageIsNormalizedByTheFirstBuildOnIt() {
    DataFragment withDeadFile = fragment(0, 4).toBuilder()
        .addFiles(DataFile.newBuilder().setPath("dead.lance").addFields(-2).setFileMajorVersion(2)
            .setFileMinorVersion(1))
        .build();
    TableState stored = table(1, 0, withDeadFile);
    assertThat(stored.normalized()).isFalse();

    TableState next = ManifestBuilder.build(stored, append(1, newFragment("a", 1)), ctx(2));

    assertThat(next.manifest().getFragments(0).getFilesList()).extracting(DataFile::getPath)
        .containsExactly("f0-4.lance");
  }

  @Test
  void aDataFileOfAnotherStorageVersionIsRefusedOnANormalizedVersionAsOnAStoredOne() {
    TableState built = ManifestBuilder.build(table(1, 0, fragment(0, 4)), append(1, newFragment("a", 1)), ctx(2));
    DataFragment older = newFragment("old", 1).toBuilder()
        .setFiles(0, newFragment("old", 1).getFiles(0).toBuilder().setFileMinorVersion(0)).build();
    Transaction txn = append(2, older);

    assertThatThrownBy(() -> ManifestBuilder.build(built, txn, ctx(3)))
        .isInstanceOf(InvalidTransactionException.class).hasMessageContaining("same version");
    assertThatThrownBy(() -> ManifestBuilder.build(new TableState(built.manifest(), built.indices()), txn, ctx(3)))
        .isInstanceOf(InvalidTransactionException.class).hasMessageContaining("same version");
  }

  @Test
  void aRowIdSequenceIsRefusedOnANormalizedVersionOfATableWithoutStableRowIds() {
    TableState built = ManifestBuilder.build(table(1, 0, fragment(0, 4)), append(1, newFragment("a", 1)), ctx(2));
    Transaction txn = append(2, withRowIds(newFragment("rows", 2), 0));

    assertThatThrownBy(() -> ManifestBuilder.build(built, txn, ctx(3)))
        .isInstanceOf(InvalidTransactionException.class).hasMessageContaining("row id sequence");
  }

  /**
   * Appends, Deletes and Updates on a version built here name the places of the list they changed
   * ({@link FragmentEdits}), and the builder edits only those: random chains of them, many fragments removed at once,
   * tombstoned files in replaced fragments, ids both replaced and removed, ids the table lacks, and new fragments
   * with reserved ids that land below the table's last fragment (the list is then sorted and walked whole), must each
   * give the manifest the full build gives on the same version read from storage.
   */
  @Test
  void randomChainsOfEditsGiveTheManifestsOfTheFullBuild() {
    Random random = new Random(23);
    int steps = 0;
    for (int chain = 0; chain < 80; chain++) {
      List<DataFragment> initial = new ArrayList<>();
      for (int id = 0; id < 40; id++) {
        DataFragment fragment = fragment(id, 10);
        initial.add(random.nextInt(5) == 0 ? withDeletions(fragment, 1, 1) : fragment);
      }
      TableState built = table(1, 39, initial.toArray(DataFragment[]::new));
      List<Long> reserved = new ArrayList<>();
      for (int step = 0; step < 12; step++) {
        built = stepOnBoth(built, randomEdit(random, built, reserved, chain + "/" + step));
        steps++;
      }
    }
    assertThat(steps).isEqualTo(80 * 12);
  }

  /** An Append, a reservation, a Delete or an Update of {@code table}, drawn at random (see the test above). */
  static Step randomEdit(Random random, TableState table, List<Long> reserved, String name) {
    List<DataFragment> fragments = table.manifest().getFragmentsList();
    long version = table.version();
    switch (random.nextInt(5)) {
      case 0:
        return new Step(name + " append", s -> append(version, newFragment("a" + name, 1 + random.nextInt(3))));
      case 1: {
        int count = 1 + random.nextInt(3);
        long first = Integer.toUnsignedLong(table.manifest().getMaxFragmentId()) + 1;
        for (int i = 0; i < count; i++) {
          reserved.add(first + i);
        }
        return new Step(name + " reserve", s -> reserve(version, count));
      }
      default: {
        List<DataFragment> replaced = new ArrayList<>();
        List<Long> removed = new ArrayList<>();
        // now and then more removals than the builder takes out one by one
        int removals = random.nextInt(4) == 0 ? Math.min(fragments.size(), 17 + random.nextInt(4))
            : random.nextInt(3);
        for (int i = 0; i < removals && !fragments.isEmpty(); i++) {
          removed.add(fragments.get(random.nextInt(fragments.size())).getId());
        }
        for (int i = random.nextInt(4); i > 0 && !fragments.isEmpty(); i--) {
          DataFragment old = fragments.get(random.nextInt(fragments.size()));
          DataFragment changed = withDeletions(old, version, 1 + random.nextInt(3));
          if (random.nextInt(3) == 0) {
            changed = changed.toBuilder().addFiles(DataFile.newBuilder().setPath("dead-" + name + ".lance")
                .addFields(-2).setFileMajorVersion(2).setFileMinorVersion(1)).build();
          }
          replaced.add(changed);
        }
        if (random.nextInt(6) == 0) {
          long missing = Integer.toUnsignedLong(table.manifest().getMaxFragmentId()) + 1000;
          removed.add(missing);
          replaced.add(fragment(missing + 1, 3));
        }
        boolean update = random.nextBoolean();
        List<DataFragment> added = new ArrayList<>();
        if (update) {
          for (int i = random.nextInt(3); i > 0; i--) {
            added.add(newFragment("u" + name + "-" + i, 2));
          }
          if (!reserved.isEmpty() && random.nextBoolean()) {
            added.add(fragment(reserved.remove(0), 4)); // a reserved id: maybe below the table's last fragment
          }
        }
        if (!update) {
          return new Step(name + " delete", s -> delete(version, replaced, removed.toArray(Long[]::new)));
        }
        return new Step(name + " update", s -> txn(version).setUpdate(Transaction.Update.newBuilder()
            .addAllUpdatedFragments(replaced).addAllRemovedFragmentIds(removed).addAllNewFragments(added)
            .setUpdateMode(Transaction.UpdateMode.REWRITE_ROWS)).build());
      }
    }
  }
}
