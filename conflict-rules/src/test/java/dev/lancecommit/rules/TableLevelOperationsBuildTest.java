package dev.lancecommit.rules;

import static dev.lancecommit.rules.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.lancecommit.format.FeatureFlags;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.BasePath;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.MemWalIndexDetails;
import dev.lancecommit.format.pb.Transaction;
import java.util.List;
import org.junit.jupiter.api.Test;

/** UpdateBases, Restore, UpdateMemWalState, Clone, and operations this build refuses. */
class TableLevelOperationsBuildTest {

  private static Transaction bases(long readVersion, BasePath... bases) {
    return txn(readVersion).setUpdateBases(Transaction.UpdateBases.newBuilder().addAllNewBases(List.of(bases))).build();
  }

  @Test
  void updateBasesAssignsIdsAndRefusesDuplicateNamesPathsAndIds() {
    TableState current = table(2, 0, fragment(0, 1));
    TableState next = ManifestBuilder.build(current, bases(2,
        BasePath.newBuilder().setName("hot").setPath("s3://hot/t").build(),
        BasePath.newBuilder().setName("cold").setPath("s3://cold/t").build(),
        BasePath.newBuilder().setId(9).setName("archive").setPath("s3://archive/t").build()), ctx(3));
    assertThat(next.manifest().getBasePathsList()).extracting(BasePath::getId).containsExactly(1, 2, 9);
    assertThat(next.manifest().getReaderFeatureFlags() & FeatureFlags.BASE_PATHS).isNotZero();

    assertThatThrownBy(() -> ManifestBuilder.build(next,
        bases(3, BasePath.newBuilder().setName("hot").setPath("s3://elsewhere").build()), ctx(4)))
        .isInstanceOf(InvalidTransactionException.class).hasMessageContaining("already exists");
    assertThatThrownBy(() -> ManifestBuilder.build(next,
        bases(3, BasePath.newBuilder().setName("new").setPath("s3://cold/t").build()), ctx(4)))
        .isInstanceOf(InvalidTransactionException.class).hasMessageContaining("already exists");
    assertThatThrownBy(() -> ManifestBuilder.build(next,
        bases(3, BasePath.newBuilder().setId(2).setName("new").setPath("s3://new").build()), ctx(4)))
        .isInstanceOf(InvalidTransactionException.class).hasMessageContaining("id 2 is already in use");
    TableState unnamed = ManifestBuilder.build(current, bases(2, BasePath.newBuilder().setPath("s3://a").build()),
        ctx(3));
    assertThatThrownBy(() -> ManifestBuilder.build(unnamed,
        bases(3, BasePath.newBuilder().setPath("s3://b").build()), ctx(4)))
        .isInstanceOf(InvalidTransactionException.class).hasMessageContaining("already exists");
  }

  @Test
  void restoreBringsBackTheOldContentButNotTheOldHighWaterMarksThatLanceMovesBackAndReusesIdsFrom() {
    TableState v2 = withIndices(table(2, 1, fragment(0, 5), fragment(1, 5)), scalarIndex(1, "id_idx", 2, 0, 0, 1));
    TableState v5 = table(5, 7, fragment(6, 5), fragment(7, 5));
    Transaction restore = txn(5).setRestore(Transaction.Restore.newBuilder().setVersion(2)).build();

    TableState v6 = ManifestBuilder.buildRestore(v5, v2, restore, ctx(6));

    assertThat(v6.version()).isEqualTo(6);
    assertThat(ids(v6)).containsExactly(0L, 1L);
    assertThat(v6.indices()).isEqualTo(v2.indices());
    assertThat(v6.manifest().getTransactionFile()).isEqualTo("5-txn.txn");
    assertThat(v6.manifest().getTimestamp().getSeconds()).isEqualTo(NOW.getEpochSecond());
    assertThat(v6.manifest().getWriterVersion()).isEqualTo(v2.manifest().getWriterVersion());
    assertThat(maxFragmentId(v6)).isEqualTo(7);
    assertThat(v6.manifest().hasIndexSection()).isFalse();

    TableState v7 = ManifestBuilder.build(v6, append(6, newFragment("a", 1)), ctx(7));
    assertThat(ids(v7)).containsExactly(0L, 1L, 8L);
  }

  @Test
  void restoreMustNameTheVersionItIsGiven() {
    TableState v2 = table(2, 0, fragment(0, 5));
    TableState v5 = table(5, 0, fragment(0, 5));
    Transaction restore = txn(5).setRestore(Transaction.Restore.newBuilder().setVersion(3)).build();
    assertThatThrownBy(() -> ManifestBuilder.buildRestore(v5, v2, restore, ctx(6)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ManifestBuilder.build(v5, restore, ctx(6)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("buildRestore");
  }

  private static MemWalIndexDetails.MemWal memWal(String region, long generation) {
    return MemWalIndexDetails.MemWal.newBuilder()
        .setId(MemWalIndexDetails.MemWalId.newBuilder().setRegion(region).setGeneration(generation))
        .setMemTableLocation("mem/" + region).setWalLocation("wal/" + region).setOwnerId("w1").build();
  }

  private static MemWalIndexDetails detailsOf(IndexMetadata index) throws InvalidProtocolBufferException {
    return MemWalIndexDetails.parseFrom(index.getIndexDetails().getValue());
  }

  @Test
  void updateMemWalStateCarriesFragmentsForwardUnlikeLanceNov2025() throws Exception {
    IndexMetadata idIdx = scalarIndex(1, "id_idx", 2, 0, 0, 1);
    TableState current = withIndices(table(3, 1, fragment(0, 5), fragment(1, 5)), idIdx);
    MemWalIndexDetails.MemWal a = memWal("a", 1);
    Transaction open = txn(3).setUpdateMemWalState(Transaction.UpdateMemWalState.newBuilder()
        .addAddedOrCompactedSstables(a.toByteString())).build();

    TableState v4 = ManifestBuilder.build(current, open, ctx(4));

    assertThat(v4.manifest().getFragmentsList()).isEqualTo(current.manifest().getFragmentsList());
    assertThat(v4.indices()).hasSize(2);
    assertThat(v4.indices().get(0)).isEqualTo(idIdx);
    IndexMetadata memWalIndex = v4.indices().get(1);
    assertThat(memWalIndex.getName()).isEqualTo(IndexRetention.MEM_WAL_INDEX_NAME);
    assertThat(memWalIndex.getIndexDetails().getTypeUrl()).isEqualTo("/lance.table.MemWalIndexDetails");
    assertThat(detailsOf(memWalIndex).getMemWalListList())
        .containsExactly(a.toBuilder().setLastUpdatedDatasetVersion(4).build());

    MemWalIndexDetails.MemWal sealed = a.toBuilder().setState(MemWalIndexDetails.MemWal.State.SEALED).build();
    Transaction seal = txn(4).setUpdateMemWalState(Transaction.UpdateMemWalState.newBuilder()
        .addUpdated(sealed.toByteString()).addRemoved(a)).build();
    TableState v5 = ManifestBuilder.build(v4, seal, ctx(5));
    assertThat(v5.manifest().getFragmentsCount()).isEqualTo(2);
    assertThat(detailsOf(v5.indices().get(1)).getMemWalListList())
        .containsExactly(sealed.toBuilder().setLastUpdatedDatasetVersion(5).build());
    assertThat(v5.indices().get(1).getUuid()).isNotEqualTo(memWalIndex.getUuid());

    // the same inputs give the same manifest (no randomness)
    assertThat(ManifestBuilder.build(v4, seal, ctx(5))).isEqualTo(v5);
  }

  @Test
  void updatingAMemWalWithoutAMemWalIndexIsRefused() {
    Transaction seal = txn(3).setUpdateMemWalState(Transaction.UpdateMemWalState.newBuilder()
        .addUpdated(memWal("a", 1).toByteString())).build();
    assertThatThrownBy(() -> ManifestBuilder.build(table(3, 0, fragment(0, 1)), seal, ctx(4)))
        .isInstanceOf(InvalidTransactionException.class).hasMessageContaining("without a MemWAL index");
  }

  @Test
  void memWalEntriesInTheRedesignedFormatAreNotGuessedAt() {
    Transaction newer = txn(3).setUpdateMemWalState(Transaction.UpdateMemWalState.newBuilder()
        .addAddedOrCompactedSstables(com.google.protobuf.ByteString.copyFromUtf8("\u0008\u0001"))).build();
    assertThatThrownBy(() -> ManifestBuilder.build(table(3, 0, fragment(0, 1)), newer, ctx(4)))
        .isInstanceOf(UnsupportedOperationTypeException.class);
  }

  @Test
  void shallowCloneReferencesTheSourceThroughANewBase() {
    DataFragment f0 = withDeletions(fragment(0, 5), 2, 1);
    DataFragment onBase = DataFragment.newBuilder().setId(1).setPhysicalRows(3)
        .addFiles(file("x.lance", 0, 1, 2, 3).toBuilder().setBaseId(3)).build();
    TableState source = new TableState(manifest(4, f0, onBase).setMaxFragmentId(1)
        .addBasePaths(BasePath.newBuilder().setId(3).setPath("s3://elsewhere/t")).build(),
        List.of(scalarIndex(1, "id_idx", 2, 0, 0, 1)));
    Transaction clone = txn(4).setClone(Transaction.Clone.newBuilder().setIsShallow(true).setRefVersion(4)
        .setRefPath("s3://bucket/source").setRefName("main").setBranchName("dev")).build();

    TableState cloned = ManifestBuilder.buildClone(source, clone,
        new CommitContext(4, NOW, "4-clone.txn", WRITER, false, "2.1"));

    assertThat(cloned.version()).isEqualTo(4);
    assertThat(cloned.manifest().getBranch()).isEqualTo("dev");
    BasePath added = cloned.manifest().getBasePaths(1);
    assertThat(added.getId()).isEqualTo(4);
    assertThat(added.getPath()).isEqualTo("s3://bucket/source");
    assertThat(added.getName()).isEqualTo("main");
    assertThat(added.getIsDatasetRoot()).isTrue();
    assertThat(cloned.manifest().getFragments(0).getFiles(0).getBaseId()).isEqualTo(4);
    assertThat(cloned.manifest().getFragments(0).getDeletionFile().getBaseId()).isEqualTo(4);
    assertThat(cloned.manifest().getFragments(1).getFilesList()).extracting(DataFile::getBaseId).containsExactly(3);
    assertThat(cloned.indices().get(0).getBaseId()).isEqualTo(4);
    assertThat(cloned.manifest().getTag()).isEmpty();
    assertThat(cloned.manifest().getTransactionFile()).isEqualTo("4-clone.txn");
    assertThat(cloned.manifest().getReaderFeatureFlags() & FeatureFlags.BASE_PATHS).isNotZero();
    // The clone's first version is written by whoever commits it, not by the source's writer.
    assertThat(source.manifest().getWriterVersion()).isEqualTo(OLD_WRITER);
    assertThat(cloned.manifest().getWriterVersion()).isEqualTo(WRITER);
  }

  @Test
  void deepCloneNamesEveryFileUnderTheNewTableRoot() {
    DataFragment f0 = withDeletions(fragment(0, 5), 2, 1);
    DataFragment onBase = DataFragment.newBuilder().setId(1).setPhysicalRows(3)
        .addFiles(file("x.lance", 0, 1, 2, 3).toBuilder().setBaseId(3))
        .setDeletionFile(f0.getDeletionFile().toBuilder().setBaseId(3)).build();
    TableState source = new TableState(manifest(4, f0, onBase).setMaxFragmentId(1).setBranch("dev").setTag("t1")
        .addBasePaths(BasePath.newBuilder().setId(3).setPath("s3://elsewhere/t").setIsDatasetRoot(true))
        .putConfig("k", "v").build(),
        List.of(scalarIndex(1, "id_idx", 2, 0, 0, 1).toBuilder().setBaseId(3).build(),
            scalarIndex(2, "v_idx", 2, 1, 0).toBuilder().clearBaseId().build()));
    Transaction clone = txn(4).setClone(Transaction.Clone.newBuilder().setIsShallow(false).setRefVersion(4)
        .setRefPath("s3://bucket/source").setRefName("dev").setBranchName("ignored")).build();

    TableState cloned = ManifestBuilder.buildClone(source, clone,
        new CommitContext(4, NOW, "4-clone.txn", WRITER, false, "2.1"));

    assertThat(cloned.version()).isEqualTo(4);
    assertThat(cloned.manifest().getBasePathsList()).isEmpty();
    assertThat(cloned.manifest().hasBranch()).isFalse();
    assertThat(cloned.manifest().getTag()).isEmpty();
    assertThat(cloned.manifest().hasIndexSection()).isFalse();
    assertThat(cloned.manifest().getFragmentsList()).hasSize(2).allSatisfy(f -> {
      assertThat(f.getFilesList()).noneMatch(DataFile::hasBaseId);
      assertThat(f.getDeletionFile().hasBaseId()).isFalse();
    });
    // apart from the bases, the fragments are the source's, file for file
    assertThat(cloned.manifest().getFragments(1).getFiles(0).getPath()).isEqualTo("x.lance");
    assertThat(cloned.manifest().getFragments(0).getDeletionFile().getId())
        .isEqualTo(f0.getDeletionFile().getId());
    assertThat(cloned.manifest().getFragments(0).getPhysicalRows()).isEqualTo(5);
    assertThat(cloned.indices()).hasSize(2).noneMatch(IndexMetadata::hasBaseId);
    assertThat(cloned.indices()).extracting(IndexMetadata::getName).containsExactly("id_idx", "v_idx");
    assertThat(cloned.manifest().getMaxFragmentId()).isEqualTo(1);
    assertThat(cloned.manifest().getConfigMap()).containsEntry("k", "v");
    assertThat(cloned.manifest().getFieldsList()).isEqualTo(source.manifest().getFieldsList());
    assertThat(cloned.manifest().getTransactionFile()).isEqualTo("4-clone.txn");
    assertThat(cloned.manifest().getTimestamp().getSeconds()).isEqualTo(NOW.getEpochSecond());
    assertThat(cloned.manifest().getWriterVersion()).isEqualTo(WRITER);
    // flags follow the content: deletions (1) and config (8 writer), no base paths (16)
    assertThat(cloned.manifest().getReaderFeatureFlags() & FeatureFlags.BASE_PATHS).isZero();
    assertThat(cloned.manifest().getWriterFeatureFlags() & FeatureFlags.BASE_PATHS).isZero();
    assertThat(cloned.manifest().getReaderFeatureFlags() & FeatureFlags.DELETION_FILES).isNotZero();

    // a deep clone keeps the source's version number like a shallow one
    assertThatThrownBy(() -> ManifestBuilder.buildClone(source, clone, ctx(5)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keeps the source version number");
  }

  @Test
  void operationsThisBuildCannotApplyAreUnsupported() {
    Transaction overlay = txn(2).setDataOverlay(Transaction.DataOverlay.getDefaultInstance()).build();
    assertThatThrownBy(() -> ManifestBuilder.build(table(2, 0, fragment(0, 1)), overlay, ctx(3)))
        .isInstanceOf(UnsupportedOperationTypeException.class)
        .hasMessageContaining("DataOverlay")
        .hasMessageContaining("unstable")
        .extracting(e -> ((UnsupportedOperationTypeException) e).reason())
        .satisfies(reason -> assertThat(reason).hasValueSatisfying(r -> assertThat(r).contains("flag 64")));
  }
}
