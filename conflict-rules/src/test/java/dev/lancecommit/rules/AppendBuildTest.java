package dev.lancecommit.rules;

import static dev.lancecommit.rules.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.format.FeatureFlags;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Manifest;
import org.junit.jupiter.api.Test;

class AppendBuildTest {

  @Test
  void newFragmentsGetIdsAfterTheHighWaterMarkAndThePerVersionFieldsAreReset() {
    TableState current = withIndices(table(3, 1, fragment(0, 10), fragment(1, 10)),
        scalarIndex(1, "id_idx", 2, 0, 0, 1));
    TableState next = ManifestBuilder.build(current,
        append(3, newFragment("a", 5), newFragment("b", 7)).toBuilder().setTag("nightly").build(), ctx(4));

    Manifest m = next.manifest();
    assertThat(ids(next)).containsExactly(0L, 1L, 2L, 3L);
    assertThat(m.getFragments(2).getFiles(0).getPath()).isEqualTo("a.lance");
    assertThat(m.getFragments(3).getFiles(0).getPath()).isEqualTo("b.lance");
    assertThat(maxFragmentId(next)).isEqualTo(3);
    assertThat(m.getVersion()).isEqualTo(4);
    assertThat(m.getWriterVersion()).isEqualTo(WRITER);
    assertThat(m.getTag()).isEqualTo("nightly");
    assertThat(m.getTransactionFile()).isEqualTo("3-txn.txn");
    assertThat(m.getTimestamp().getSeconds()).isEqualTo(NOW.getEpochSecond());
    assertThat(m.getTimestamp().getNanos()).isEqualTo(NOW.getNano());
    assertThat(m.hasIndexSection()).isFalse();
    assertThat(m.hasTransactionSection()).isFalse();
    assertThat(m.getFieldsList()).isEqualTo(SCHEMA);
    assertThat(m.getDataFormat().getVersion()).isEqualTo("2.1");
    assertThat(next.indices()).isEqualTo(current.indices());
  }

  @Test
  void tagIsNotInheritedFromThePreviousVersion() {
    TableState next = ManifestBuilder.build(table(1, 0, fragment(0, 1)), append(1, newFragment("a", 1)), ctx(2));
    assertThat(next.manifest().getTag()).isEmpty();
  }

  @Test
  void idsContinueFromTheStoredHighWaterMarkEvenWhenHigherFragmentsWereDeleted() {
    TableState current = table(7, 9, fragment(0, 10), fragment(4, 10));
    TableState next = ManifestBuilder.build(current, append(7, newFragment("a", 5)), ctx(8));
    assertThat(ids(next)).containsExactly(0L, 4L, 10L);
    assertThat(maxFragmentId(next)).isEqualTo(10);
  }

  @Test
  void withoutAStoredHighWaterMarkTheLargestFragmentIdIsUsed() {
    Manifest.Builder old = manifest(2, fragment(0, 1), fragment(5, 1));
    FeatureFlags.apply(old, false, true);
    TableState next = ManifestBuilder.build(new TableState(old.build(), java.util.List.of()),
        append(2, newFragment("a", 1)), ctx(3));
    assertThat(ids(next)).containsExactly(0L, 5L, 6L);
    assertThat(maxFragmentId(next)).isEqualTo(6);
  }

  @Test
  void aTableThatNeverHadFragmentsStartsAtZeroAndAnEmptyAppendLeavesTheMarkAbsent() {
    Manifest.Builder empty = manifest(1);
    TableState current = new TableState(empty.build(), java.util.List.of());
    TableState none = ManifestBuilder.build(current, append(1), ctx(2));
    assertThat(none.manifest().hasMaxFragmentId()).isFalse();
    assertThat(none.manifest().getFragmentsCount()).isZero();

    TableState one = ManifestBuilder.build(current, append(1, newFragment("a", 3)), ctx(2));
    assertThat(ids(one)).containsExactly(0L);
    assertThat(one.manifest().hasMaxFragmentId()).isTrue();
    assertThat(maxFragmentId(one)).isZero();
  }

  @Test
  void explicitIdsAreKeptAndTheListIsSortedById() {
    TableState current = table(2, 3, fragment(0, 1), fragment(3, 1));
    DataFragment reserved = newFragment("r", 2).toBuilder().setId(2).build();
    TableState next = ManifestBuilder.build(current, append(2, newFragment("a", 1), reserved), ctx(3));
    assertThat(ids(next)).containsExactly(0L, 2L, 3L, 4L);
    assertThat(next.manifest().getFragments(1).getFiles(0).getPath()).isEqualTo("r.lance");
    assertThat(maxFragmentId(next)).isEqualTo(4);
  }

  @Test
  void aBuildThatSortsAndTrimsTheFragmentsLeavesTheVersionItStartsFromAsItWas() {
    // The build sorts and rewrites its list of fragments in place: it must be the build's own, never the base's.
    DataFragment tombstoned = fragment(1, 1).toBuilder().addFiles(file("gone.lance", -2, -2)).build();
    TableState current = table(2, 3, fragment(0, 1), tombstoned, fragment(3, 1));
    java.util.List<DataFragment> fragmentsBefore = java.util.List.copyOf(current.manifest().getFragmentsList());
    DataFragment reserved = newFragment("r", 2).toBuilder().setId(2).build();
    dev.lancecommit.format.pb.Transaction txn = append(2, newFragment("a", 1), reserved);

    TableState first = ManifestBuilder.build(current, txn, ctx(3));
    TableState second = ManifestBuilder.build(current, txn, ctx(3));

    assertThat(current.manifest().getFragmentsList()).isEqualTo(fragmentsBefore);
    assertThat(first.manifest()).isEqualTo(second.manifest());
    assertThat(ids(first)).containsExactly(0L, 1L, 2L, 3L, 4L);
    assertThat(first.manifest().getFragments(1).getFilesList()).extracting(DataFile::getPath)
        .doesNotContain("gone.lance");
  }

  @Test
  void anExplicitIdCollidingWithAnExistingFragmentIsRefused() {
    TableState current = table(2, 3, fragment(0, 1), fragment(3, 1));
    DataFragment clash = newFragment("x", 2).toBuilder().setId(3).build();
    assertThatThrownBy(() -> ManifestBuilder.build(current, append(2, clash), ctx(3)))
        .isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining("two fragments with id 3");
  }

  @Test
  void dataFilesWhoseFieldsAreAllTombstonedAreDropped() {
    DataFragment fragment = fragment(0, 4).toBuilder()
        .addFiles(DataFile.newBuilder().setPath("dead.lance").addFields(-2).addFields(-2)
            .setFileMajorVersion(2).setFileMinorVersion(1))
        .addFiles(DataFile.newBuilder().setPath("half.lance").addFields(-2).addFields(1)
            .setFileMajorVersion(2).setFileMinorVersion(1))
        .build();
    TableState next = ManifestBuilder.build(table(1, 0, fragment), append(1), ctx(2));
    assertThat(next.manifest().getFragments(0).getFilesList()).extracting(DataFile::getPath)
        .containsExactly("f0-4.lance", "half.lance");
  }

  @Test
  void featureFlagsAreRecomputedFromContent() {
    TableState current = table(1, 0, fragment(0, 4));
    assertThat(current.manifest().getReaderFeatureFlags()).isZero();
    TableState next = ManifestBuilder.build(
        new TableState(current.manifest().toBuilder().putConfig("k", "v").build(), current.indices()),
        append(1, withDeletions(newFragment("a", 4), 1, 1)), ctx(2));
    assertThat(next.manifest().getReaderFeatureFlags()).isEqualTo(FeatureFlags.DELETION_FILES);
    assertThat(next.manifest().getWriterFeatureFlags())
        .isEqualTo(FeatureFlags.DELETION_FILES | FeatureFlags.TABLE_CONFIG);
  }

  @Test
  void filesOfAnotherStorageVersionAreRefused() {
    DataFragment v20 = newFragment("old", 2).toBuilder()
        .setFiles(0, file("old.lance", 0, 1, 2, 3).toBuilder().setFileMinorVersion(0)).build();
    assertThatThrownBy(() -> ManifestBuilder.build(table(1, 0, fragment(0, 1)), append(1, v20), ctx(2)))
        .isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining("old.lance is 2.0");
    TableState emptyV21 = new TableState(manifest(1).build(), java.util.List.of());
    assertThatThrownBy(() -> ManifestBuilder.build(emptyV21, append(1, v20), ctx(2)))
        .isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining("added files with version 2.0")
        .hasMessageContaining("data storage version is 2.1");
  }

  @Test
  void theVersionMustFollowTheCurrentOne() {
    assertThatThrownBy(() -> ManifestBuilder.build(table(3, 0, fragment(0, 1)), append(3), ctx(5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not 5");
  }

  @Test
  void aTableThatDoesNotExistAcceptsOnlyOverwrite() {
    assertThatThrownBy(() -> ManifestBuilder.build(null, append(0, newFragment("a", 1)), createCtx(false)))
        .isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining("Append");
  }
}
