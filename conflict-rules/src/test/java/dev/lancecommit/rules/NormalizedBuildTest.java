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
  private record Step(String name, Function<TableState, Transaction> txn) {}

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
}
